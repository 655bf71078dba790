//! `gipfzero rules …`: the rules engines on the command line. The output formats are a
//! contract (shared/rules/cli.md): other implementations are compared with these byte for
//! byte, so they change only with that document.
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args, Subcommand};
use gipfzero_games::record::{self, Replay};
use gipfzero_games::registry::{GameName, GameSetting, GameVisitor};
use gipfzero_games::{Game, Status};

/// The position a command works on: the game, its set-up and the turns played from the start.
#[derive(Args, Debug, Clone)]
pub struct PositionArgs {
    /// zertz, dvonn or lyngk.
    pub game: GameName,
    /// ZÈRTZ board: standard (default), 40, 43, 44, 48 (or tournament), 61, blitz.
    #[arg(long)]
    pub variant: Option<String>,
    /// LYNGK set-up: 43 colour letters in point order.
    #[arg(long)]
    pub setup: Option<String>,
    /// LYNGK: draw the set-up from this seed (default 0). For `random`, also the seed of
    /// the random turns (required there, for every game).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Turns in record notation, separated by spaces, played from the start.
    #[arg(long)]
    pub moves: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum RulesCommand {
    /// Every legal turn of the position, one per line, sorted by byte order.
    Moves {
        #[command(flatten)]
        position: PositionArgs,
    },
    /// The number of legal turn sequences of length N.
    Perft {
        #[command(flatten)]
        position: PositionArgs,
        #[arg(long)]
        depth: u32,
    },
    /// Checks a game record and prints the final position, the turn or result, and the score.
    Replay {
        #[command(flatten)]
        position: PositionArgs,
        /// The record file, `-` for standard input.
        file: PathBuf,
    },
    /// Prints the position as text.
    Show {
        #[command(flatten)]
        position: PositionArgs,
    },
    /// Plays uniformly random legal turns to the end and prints the record and the result.
    Random {
        #[command(flatten)]
        position: PositionArgs,
    },
}

impl RulesCommand {
    fn position(&self) -> &PositionArgs {
        match self {
            RulesCommand::Moves { position }
            | RulesCommand::Perft { position, .. }
            | RulesCommand::Replay { position, .. }
            | RulesCommand::Show { position }
            | RulesCommand::Random { position } => position,
        }
    }
}

pub fn run(command: RulesCommand) -> anyhow::Result<()> {
    let args = command.position();
    let random = matches!(command, RulesCommand::Random { .. });
    if random && args.seed.is_none() {
        anyhow::bail!("rules random needs --seed N");
    }
    let setting = GameSetting {
        game: args.game,
        variant: args.variant.clone(),
        setup: args.setup.clone(),
        // In `random` the seed also draws LYNGK's set-up (unless one is given); for the other
        // games it only seeds the turns.
        seed: if random && (args.game != GameName::Lyngk || args.setup.is_some()) {
            None
        } else {
            args.seed
        },
    };
    setting.start()?.visit(Execute(command))
}

struct Execute(RulesCommand);

impl GameVisitor for Execute {
    type Output = anyhow::Result<()>;
    fn visit<G: Game>(self, start: G) -> Self::Output {
        execute(self.0, start)
    }
}

fn execute<G: Game>(command: RulesCommand, start: G) -> anyhow::Result<()> {
    let moves = command.position().moves.clone().unwrap_or_default();
    let position = record::replay(&start, &moves)?.position;
    match command {
        RulesCommand::Moves { .. } => {
            for text in record::sorted_turn_texts(&position) {
                println!("{text}");
            }
        }
        RulesCommand::Perft { depth, .. } => println!("{}", record::perft(&position, depth)),
        RulesCommand::Show { .. } => print!("{}", describe(&position)),
        RulesCommand::Replay { file, .. } => {
            let text = read_record(&file)?;
            let Replay { position, .. } = record::replay(&position, &text)
                .map_err(|error| located(error, &file))?;
            print!("{}", describe(&position));
        }
        RulesCommand::Random { position: args } => {
            let seed = args.seed.unwrap_or_default();
            let game = record::random_game(&position, seed, usize::MAX);
            let mut replay = position.clone();
            for turn in &game.turns {
                println!("{}", replay.format_turn(turn));
                replay.play(turn);
            }
            println!("{}", game.position.result_text());
        }
    }
    Ok(())
}

/// The text of `show` and `replay`: the board drawing, then whose turn it is or the result,
/// then the score.
pub fn describe<G: Game>(position: &G) -> String {
    let mut text = position.render_text();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    match position.status() {
        Status::Ongoing => text.push_str(&format!("to move: {}\n", position.to_move())),
        Status::Over(_) => text.push_str(&format!("result: {}\n", position.result_text())),
    }
    let [one, two] = position.score();
    text.push_str(&format!("score: {one} - {two}\n"));
    text
}

/// Adds the record's file and line to a refused turn.
pub(crate) fn located(error: gipfzero_games::RecordError, file: &Path) -> anyhow::Error {
    let line = error.line;
    let name = if file.as_os_str() == "-" { "<stdin>".into() } else { file.display().to_string() };
    anyhow::Error::new(error).context(format!("{name}:{line}"))
}

pub(crate) fn read_record(file: &Path) -> anyhow::Result<String> {
    if file.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).context("reading the record from stdin")?;
        Ok(text)
    } else {
        std::fs::read_to_string(file).with_context(|| format!("reading the record {}", file.display()))
    }
}
