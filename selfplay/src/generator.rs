//! The self-play generator: many games searched in lockstep, written as shards and records.
//!
//! Why it is built this way:
//! - **Lockstep.** A worker's games in flight sit in one [`SearchPool`]; every simulation step
//!   sends the leaves of all its trees to the evaluator in one call, so a network sees batches
//!   as large as the worker's share of the games in flight (and, on a GPU, several workers'
//!   calls gathered into one pass). Each game goes at its own pace ([`SearchPool::step`]): a
//!   game whose search ends plays its move and begins its next search in the next step,
//!   without waiting for the other trees' searches to end. A pool that ran every search to
//!   its end before any game moved lost width to every search that ends early: with a playout
//!   cap (`configs/dvonn.yaml`: half the searches 32 simulations, half 160) the cheap trees sat
//!   out four steps of five, and the solver's proven roots sat out the rest of their search.
//! - **A game depends only on (seed, game id, settings, evaluator).** Each game draws its start
//!   ([`Game::seeded_start`]), its search randomness and whether it may resign from its own
//!   seed, derived from the run seed and its id; which games happen to share a batch does not
//!   matter (each tree has its own random stream and the evaluator sees positions, not
//!   batches). Rerunning gives the same games, and a resumed run produces the same games a run
//!   without interruption would have.
//! - **Workers.** [`GeneratorConfig::workers`] threads each search their own lockstep group
//!   (the games in flight shared out between them) and take the next game id from one queue
//!   when a game ends; one writer (the calling thread) gathers the finished games into shards
//!   and records. All groups send their leaves to the same evaluator, which may serve several
//!   at once (a network's inference server with a replica per core, see
//!   `gipfzero_model::inference`). A game still depends only on its id: the evaluator must
//!   answer a position the same whoever shares its batch (the inference server pads its passes
//!   for that; the playout evaluators seed each position from its hash), so the games are the
//!   same whatever the number of workers, only the order in which they finish (and which
//!   shard holds which game) varies. Readers that need a fixed order sort by game id.
//! - **Crash safety by whole games.** A shard holds only whole, finished games. When enough
//!   positions have accumulated, their game records are appended to `games.jsonl` and synced
//!   first, then the shard is written atomically. So after a kill the directory holds complete
//!   shards, and every game in them has its record; records may run ahead (games whose shard
//!   was never written) and the last line may be cut. [`Generator::run`] on an existing
//!   directory therefore takes the games of the complete shards as done, rewrites the records
//!   file to exactly those games, and plays every other id of `0..games` again. Resuming
//!   with another seed or other search settings is refused (the records say which were used),
//!   as the ids would then name games of two different runs.
//!   (Every game has at least one searched position, since no start position of these games
//!   is decided by forced moves alone, so every finished game lands in some shard.)
//! - **What is sampled.** Every searched decision (action) is a sample; decisions with a
//!   single legal action (DVONN's forced placement and passes, a forced capture) are played
//!   without a search and give no sample, as their policy target teaches nothing.
//! - **Games that run too long** are stopped at a turn start after `max_turns` turns and
//!   scored by [`CapRule`]: a draw by default (the rules of these games know no adjudication,
//!   and their games end by themselves long before any sensible cap), or the higher
//!   [`Game::score`] wins.
//! - **Resignation** (AlphaZero): a player resigns when its root value stays below a threshold
//!   for k consecutive turns of its own (the value of each turn's first decision, when that
//!   decision is searched; a player resigns only before a turn, so that the record's turns
//!   reach every sample). In a configured fraction of games
//!   resignation is disabled and the games are played out; there the generator notes who would
//!   have resigned, and the share of those players who did not lose is the false-resignation
//!   rate, by which the threshold is tuned.
//! - **A league** ([`LeagueConfig`]): a share of the games is played against a fixed opponent
//!   (an [`Agent`] such as `rollout:200`) instead of the network itself. Self-play alone
//!   drifts: the network keeps beating its own earlier versions while getting weaker against
//!   other players (docs/RESULTS.md measured it for ZÈRTZ), because it only learns from
//!   positions it steers into itself. A league game records the network's decisions only;
//!   the opponent chooses whole turns outside the lockstep pool, and the network's tree
//!   follows its actions. Which games are league games, against whom and with which colour
//!   is drawn from the game's own seed, so resumed runs replay the same pairings.
use std::collections::BTreeSet;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use gipfzero_games::{Action, Game, Outcome, Player, SplitMix64, Status};
use gipfzero_mcts::{
    parse_agent, Agent, LeafBatch, InvalidSetting, EvalError, Evaluator, RootPolicy, Search, SearchConfig,
    SearchError, SearchPool, SearchResult,
};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use gipfzero_store::{is_temporary, write_atomically};

use crate::samples::Samples;
use crate::shard::{read_shard, ShardData, ShardError, ShardInfo, ShardWriter};

/// The records file in an output directory.
pub const RECORDS_FILE: &str = "games.jsonl";

/// How a game stopped at the turn cap is scored.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CapRule {
    /// A draw.
    #[default]
    Draw,
    /// The player with the higher [`Game::score`] wins; equal scores draw.
    Score,
}

/// When players resign.
#[derive(Clone, Debug, PartialEq)]
pub struct ResignConfig {
    /// A player resigns once its root value is below this…
    pub threshold: f32,
    /// …at the start of this many consecutive turns of its own (searched ones).
    pub consecutive: u32,
    /// Fraction of games in which nobody resigns, to measure false resignations.
    pub disabled_fraction: f32,
}

impl Default for ResignConfig {
    /// AlphaZero's style of setting: resign at an expected loss of 90 %, after a few moves in
    /// a row, with one game in ten played out.
    fn default() -> Self {
        ResignConfig {
            threshold: -0.9,
            consecutive: 3,
            disabled_fraction: 0.1,
        }
    }
}

/// A share of the games played against fixed opponents instead of the network itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeagueConfig {
    /// Fraction of the games, in [0, 1], that are league games.
    pub share: f32,
    /// The opponents' names as the records show them; a league game draws one of them
    /// uniformly. They are baseline specs (`random`, `greedy`, `rollout:200`) unless
    /// [`Generator::with_opponents`] builds the agents some other way.
    pub opponents: Vec<String>,
}

/// Builds league opponent `index` (of [`LeagueConfig::opponents`]) for one game, seeded.
pub type OpponentFactory<G> = dyn Fn(usize, u64) -> Result<Box<dyn Agent<G>>, BoxError> + Send + Sync;

/// Any error, kept whole (an [`OpponentFactory`] may fail for reasons of its own).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The default [`OpponentFactory`]: the names are baseline specs ([`parse_agent`]).
fn baseline_opponent<G: Game>(names: Vec<String>) -> impl Fn(usize, u64) -> Result<Box<dyn Agent<G>>, BoxError> + Send + Sync {
    move |index, seed| Ok(parse_agent::<G>(&names[index], seed)?)
}

/// Salt of a game's league draws, so that they leave the game's other random streams alone.
const LEAGUE_SALT: u64 = 0x1EA6_0E5A_17ED_D1CE;

/// Who the network plays in one league game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LeagueMatchup {
    /// Index into [`LeagueConfig::opponents`].
    pub opponent: usize,
    /// The opponent's colour.
    pub side: Player,
    /// The opponent agent's seed.
    pub seed: u64,
}

/// Everything a self-play run needs besides the start position and the evaluator.
///
/// It is also the schema of a training run's YAML `self_play` block, read and written by
/// serde: the block holds `games_per_iteration` ([`GeneratorConfig::games`]), `parallel_games`
/// ([`GeneratorConfig::games_in_flight`]), `max_turns`, `search` and `league`, and leaves out
/// what each generation gets from its run (`serde(skip)`: cap rule, resignation, shard size,
/// seed, labels). What the block leaves out comes from [`GeneratorConfig::training`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default = "GeneratorConfig::training")]
pub struct GeneratorConfig {
    /// Game ids `0..games` make up the run (in training: one generation).
    #[serde(rename = "games_per_iteration")]
    pub games: u64,
    /// Games played at the same time (the evaluator's batch is about this large).
    #[serde(rename = "parallel_games")]
    pub games_in_flight: usize,
    /// Turns after which a game is stopped and scored by `cap_rule`. (Training configs written
    /// before the key was renamed wrote it `max_actions`; it always counted turns.)
    #[serde(alias = "max_actions")]
    pub max_turns: u32,
    /// The settings of every search (one per decision).
    pub search: SearchConfig,
    /// `None`: every game is self-play.
    pub league: Option<LeagueConfig>,
    #[serde(skip)]
    pub cap_rule: CapRule,
    /// `None`: nobody resigns.
    #[serde(skip)]
    pub resign: Option<ResignConfig>,
    /// A shard is written once at least this many positions of finished games are waiting
    /// (shards hold whole games, so a shard may be larger by one game).
    #[serde(skip)]
    pub positions_per_shard: usize,
    /// The run seed; each game's seed is derived from it and the game id.
    #[serde(skip)]
    pub seed: u64,
    /// Threads searching games, each its own lockstep group of the games in flight (module
    /// docs); at least 1, at most `games_in_flight` are used. The games do not depend on it.
    #[serde(skip)]
    pub workers: usize,
    /// Who generates the data, for the shards' info (`uniform`, `checkpoint NAME`, …).
    #[serde(skip)]
    pub generator: String,
    /// The checkpoint playing both sides, if a network plays.
    #[serde(skip)]
    pub checkpoint: Option<String>,
}

impl GeneratorConfig {
    /// A training run's generations by default: 32 games, all at a time, stopped after 400
    /// turns and drawn there, nobody resigning, Gumbel search with 24 simulations
    /// ([`SearchConfig::self_play`]), no league, shards of 4096 positions. The fields a YAML
    /// block leaves out (`serde(skip)` ones always) come from here, so a training run's
    /// generations differ only by their seed.
    pub fn training() -> Self {
        GeneratorConfig {
            games: 32,
            games_in_flight: 32,
            max_turns: 400,
            search: SearchConfig::self_play(24),
            cap_rule: CapRule::Draw,
            resign: None,
            positions_per_shard: 4096,
            generator: "gipfzero train".into(),
            ..GeneratorConfig::default()
        }
    }
}

impl Default for GeneratorConfig {
    fn default() -> Self {
        GeneratorConfig {
            search: SearchConfig::default(),
            games_in_flight: 64,
            games: 100,
            max_turns: 1000,
            cap_rule: CapRule::Draw,
            resign: None,
            positions_per_shard: 4096,
            seed: 0,
            workers: 1,
            generator: "selfplay".into(),
            checkpoint: None,
            league: None,
        }
    }
}

impl GeneratorConfig {
    fn validate(&self) -> Result<(), SelfPlayError> {
        self.search.validate()?;
        let bad = |field: &'static str, reason: &str| {
            Err(SelfPlayError::Config(InvalidSetting {
                field,
                reason: reason.into(),
            }))
        };
        if self.games_in_flight == 0 {
            return bad("games_in_flight", "must be at least 1");
        }
        if self.workers == 0 {
            return bad("workers", "must be at least 1");
        }
        if self.positions_per_shard == 0 {
            return bad("positions_per_shard", "must be at least 1");
        }
        if self.max_turns == 0 {
            // A game capped before its first turn has no position: nothing to write, and no
            // shard would ever hold it (resuming relies on every game landing in one).
            return bad("max_turns", "must be at least 1");
        }
        if let Some(resign) = &self.resign {
            if !(-1.0..=1.0).contains(&resign.threshold) {
                return bad("resign.threshold", "must lie in [-1, 1]");
            }
            if resign.consecutive == 0 {
                return bad("resign.consecutive", "must be at least 1");
            }
            if !(0.0..=1.0).contains(&resign.disabled_fraction) {
                return bad("resign.disabled_fraction", "must lie in [0, 1]");
            }
        }
        if let Some(league) = &self.league {
            if !(0.0..=1.0).contains(&league.share) {
                return bad("league.share", "must lie in [0, 1]");
            }
            if league.opponents.is_empty() {
                return bad("league.opponents", "name at least one opponent");
            }
        }
        Ok(())
    }

    /// Whom game `id` is played against: `None` for a self-play game.
    pub fn matchup(&self, id: u64) -> Option<LeagueMatchup> {
        let league = self.league.as_ref()?;
        let mut rng = SplitMix64::new(self.game_seed(id) ^ LEAGUE_SALT);
        if rng.unit_f64() >= league.share as f64 {
            return None;
        }
        let opponent = (rng.next_u64() % league.opponents.len() as u64) as usize;
        let side = if rng.next_u64() & 1 == 0 { Player::One } else { Player::Two };
        Some(LeagueMatchup { opponent, side, seed: rng.next_u64() })
    }

    /// The players of game `id` as its record names them, player 1 first.
    pub fn players(&self, id: u64) -> [String; 2] {
        let network = self.checkpoint.clone().unwrap_or_else(|| self.generator.clone());
        let mut players = [network.clone(), network];
        if let (Some(pairing), Some(league)) = (self.matchup(id), &self.league) {
            players[pairing.side.index()] = league.opponents[pairing.opponent].clone();
        }
        players
    }

    /// The seed of game `id`: a SplitMix64 step away from the run seed, so neighbouring ids
    /// get unrelated streams.
    pub fn game_seed(&self, id: u64) -> u64 {
        SplitMix64::new(self.seed ^ id.wrapping_mul(0x9e37_79b9_7f4a_7c15)).next_u64()
    }
}

/// The lines of a records file that a newline ends (with it): a cut last line is left out.
fn complete_lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split_inclusive(|&b| b == b'\n').filter(|line| line.ends_with(b"\n"))
}

/// The network's results in a run's league games against one opponent (also the training
/// metrics' record of them).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeagueTally {
    pub opponent: String,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

/// The network's results against each of `config`'s league opponents (in their order) over
/// the records in `directory` (complete lines only, as [`Generator::run`] leaves them).
pub fn league_tally(directory: &Path, config: &GeneratorConfig) -> Result<Vec<LeagueTally>, SelfPlayError> {
    let Some(league) = &config.league else { return Ok(Vec::new()) };
    let mut tally: Vec<LeagueTally> = league
        .opponents
        .iter()
        .map(|name| LeagueTally { opponent: name.clone(), ..LeagueTally::default() })
        .collect();
    let path = directory.join(RECORDS_FILE);
    let text = fs::read(&path).map_err(io_error(&path))?;
    for (number, line) in complete_lines(&text).enumerate() {
        let record: GameRecord = serde_json::from_slice(line).map_err(|e| SelfPlayError::Io {
            path: path.clone(),
            source: io::Error::new(io::ErrorKind::InvalidData, format!("line {}: {e}", number + 1)),
        })?;
        let Some(pairing) = config.matchup(record.game_id) else { continue };
        // `outcome` is player 1's; the network plays the other colour than the opponent.
        let entry = &mut tally[pairing.opponent];
        let network_outcome = if pairing.side == Player::One { -record.outcome } else { record.outcome };
        match network_outcome {
            1 => entry.wins += 1,
            0 => entry.draws += 1,
            _ => entry.losses += 1,
        }
    }
    Ok(tally)
}

/// The search settings a record keeps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchSummary {
    pub simulations: u32,
    /// `puct`, `gumbel` or `ucb1`.
    pub root_policy: String,
    /// Playout-cap randomisation: the cheap budget and the chance of a full search.
    pub cheap_simulations: Option<u32>,
    pub full_probability: Option<f32>,
}

impl SearchSummary {
    pub fn of(config: &SearchConfig) -> SearchSummary {
        SearchSummary {
            simulations: config.simulations,
            root_policy: match config.root_policy {
                RootPolicy::Puct => "puct",
                RootPolicy::Gumbel => "gumbel",
                RootPolicy::Ucb1 => "ucb1",
            }
            .into(),
            cheap_simulations: config.playout_cap.as_ref().map(|c| c.cheap_simulations),
            full_probability: config.playout_cap.as_ref().map(|c| c.full_probability),
        }
    }
}

/// Why a game ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Termination {
    /// The rules ended it.
    Rules,
    /// A player resigned.
    Resignation,
    /// It reached the turn cap.
    TurnCap,
}

/// One line of `games.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    pub game_id: u64,
    pub game: String,
    pub variant: String,
    /// The set-up the game started from ([`Game::setup_text`]; LYNGK), else `null`.
    pub setup: Option<String>,
    /// The turns in record notation, as `gipfzero rules replay` reads them.
    pub turns: Vec<String>,
    /// The result in words: the game's own result text, or who resigned, or the cap.
    pub result: String,
    /// [`Game::score`] of the final position, player 1 first.
    pub score: [u32; 2],
    /// From player 1's view: 1 win, 0 draw, -1 loss.
    pub outcome: i8,
    pub termination: Termination,
    /// The players, player 1 first.
    pub players: [String; 2],
    pub checkpoint: Option<String>,
    pub search: SearchSummary,
    pub turn_count: u32,
    /// Searched decisions, i.e. positions in the shards.
    pub positions: u32,
    /// True when resignation was disabled in this game.
    pub resignation_disabled: bool,
    /// In a game without resignation: the first player who would have resigned (1 or 2).
    pub would_have_resigned: Option<u8>,
    pub seed: u64,
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunSummary {
    /// Games found complete in the directory when the run started.
    pub games_resumed: u64,
    /// Games played by this run.
    pub games_played: u64,
    /// Positions written by this run.
    pub positions: u64,
    pub shards_written: usize,
    pub resignations: u64,
    /// Games of this run with resignation disabled.
    pub resignation_disabled_games: u64,
    /// Of those, games where some player would have resigned…
    pub would_have_resigned: u64,
    /// …and where that player then did not lose.
    pub false_resignations: u64,
    /// Evaluator calls and positions evaluated (their ratio is the mean batch size).
    pub evaluator_calls: u64,
    pub evaluated_positions: u64,
    pub largest_batch: u64,
    pub elapsed: Duration,
}

impl RunSummary {
    /// Counts a game this run finished.
    fn count(&mut self, record: &GameRecord) {
        self.games_played += 1;
        self.resignations += (record.termination == Termination::Resignation) as u64;
        if record.resignation_disabled {
            self.resignation_disabled_games += 1;
            if let Some(player) = record.would_have_resigned {
                // `outcome` is player 1's; the would-be resigner did not lose.
                let own = if player == 1 { record.outcome } else { -record.outcome };
                self.would_have_resigned += 1;
                self.false_resignations += (own >= 0) as u64;
            }
        }
    }

    /// Share of the would-be resigners who did not lose; `None` before any such game.
    pub fn false_resignation_rate(&self) -> Option<f64> {
        (self.would_have_resigned > 0)
            .then(|| self.false_resignations as f64 / self.would_have_resigned as f64)
    }

    pub fn mean_batch(&self) -> f64 {
        self.evaluated_positions as f64 / self.evaluator_calls.max(1) as f64
    }

    pub fn positions_per_second(&self) -> f64 {
        self.positions as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// A snapshot for a progress display, sent after every finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgressReport {
    /// Finished games, those of earlier runs in this directory included.
    pub games_done: u64,
    pub games_total: u64,
    /// Positions of games finished by this run.
    pub positions: u64,
    /// Games finished by this run and their total number of turns.
    pub games_this_run: u64,
    pub turns_this_run: u64,
    pub elapsed: Duration,
}

impl ProgressReport {
    pub fn positions_per_second(&self) -> f64 {
        self.positions as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// Mean turns per game finished by this run.
    pub fn average_game_length(&self) -> f64 {
        self.turns_this_run as f64 / self.games_this_run.max(1) as f64
    }

    /// Time left at this run's pace of games; `None` before the first game.
    pub fn eta(&self) -> Option<Duration> {
        (self.games_this_run > 0).then(|| {
            let left = self.games_total.saturating_sub(self.games_done) as f64;
            self.elapsed.mul_f64(left / self.games_this_run as f64)
        })
    }
}

/// Receives progress; `()` ignores it (quiet mode).
pub trait Progress {
    fn update(&mut self, report: &ProgressReport);
}

impl Progress for () {
    fn update(&mut self, _report: &ProgressReport) {}
}

impl<F: FnMut(&ProgressReport)> Progress for F {
    fn update(&mut self, report: &ProgressReport) {
        self(report)
    }
}

/// Why a run failed.
#[derive(Debug, Error)]
pub enum SelfPlayError {
    #[error(transparent)]
    Config(#[from] InvalidSetting),
    #[error(transparent)]
    Search(#[from] SearchError),
    #[error(transparent)]
    Shard(#[from] ShardError),
    #[error("{path}")]
    Io { path: PathBuf, source: io::Error },
    #[error("cannot resume in {path}: {message}")]
    Resume { path: PathBuf, message: String },
    #[error("game {game_id}: the actions played form no legal turn (a rules engine bug)")]
    UnknownTurn { game_id: u64 },
    #[error("league opponent {name}")]
    UnknownOpponent {
        name: String,
        #[source]
        source: BoxError,
    },
    #[error("game {game_id}: league opponent {name}")]
    Opponent {
        game_id: u64,
        name: String,
        #[source]
        source: BoxError,
    },
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> SelfPlayError + '_ {
    move |source| SelfPlayError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Counts the evaluator's calls and batch sizes for the summary.
struct Counting<'a, E> {
    inner: &'a E,
    calls: AtomicU64,
    positions: AtomicU64,
    largest: AtomicU64,
}

impl<G: Game, E: Evaluator<G>> Evaluator<G> for Counting<'_, E> {
    fn evaluate(&self, batch: &LeafBatch<G>, values: &mut [f32], policy: &mut [f32]) -> Result<(), EvalError> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.positions.fetch_add(batch.len() as u64, Ordering::Relaxed);
        self.largest.fetch_max(batch.len() as u64, Ordering::Relaxed);
        self.inner.evaluate(batch, values, policy)
    }
}

/// How a game ended, before it is written.
#[derive(Copy, Clone, Debug)]
enum Ending {
    Rules(Outcome),
    Resigned(Player),
    Capped,
}

/// A game in flight (its search sits at the same index of the pool).
struct InFlight<G: Game> {
    id: u64,
    seed: u64,
    start: G,
    samples: Samples,
    movers: Vec<Player>,
    turns: Vec<String>,
    turn_start: G,
    turn_actions: Vec<Action>,
    turn_count: u32,
    resignation_disabled: bool,
    low_streak: [u32; 2],
    would_have_resigned: Option<Player>,
    /// In a league game: the opponent's colour and agent.
    opponent: Option<(Player, Box<dyn Agent<G>>)>,
}

/// A finished game waiting for its shard.
struct Finished {
    record: GameRecord,
    samples: Samples,
}

/// A self-play run over one output directory.
pub struct Generator<G: Game> {
    start: G,
    config: GeneratorConfig,
    directory: PathBuf,
    info: ShardInfo,
    opponents: Box<OpponentFactory<G>>,
}

/// One worker's reused buffers.
struct Scratch<G: Game> {
    legal: Vec<Action>,
    turns: Vec<G::Turn>,
    observation: Vec<f32>,
}

/// What a worker sends the writer.
enum Report {
    Finished(Finished),
    Failed(SelfPlayError),
}

impl<G: Game> Generator<G> {
    /// A run that starts its games from `start.seeded_start(game seed)` and writes into
    /// `directory` (created if missing).
    pub fn new(start: G, config: GeneratorConfig, directory: impl Into<PathBuf>) -> Result<Self, SelfPlayError> {
        config.validate()?;
        let info = ShardInfo::for_spec(start.spec(), config.generator.clone());
        let config_opponents = config.league.as_ref().map(|l| l.opponents.clone()).unwrap_or_default();
        Ok(Generator {
            start,
            config,
            directory: directory.into(),
            info,
            opponents: Box::new(baseline_opponent::<G>(config_opponents)),
        })
    }

    /// Builds the league's opponents with `factory` instead of reading their names as
    /// baseline specs (for opponents such as other networks).
    pub fn with_opponents(mut self, factory: Box<OpponentFactory<G>>) -> Self {
        self.opponents = factory;
        self
    }

    pub fn records_path(&self) -> PathBuf {
        self.directory.join(RECORDS_FILE)
    }

    /// Plays every game of `0..games` not already complete in the directory (see the module
    /// docs for the resume rule) on the configured workers, reporting to `progress` after each
    /// game. On an error every worker stops at its next step; the shards written stay.
    pub fn run<E: Evaluator<G>>(&mut self, evaluator: &E, progress: &mut dyn Progress) -> Result<RunSummary, SelfPlayError> {
        let began = Instant::now();
        // Every opponent must be buildable before any game is played.
        if let Some(league) = &self.config.league {
            for (index, name) in league.opponents.iter().enumerate() {
                (self.opponents)(index, 0).map_err(|source| SelfPlayError::UnknownOpponent {
                    name: name.clone(),
                    source,
                })?;
            }
        }
        fs::create_dir_all(&self.directory).map_err(io_error(&self.directory))?;
        let (done, next_shard) = self.recover()?;
        let mut summary = RunSummary {
            games_resumed: done.len() as u64,
            ..RunSummary::default()
        };
        let mut writer = ShardWriter::new(&self.directory, next_shard);
        let todo = Mutex::new((0..self.config.games).filter(|id| !done.contains(id)));
        let counting = Counting {
            inner: evaluator,
            calls: AtomicU64::new(0),
            positions: AtomicU64::new(0),
            largest: AtomicU64::new(0),
        };
        let mut report = ProgressReport {
            games_done: done.len() as u64,
            games_total: self.config.games.max(done.len() as u64),
            positions: 0,
            games_this_run: 0,
            turns_this_run: 0,
            elapsed: Duration::ZERO,
        };
        let workers = self.config.workers.clamp(1, self.config.games_in_flight);
        let stop = AtomicBool::new(false);
        let (sender, receiver) = mpsc::channel();
        let this = &*self;
        let mut failure = None;
        thread::scope(|scope| {
            for worker in 0..workers {
                // The games in flight shared out, the first workers taking one more.
                let slots = this.config.games_in_flight / workers + (worker < this.config.games_in_flight % workers) as usize;
                let (sender, todo, stop, counting) = (sender.clone(), &todo, &stop, &counting);
                thread::Builder::new()
                    .name(format!("selfplay-{worker}"))
                    .spawn_scoped(scope, move || {
                        if let Err(error) = this.work(slots, todo, stop, counting, &sender) {
                            let _ = sender.send(Report::Failed(error));
                        }
                    })
                    .expect("a self-play worker thread starts");
            }
            drop(sender);
            let mut waiting: Vec<Finished> = Vec::new();
            let mut waiting_positions = 0;
            let mut flush = |waiting: &mut Vec<Finished>, summary: &mut RunSummary| -> Result<(), SelfPlayError> {
                summary.positions += this.flush(waiting, &mut writer)? as u64;
                summary.shards_written += 1;
                Ok(())
            };
            // Every worker ends by dropping its sender, after an error too, so this loop ends.
            for message in receiver {
                let finished = match message {
                    Report::Finished(finished) if failure.is_none() => finished,
                    Report::Finished(_) => continue,
                    Report::Failed(error) => {
                        stop.store(true, Ordering::Relaxed);
                        failure.get_or_insert(error);
                        continue;
                    }
                };
                summary.count(&finished.record);
                waiting_positions += finished.samples.len();
                report.games_done += 1;
                report.games_this_run += 1;
                report.turns_this_run += finished.record.turn_count as u64;
                report.positions += finished.samples.len() as u64;
                report.elapsed = began.elapsed();
                waiting.push(finished);
                progress.update(&report);
                if waiting_positions >= this.config.positions_per_shard {
                    waiting_positions = 0;
                    if let Err(error) = flush(&mut waiting, &mut summary) {
                        stop.store(true, Ordering::Relaxed);
                        failure = Some(error);
                    }
                }
            }
            if failure.is_none() && !waiting.is_empty() {
                if let Err(error) = flush(&mut waiting, &mut summary) {
                    failure = Some(error);
                }
            }
        });
        if let Some(error) = failure {
            return Err(error);
        }
        summary.evaluator_calls = counting.calls.load(Ordering::Relaxed);
        summary.evaluated_positions = counting.positions.load(Ordering::Relaxed);
        summary.largest_batch = counting.largest.load(Ordering::Relaxed);
        summary.elapsed = began.elapsed();
        Ok(summary)
    }

    /// One worker: keeps `slots` games in flight in its own lockstep pool, taking ids from
    /// `todo`, and sends every finished game to the writer, until no game is left or `stop`.
    fn work<E: Evaluator<G>>(
        &self,
        slots: usize,
        todo: &Mutex<impl Iterator<Item = u64>>,
        stop: &AtomicBool,
        evaluator: &E,
        writer: &mpsc::Sender<Report>,
    ) -> Result<(), SelfPlayError> {
        let mut scratch = Scratch {
            legal: Vec::new(),
            turns: Vec::new(),
            observation: vec![0.0; self.start.spec().observation_len()],
        };
        let mut pool = SearchPool::new();
        let mut games: Vec<InFlight<G>> = Vec::new();
        let mut finished_now: Vec<(usize, Ending)> = Vec::new();
        let send = |finished: Finished| writer.send(Report::Finished(finished)).is_ok();
        while !stop.load(Ordering::Relaxed) {
            // Fill the free slots; a game that ends before its first search (none of these
            // games do) is finished at once.
            while games.len() < slots {
                let next = todo.lock().map(|mut todo| todo.next()).unwrap_or(None);
                let Some(id) = next else { break };
                let (mut game, mut search) = self.start_game(id)?;
                match self.settle(&mut scratch, &mut game, &mut search)? {
                    None => {
                        search.begin()?;
                        games.push(game);
                        pool.push(search);
                    }
                    Some(ending) => {
                        if !send(self.finish(game, search.position(), ending)) {
                            return Ok(());
                        }
                    }
                }
            }
            if games.is_empty() {
                break;
            }
            // One step of every search; the games whose search ended move on at once (or
            // end), the others keep searching.
            pool.step(evaluator)?;
            finished_now.clear();
            for (i, search) in pool.searches_mut().iter_mut().enumerate() {
                if !search.is_done() {
                    continue;
                }
                let result = search.finish()?;
                match self.step(&mut scratch, &mut games[i], search, result)? {
                    Some(ending) => finished_now.push((i, ending)),
                    None => search.begin()?,
                }
            }
            // Highest index first, so that swap_remove leaves the others' indices alone.
            for &(i, ending) in finished_now.iter().rev() {
                let game = games.swap_remove(i);
                let search = pool.searches_mut().swap_remove(i);
                if !send(self.finish(game, search.position(), ending)) {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// Brings the directory back to whole games: removes temporary files, reads the complete
    /// shards, and rewrites the records to the games they hold. Returns the done game ids and
    /// the next shard number.
    fn recover(&self) -> Result<(BTreeSet<u64>, usize), SelfPlayError> {
        let resume_error = |message: String| SelfPlayError::Resume {
            path: self.directory.clone(),
            message,
        };
        let mut done = BTreeSet::new();
        let mut next_shard = 0;
        let entries = fs::read_dir(&self.directory).map_err(io_error(&self.directory))?;
        let mut shards = Vec::new();
        for entry in entries {
            let entry = entry.map_err(io_error(&self.directory))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if is_temporary(&name) {
                fs::remove_file(entry.path()).map_err(io_error(&entry.path()))?;
            } else if let Some(index) = ShardWriter::parse_shard_name(&name) {
                shards.push((index, entry.path()));
            }
        }
        shards.sort();
        for (index, path) in &shards {
            let data = read_shard(path)?;
            let mismatch = |what: &str, found: &dyn std::fmt::Debug, expected: &dyn std::fmt::Debug| {
                resume_error(format!("{} holds {what} {found:?}, this run plays {expected:?}", path.display()))
            };
            let (found, expected) = (&data.info, &self.info);
            if (&found.game, &found.variant) != (&expected.game, &expected.variant) {
                return Err(mismatch("game", &(&found.game, &found.variant), &(&expected.game, &expected.variant)));
            }
            if found.observation_len() != expected.observation_len() || found.action_count != expected.action_count {
                return Err(mismatch("shapes", found, expected));
            }
            done.extend(data.samples.game_id.iter().map(|&id| id as u64));
            next_shard = index + 1;
        }
        let records_path = self.records_path();
        let text = match fs::read(&records_path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(io_error(&records_path)(e)),
        };
        let mut kept = Vec::new();
        let mut seen = BTreeSet::new();
        for line in complete_lines(&text) {
            let Ok(record) = serde_json::from_slice::<GameRecord>(line) else {
                continue;
            };
            if done.contains(&record.game_id) && seen.insert(record.game_id) {
                // Ids mean the same games only under the same seed and search settings.
                let search = SearchSummary::of(&self.config.search);
                if record.seed != self.config.game_seed(record.game_id) || record.search != search {
                    return Err(resume_error(format!(
                        "game {} was played with another seed or other search settings \
                         (seed {}, {:?}); resume with the original ones or use a new directory",
                        record.game_id, record.seed, record.search
                    )));
                }
                let players = self.config.players(record.game_id);
                if record.players != players {
                    return Err(resume_error(format!(
                        "game {} was played by {:?}, this run's league pairs {:?}; resume with \
                         the original league or use a new directory",
                        record.game_id, record.players, players
                    )));
                }
                kept.extend_from_slice(line);
            }
        }
        if let Some(missing) = done.difference(&seen).next() {
            return Err(resume_error(format!(
                "game {missing} is in a shard but has no record in {RECORDS_FILE}"
            )));
        }
        if kept != text {
            write_atomically(&records_path, &kept).map_err(io_error(&records_path))?;
        }
        Ok((done, next_shard))
    }

    /// A new game with its search.
    fn start_game(&self, id: u64) -> Result<(InFlight<G>, Search<G>), SelfPlayError> {
        let seed = self.config.game_seed(id);
        let mut rng = SplitMix64::new(seed);
        let start = self.start.seeded_start(rng.next_u64());
        let search = Search::new(start.clone(), self.config.search.clone(), rng.next_u64())?;
        let resignation_disabled = self
            .config
            .resign
            .as_ref()
            .is_some_and(|r| rng.unit_f64() < r.disabled_fraction as f64);
        let opponent = match (self.config.matchup(id), &self.config.league) {
            (Some(pairing), Some(league)) => {
                let agent = (self.opponents)(pairing.opponent, pairing.seed).map_err(|source| SelfPlayError::Opponent {
                    game_id: id,
                    name: league.opponents[pairing.opponent].clone(),
                    source,
                })?;
                Some((pairing.side, agent))
            }
            _ => None,
        };
        let game = InFlight {
            id,
            seed,
            samples: Samples::with_shape(self.info.observation_len(), self.info.action_count),
            movers: Vec::new(),
            turns: Vec::new(),
            turn_start: start.clone(),
            turn_actions: Vec::new(),
            turn_count: 0,
            resignation_disabled,
            low_streak: [0; 2],
            would_have_resigned: None,
            opponent,
            start,
        };
        Ok((game, search))
    }

    /// Takes a search result: records the sample, applies resignation, plays the action and
    /// any forced actions after it. Returns the ending if the game is over.
    fn step(&self, scratch: &mut Scratch<G>, game: &mut InFlight<G>, search: &mut Search<G>, result: SearchResult) -> Result<Option<Ending>, SelfPlayError> {
        let position = search.position();
        let turn_start = position.is_turn_start();
        let samples = &mut game.samples;
        position.encode(&mut scratch.observation);
        samples.observations.extend_from_slice(&scratch.observation);
        let a = self.info.action_count;
        let base = samples.policy.len();
        samples.policy.resize(base + a, 0.0);
        samples.legal_mask.resize(base + a, 0);
        for (&action, &p) in result.actions.iter().zip(&result.policy_target) {
            samples.policy[base + action.index()] = p;
            samples.legal_mask[base + action.index()] = 1;
        }
        samples.outcome.push(0.0); // filled in when the game ends
        samples.root_value.push(result.root_value);
        samples.game_id.push(game.id as i64);
        samples.move_number.push(search.move_number() as i32);
        samples.full_search.push(result.full_search as u8);
        game.movers.push(result.to_move);

        // A player resigns only before a turn, so that the record's turns reach every sample.
        if let (Some(resign), true) = (&self.config.resign, turn_start) {
            let streak = &mut game.low_streak[result.to_move.index()];
            *streak = if result.root_value < resign.threshold { *streak + 1 } else { 0 };
            if *streak >= resign.consecutive {
                if !game.resignation_disabled {
                    return Ok(Some(Ending::Resigned(result.to_move)));
                }
                game.would_have_resigned.get_or_insert(result.to_move);
            }
        }
        self.play(scratch, game, search, result.action)?;
        self.settle(scratch, game, search)
    }

    /// Plays `action`, writing the turn down when it completes one.
    fn play(&self, scratch: &mut Scratch<G>, game: &mut InFlight<G>, search: &mut Search<G>, action: Action) -> Result<(), SelfPlayError> {
        search.advance(action)?;
        game.turn_actions.push(action);
        let position = search.position();
        if position.is_turn_start() || position.status().is_over() {
            game.turn_start.legal_turns(&mut scratch.turns);
            let turn = scratch
                .turns
                .iter()
                .find(|turn| game.turn_start.turn_actions(turn) == game.turn_actions)
                .ok_or(SelfPlayError::UnknownTurn { game_id: game.id })?;
            game.turns.push(game.turn_start.format_turn(turn));
            game.turn_count += 1;
            game.turn_start = position.clone();
            game.turn_actions.clear();
        }
        Ok(())
    }

    /// Plays forced actions and the league opponent's turns until the game needs a search,
    /// and says whether it has ended.
    fn settle(&self, scratch: &mut Scratch<G>, game: &mut InFlight<G>, search: &mut Search<G>) -> Result<Option<Ending>, SelfPlayError> {
        loop {
            let position = search.position();
            if let Status::Over(outcome) = position.status() {
                return Ok(Some(Ending::Rules(outcome)));
            }
            if position.is_turn_start() && game.turn_count >= self.config.max_turns {
                return Ok(Some(Ending::Capped));
            }
            if let Some((side, agent)) = &mut game.opponent {
                if position.is_turn_start() && position.to_move() == *side {
                    let actions = match agent.choose_turn(position) {
                        Ok(turn) => position.turn_actions(&turn),
                        Err(e) => {
                            return Err(SelfPlayError::Opponent {
                                game_id: game.id,
                                name: agent.name(),
                                source: Box::new(e),
                            })
                        }
                    };
                    for action in actions {
                        self.play(scratch, game, search, action)?;
                    }
                    continue;
                }
            }
            position.legal_actions(&mut scratch.legal);
            if scratch.legal.len() != 1 {
                return Ok(None);
            }
            let forced = scratch.legal[0];
            self.play(scratch, game, search, forced)?;
        }
    }

    /// Fills in the outcomes and writes the record of a finished game.
    fn finish(&self, mut game: InFlight<G>, last: &G, ending: Ending) -> Finished {
        let (outcome, termination, result) = match ending {
            Ending::Rules(outcome) => (outcome, Termination::Rules, last.result_text()),
            Ending::Resigned(player) => {
                (Outcome::Win(player.other()), Termination::Resignation, format!("{player} resigns"))
            }
            Ending::Capped => {
                let outcome = match self.config.cap_rule {
                    CapRule::Draw => Outcome::Draw,
                    CapRule::Score => {
                        let [one, two] = last.score();
                        match one.cmp(&two) {
                            std::cmp::Ordering::Greater => Outcome::Win(Player::One),
                            std::cmp::Ordering::Less => Outcome::Win(Player::Two),
                            std::cmp::Ordering::Equal => Outcome::Draw,
                        }
                    }
                };
                let verdict = match outcome {
                    Outcome::Win(player) => format!("{player} wins on score"),
                    Outcome::Draw => "draw".into(),
                };
                (outcome, Termination::TurnCap, format!("stopped after {} turns: {verdict}", game.turn_count))
            }
        };
        for (value, &mover) in game.samples.outcome.iter_mut().zip(&game.movers) {
            *value = outcome.value_for(mover);
        }
        let spec = self.start.spec();
        let record = GameRecord {
            game_id: game.id,
            game: spec.game.into(),
            variant: spec.variant.into(),
            setup: game.start.setup_text(),
            turns: std::mem::take(&mut game.turns),
            result,
            score: last.score(),
            outcome: outcome.value_for(Player::One) as i8,
            termination,
            players: self.config.players(game.id),
            checkpoint: self.config.checkpoint.clone(),
            search: SearchSummary::of(&self.config.search),
            turn_count: game.turn_count,
            positions: game.samples.len() as u32,
            resignation_disabled: game.resignation_disabled,
            would_have_resigned: game.would_have_resigned.map(|p| p.index() as u8 + 1),
            seed: game.seed,
        };
        Finished {
            record,
            samples: game.samples,
        }
    }

    /// Appends the waiting games' records (synced), then writes their shard. Returns the
    /// positions written.
    fn flush(&self, waiting: &mut Vec<Finished>, writer: &mut ShardWriter) -> Result<usize, SelfPlayError> {
        let path = self.records_path();
        let mut lines = Vec::new();
        let mut shard = ShardData::new(self.info.clone());
        for finished in waiting.drain(..) {
            serde_json::to_writer(&mut lines, &finished.record).expect("a game record always serialises");
            lines.push(b'\n');
            shard.samples.extend_from(&finished.samples);
        }
        let mut file = OpenOptions::new().create(true).append(true).open(&path).map_err(io_error(&path))?;
        file.write_all(&lines).and_then(|()| file.sync_all()).map_err(io_error(&path))?;
        // A new records file is durable only once its directory entry is.
        File::open(&self.directory).and_then(|d| d.sync_all()).map_err(io_error(&self.directory))?;
        writer.write(&shard)?;
        Ok(shard.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_figures_come_from_this_runs_games() {
        // 10 games were done before; this run finished 5 of its games (200 turns, 900
        // positions) in 30 s, so the 25 left take 150 s at that pace.
        let report = ProgressReport {
            games_done: 15,
            games_total: 40,
            positions: 900,
            games_this_run: 5,
            turns_this_run: 200,
            elapsed: Duration::from_secs(30),
        };
        assert_eq!(report.positions_per_second(), 30.0);
        assert_eq!(report.average_game_length(), 40.0);
        assert_eq!(report.eta(), Some(Duration::from_secs(150)));
        assert_eq!(ProgressReport { games_this_run: 0, ..report }.eta(), None);
    }

    #[test]
    fn settings_the_generator_cannot_run_are_refused() {
        let bad = [
            GeneratorConfig { games_in_flight: 0, ..GeneratorConfig::default() },
            GeneratorConfig { positions_per_shard: 0, ..GeneratorConfig::default() },
            GeneratorConfig { max_turns: 0, ..GeneratorConfig::default() },
            GeneratorConfig { resign: Some(ResignConfig { threshold: -1.5, ..ResignConfig::default() }), ..GeneratorConfig::default() },
            GeneratorConfig { resign: Some(ResignConfig { consecutive: 0, ..ResignConfig::default() }), ..GeneratorConfig::default() },
            GeneratorConfig { resign: Some(ResignConfig { disabled_fraction: 1.5, ..ResignConfig::default() }), ..GeneratorConfig::default() },
            GeneratorConfig { search: SearchConfig { simulations: 0, ..SearchConfig::default() }, ..GeneratorConfig::default() },
            GeneratorConfig { league: Some(LeagueConfig { share: 1.5, opponents: vec!["random".into()] }), ..GeneratorConfig::default() },
            GeneratorConfig { league: Some(LeagueConfig { share: 0.5, opponents: vec![] }), ..GeneratorConfig::default() },
        ];
        for config in bad {
            assert!(matches!(config.validate(), Err(SelfPlayError::Config(_))), "{config:?}");
        }
        assert!(GeneratorConfig { resign: Some(ResignConfig::default()), ..GeneratorConfig::default() }.validate().is_ok());
    }

    #[test]
    fn game_seeds_differ_between_games_and_runs() {
        let config = GeneratorConfig::default();
        let seeds: BTreeSet<u64> = (0..1000).map(|id| config.game_seed(id)).collect();
        assert_eq!(seeds.len(), 1000);
        assert_ne!(config.game_seed(3), GeneratorConfig { seed: 1, ..GeneratorConfig::default() }.game_seed(3));
    }
}
