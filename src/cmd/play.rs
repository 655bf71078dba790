//! `gipfzero play`: a game in the terminal, a person against an agent, two people, or two
//! agents watched turn by turn. The game loop lives in `gipfzero_play::terminal`.
use anyhow::Context;
use clap::Args;
use gipfzero_games::registry::{GameName, GameSetting, GameVisitor};
use gipfzero_games::Game;
use gipfzero_play::terminal::{self, Hinter, Options, Seat};
use gipfzero_play::{error_text, AgentSource, Baseline};

use gipfzero_train::agents::AgentChoice;

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// zertz, dvonn or lyngk.
    pub game: GameName,
    /// Who plays first: human, random, greedy, rollout:<simulations> or checkpoint:<path>.
    #[arg(long, default_value = "human")]
    pub first: String,
    /// Who plays second, likewise.
    #[arg(long, default_value = "rollout:400")]
    pub second: String,
    /// ZÈRTZ board: standard (default), 40, 43, 44, 48 (or tournament), 61, blitz.
    #[arg(long)]
    pub variant: Option<String>,
    /// LYNGK set-up: 43 colour letters in point order.
    #[arg(long)]
    pub setup: Option<String>,
    /// LYNGK: draw the set-up from this seed. Also seeds the agents.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Simulations of the search behind `hint` (plain UCT with random playouts).
    #[arg(long, default_value_t = gipfzero_play::think::DEFAULT_HINT_SIMULATIONS)]
    pub hint_simulations: u32,
    /// Stop a game that is still running after this many turns.
    #[arg(long, default_value_t = 1000)]
    pub max_turns: usize,
    /// Do not draw the board after every turn.
    #[arg(long)]
    pub no_board: bool,
}

pub fn run(args: PlayArgs) -> anyhow::Result<()> {
    let seats = [&args.first, &args.second].map(|spec| {
        if spec == "human" {
            Ok(None)
        } else {
            AgentChoice::parse(spec)
                .map(Some)
                .with_context(|| format!("agent {spec:?}"))
        }
    });
    let [first, second] = seats;
    let seats = [first?, second?];
    let setting = GameSetting {
        game: args.game,
        variant: args.variant.clone(),
        setup: args.setup.clone(),
        seed: args.seed,
    };
    setting.start()?.visit(Play { args: &args, seats })
}

struct Play<'a> {
    args: &'a PlayArgs,
    seats: [Option<AgentChoice>; 2],
}

impl GameVisitor for Play<'_> {
    type Output = anyhow::Result<()>;
    fn visit<G: Game>(self, start: G) -> Self::Output {
        let seed = self.args.seed.unwrap_or(0);
        let mut seats = Vec::new();
        for (i, seat) in self.seats.iter().enumerate() {
            seats.push(match seat {
                None => Seat::Human,
                Some(source) => Seat::Agent(
                    source
                        .agent(&start, None, seed.wrapping_add(i as u64))
                        ?,
                ),
            });
        }
        let seats: [Seat<G>; 2] = seats.try_into().map_err(|_| anyhow::anyhow!("two seats"))?;
        // Hints come from the agent's own search (a checkpoint's network), or from plain UCT
        // when no seat has one.
        let hint_source = self
            .seats
            .iter()
            .flatten()
            .find(|choice| choice.checkpoint().is_some())
            .cloned()
            .unwrap_or_else(|| {
                AgentChoice::Baseline(Baseline::new("rollout:1").expect("a valid spec"))
            });
        let simulations = self.args.hint_simulations;
        let hinter: Hinter<'_, G> =
            Box::new(move |position: &G| hint_source.hints(position, simulations, seed).map_err(|error| error_text(&error)));
        let options = Options {
            max_turns: self.args.max_turns,
            show_board: !self.args.no_board,
            ..Options::default()
        };
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        let mut output = std::io::stdout().lock();
        terminal::play(
            &start,
            seats,
            Some(hinter),
            &options,
            &mut input,
            &mut output,
        )?;
        Ok(())
    }
}
