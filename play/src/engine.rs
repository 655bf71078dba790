//! gipfzero's engine protocol: one command per input line, one reply per command (`show` ends
//! its drawing with `end`), every failure an `error …` line and never the end of the session.
//! `docs/ENGINE.md` is the reference for the commands and replies.
//!
//! Why a session object: the game is chosen by a `newgame` line at run time, while the rules,
//! the agents and the search are generic over [`Game`]. [`Session`] is the game-independent
//! face of one game in progress; [`GameSession`] implements it for each game, built through
//! the games registry so every game is set up as everywhere else.
use std::io::{self, BufRead, Write};
use std::str::FromStr;
use std::time::Duration;

use gipfzero_games::registry::{GameName, GameSetting, GameVisitor};
use gipfzero_games::{record, Game, Outcome, Status};

use crate::think::{error_text, AgentSource, Budget, Thinker, DEFAULT_HINT_SIMULATIONS};

/// The protocol's version, as `protocol` reports it.
pub const PROTOCOL_VERSION: u32 = 1;

/// One game in progress, whatever the game.
pub trait Session {
    /// `zertz`, `dvonn` or `lyngk` and the variant.
    fn names(&self) -> (&'static str, &'static str);
    /// Plays a turn in record notation; returns it as the record writes it.
    fn play(&mut self, text: &str) -> Result<String, String>;
    /// The agent chooses and plays a turn; returns it.
    fn go(&mut self, budget: Budget) -> Result<String, String>;
    /// Takes back the last turn.
    fn undo(&mut self) -> Result<(), String>;
    /// The legal turns, sorted by byte order.
    fn moves(&self) -> Vec<String>;
    /// `ongoing <player>` or `over <winner|draw> <result>`.
    fn status(&self) -> String;
    /// The text drawing of the position.
    fn show(&self) -> String;
    /// The turns the search likes, with their visit shares.
    fn hint(&mut self, simulations: u32) -> Result<Vec<(String, f32)>, String>;
    /// The turns played so far.
    fn record(&self) -> Vec<String>;
}

/// A game of type `G` with its agent.
pub struct GameSession<G: Game, S> {
    position: G,
    /// The positions before each turn, and the turns.
    history: Vec<G>,
    turns: Vec<String>,
    thinker: Thinker<G, S>,
    seed: u64,
}

impl<G: Game, S: AgentSource> GameSession<G, S> {
    pub fn new(start: G, source: S, seed: u64) -> Self {
        GameSession {
            position: start,
            history: Vec::new(),
            turns: Vec::new(),
            thinker: Thinker::new(source, seed),
            seed,
        }
    }

    pub fn position(&self) -> &G {
        &self.position
    }

    fn apply(&mut self, turn: &G::Turn) -> String {
        let text = self.position.format_turn(turn);
        self.history.push(self.position.clone());
        self.turns.push(text.clone());
        self.position.play(turn);
        text
    }
}

impl<G: Game, S: AgentSource> Session for GameSession<G, S> {
    fn names(&self) -> (&'static str, &'static str) {
        let spec = self.position.spec();
        (spec.game, spec.variant)
    }

    fn play(&mut self, text: &str) -> Result<String, String> {
        if self.position.status().is_over() {
            return Err(format!(
                "the game is over ({})",
                self.position.result_text()
            ));
        }
        let turn = self.position.parse_turn(text).map_err(|e| e.to_string())?;
        Ok(self.apply(&turn))
    }

    fn go(&mut self, budget: Budget) -> Result<String, String> {
        if self.position.status().is_over() {
            return Err(format!(
                "the game is over ({})",
                self.position.result_text()
            ));
        }
        let turn = self
            .thinker
            .choose(&self.position, budget)
            .map_err(|error| error_text(&error))?;
        Ok(self.apply(&turn))
    }

    fn undo(&mut self) -> Result<(), String> {
        let previous = self.history.pop().ok_or("no turn to take back")?;
        self.position = previous;
        self.turns.pop();
        Ok(())
    }

    fn moves(&self) -> Vec<String> {
        record::sorted_turn_texts(&self.position)
    }

    fn status(&self) -> String {
        match self.position.status() {
            Status::Ongoing => format!("ongoing {}", self.position.to_move().index() + 1),
            Status::Over(Outcome::Draw) => format!("over draw {}", self.position.result_text()),
            Status::Over(Outcome::Win(player)) => format!(
                "over {} {}",
                player.index() + 1,
                self.position.result_text()
            ),
        }
    }

    fn show(&self) -> String {
        self.position.render_text()
    }

    fn hint(&mut self, simulations: u32) -> Result<Vec<(String, f32)>, String> {
        let seed = self.seed.wrapping_add(self.turns.len() as u64);
        let shares = self
            .thinker
            .source()
            .hints(&self.position, simulations, seed)
            .map_err(|error| error_text(&error))?;
        Ok(shares
            .into_iter()
            .map(|(turn, share)| (self.position.format_turn(&turn), share))
            .collect())
    }

    fn record(&self) -> Vec<String> {
        self.turns.clone()
    }
}

/// Builds a [`GameSession`] for whichever game a setting names.
struct MakeSession<S> {
    source: S,
    seed: u64,
}

impl<S: AgentSource + 'static> GameVisitor for MakeSession<S> {
    type Output = Box<dyn Session>;
    fn visit<G: Game>(self, start: G) -> Box<dyn Session> {
        Box::new(GameSession::new(start, self.source, self.seed))
    }
}

/// Reads `newgame` arguments: `<game> [variant <v>] [setup <letters>] [seed <n>]`.
fn parse_setting(words: &[&str]) -> Result<GameSetting, String> {
    let (game, options) = words
        .split_first()
        .ok_or("newgame needs a game: zertz, dvonn or lyngk")?;
    let mut setting = GameSetting::new(GameName::from_str(game).map_err(|e| e.to_string())?);
    for pair in options.chunks(2) {
        let [key, value] = pair else {
            return Err(format!("\"{}\" needs a value", pair[0]));
        };
        match *key {
            "variant" => setting.variant = Some(value.to_string()),
            "setup" => setting.setup = Some(value.to_string()),
            "seed" => {
                setting.seed = Some(
                    value
                        .parse()
                        .map_err(|_| format!("seed \"{value}\": expected a whole number"))?,
                )
            }
            other => {
                return Err(format!(
                    "unknown newgame option \"{other}\": expected variant, setup or seed"
                ))
            }
        }
    }
    Ok(setting)
}

/// Reads `go` / `hint` arguments: `[simulations <n>] [time <milliseconds>]`.
fn parse_budget(words: &[&str]) -> Result<Budget, String> {
    match words {
        [] => Ok(Budget::Default),
        ["simulations", n] => match n.parse::<u32>() {
            Ok(n) if n > 0 => Ok(Budget::Simulations(n)),
            _ => Err(format!(
                "simulations \"{n}\": expected a whole number above 0"
            )),
        },
        ["time", ms] => match ms.parse::<u64>() {
            Ok(ms) => Ok(Budget::Time(Duration::from_millis(ms))),
            _ => Err(format!(
                "time \"{ms}\": expected milliseconds, a whole number"
            )),
        },
        _ => Err("expected nothing, simulations <n> or time <milliseconds>".to_string()),
    }
}

const COMMANDS: &str = "protocol, newgame, play, go, moves, status, show, undo, hint, record, quit";

/// Runs the protocol until `quit` or the end of the input. `source` gives the agent for every
/// game; `seed` seeds agents and hints. Only I/O failures end it with an error.
pub fn run_engine<S: AgentSource + Clone + 'static>(
    source: S,
    seed: u64,
    input: &mut impl BufRead,
    output: &mut impl Write,
) -> io::Result<()> {
    let mut session: Option<Box<dyn Session>> = None;
    let mut games = 0u64;
    let mut line = String::new();
    loop {
        if crate::read_line_lossy(input, &mut line)? == 0 {
            return Ok(());
        }
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let (command, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
        let rest = rest.trim();
        let words: Vec<&str> = rest.split_whitespace().collect();
        let reply: Result<String, String> = match (command, session.as_mut()) {
            ("quit", _) => {
                writeln!(output, "bye")?;
                output.flush()?;
                return Ok(());
            }
            ("protocol", _) => Ok(format!("protocol gipfzero {PROTOCOL_VERSION}")),
            ("newgame", _) => parse_setting(&words).and_then(|setting| {
                let start = setting.start().map_err(|e| e.to_string())?;
                games += 1;
                let made = start.visit(MakeSession {
                    source: source.clone(),
                    seed: seed.wrapping_add(games),
                });
                let (game, variant) = made.names();
                session = Some(made);
                Ok(format!("ok newgame {game} {variant}"))
            }),
            ("play" | "go" | "moves" | "status" | "show" | "undo" | "hint" | "record", None) => {
                Err("no game: start one with newgame <game>".to_string())
            }
            ("play", Some(_)) if rest.is_empty() => {
                Err("play needs a turn in record notation".to_string())
            }
            ("play", Some(game)) => game.play(rest).map(|turn| format!("ok {turn}")),
            ("go", Some(game)) => parse_budget(&words)
                .and_then(|budget| game.go(budget))
                .map(|turn| format!("turn {turn}")),
            ("moves", Some(game)) => Ok(std::iter::once("moves".to_string())
                .chain(game.moves())
                .collect::<Vec<_>>()
                .join(" ")),
            ("status", Some(game)) => Ok(format!("status {}", game.status())),
            ("record", Some(game)) => Ok(std::iter::once("record".to_string())
                .chain(game.record())
                .collect::<Vec<_>>()
                .join(" ")),
            ("show", Some(game)) => Ok(format!("{}end", game.show())),
            ("undo", Some(game)) => game.undo().map(|()| "ok undo".to_string()),
            ("hint", Some(game)) => parse_budget(&words).and_then(|budget| {
                let simulations = match budget {
                    Budget::Simulations(n) => n,
                    Budget::Default => DEFAULT_HINT_SIMULATIONS,
                    Budget::Time(_) => {
                        return Err("hint takes simulations <n>, not a time".to_string())
                    }
                };
                let shares = game.hint(simulations)?;
                let mut reply = "hint".to_string();
                for (turn, share) in shares {
                    reply.push_str(&format!(" {turn} {share:.3}"));
                }
                Ok(reply)
            }),
            (other, _) => Err(format!(
                "unknown command \"{other}\": expected one of {COMMANDS}"
            )),
        };
        match reply {
            Ok(reply) => writeln!(output, "{reply}")?,
            Err(error) => writeln!(output, "error {}", error.replace('\n', " "))?,
        }
        output.flush()?;
    }
}
