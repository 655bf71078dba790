//! The run configuration: one YAML file describes a whole training run.
//!
//! Why it looks like this:
//! - **Every key optional, every default written down.** A config names only what differs
//!   from [`RunConfig::default`] (the embedded `configs/default.yaml` writes every one of them out;
//!   the file and the Rust defaults are tested to agree), and the fully resolved config is
//!   written back into the run directory ([`RunConfig::to_yaml`]), so a run records exactly
//!   what it ran with even after the defaults change.
//! - **Mistakes are errors with a place.** Unknown keys (`#[serde(deny_unknown_fields)]`
//!   everywhere), wrong types and impossible values all fail with `file:line:column: message`.
//!   serde-saphyr locates the first two itself. Range checks need the whole value (a warm-up
//!   longer than the schedule, a reuse cap of zero), so they run after parsing, on plain
//!   structs, and name the offending key by its path (`training.lr.warmup_steps`); the path is
//!   then looked up in a second, location-only parse of the same text ([`Locator`]). A value
//!   filled in by default has no place of its own and is reported at its nearest written
//!   ancestor. One limit: inside the tagged blocks (`training.optimizer` by `kind`,
//!   `training.lr` by `schedule`) serde buffers the mapping before choosing the variant, so
//!   a wrong type, unknown or missing key there is reported at the block's key, not the line
//!   itself (the tag's own value and range checks are located exactly).
//! - **One schema per idea.** The `search` blocks are the search crate's own [`SearchConfig`]
//!   and the `self_play` block the self-play crate's own [`GeneratorConfig`] (their `serde`
//!   derives), so the search's own validation names the YAML key directly and no setting
//!   is copied from a mirror.
//! - **A run resumes with the meaning it started with.** A key added later takes its default
//!   when left out, and a default can change; a run directory's saved config, written by an
//!   older build, must not silently change meaning when a newer one resumes it. The resolved
//!   config therefore carries `config_version` ([`CONFIG_VERSION`] when written by this
//!   build). A config of an older format is upgraded to what its keys meant then
//!   (`RunConfig::upgrade`); where that is ambiguous it is an error that says what to write.
//!   A user's config without the key is of the current format; a run directory's saved config
//!   without it ([`RunConfig::load_run`]) was written before versions existed: format 1.
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use gipfzero_mcts::{RootPolicy, SearchConfig};
use gipfzero_selfplay::GeneratorConfig;
use gipfzero_model::{DeviceChoice, NetConfig, Precision, ThreadSettings};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_saphyr::Spanned;
use thiserror::Error;

use crate::evaluate::is_even_game_count;

/// The embedded default configuration: ZÈRTZ standard on the CPU, sized to learn visibly in
/// minutes on a 2-core machine.
pub const DEFAULT_YAML: &str = include_str!("../../../configs/default.yaml");

/// The format of the configs this build writes (`config_version`).
///
/// - 1: written before the key existed (builds up to 2026-11-30). `training.root_value_weight`
///   did not exist in the first of them (the value learnt the game's result alone), a Gumbel
///   root ignored the temperature schedule in some of them and scaled its noise by it in
///   later ones, and odd numbers of match games were rounded up.
/// - 2: `skip_forced` did not exist (the searches evaluated positions with a single legal
///   action like any other).
/// - 3: the embedded default was 40 iterations (the learning rate's cosine over 2,400
///   steps), evaluations and checkpoints every 5.
/// - 4: `solver` did not exist (the searches knew nothing of proven results).
/// - 5: `overlap` did not exist (self-play and SGD took turns).
/// - 6: the current meaning of every key.
pub const CONFIG_VERSION: u32 = 6;

/// A whole training run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunConfig {
    /// The format the config is written in ([`CONFIG_VERSION`] when left out of a config of
    /// one's own); older ones are upgraded when read.
    pub config_version: u32,
    /// `zertz`, `dvonn` or `lyngk`.
    pub game: String,
    /// ZÈRTZ board variant (a name `gipfzero_games::zertz::Variant::from_name` accepts; `standard` when left
    /// out); DVONN and
    /// LYNGK have none (leave it out or give the game's name). Always set once parsed.
    pub variant: Option<String>,
    /// Where checkpoints, shards, metrics and plots go.
    pub run_dir: PathBuf,
    /// Master seed: every other stream (self-play games, sampling, augmentation, matches) is
    /// derived from it, so a run is reproducible on a fixed thread count.
    pub seed: u64,
    /// Training iterations (self-play generation → SGD → evaluation).
    pub iterations: u32,
    /// `auto`, `cpu`, `cuda` or `cuda:N`.
    pub device: String,
    /// The number format of the networks' forward passes in self-play and evaluation: `f32`,
    /// or `bf16` (weights and inputs in bfloat16, outputs back in f32; meant for GPUs, where
    /// it roughly doubles the throughput; training itself stays in f32).
    pub precision: String,
    pub threads: ThreadsConfig,
    /// Self-play of the next generation runs while SGD trains on this one, with the network
    /// of the iteration before (a lag of one iteration), so that both keep the cores busy;
    /// `false`: they take turns, each generation played by the newest network. See
    /// [`crate::pipeline`].
    pub overlap: bool,
    /// The network's size: a partial block takes the rest from [`NetConfig::default`]
    /// (3 blocks × 32 channels).
    pub network: NetConfig,
    /// Start from this network's weights instead of random ones: a checkpoint (its path) or a
    /// shipped network (`model:NAME`), of the shape `network` gives; training goes on from
    /// it with a fresh optimiser and an empty replay window. Read when the run starts (a
    /// resumed run continues from its own checkpoints). `null`: random weights.
    pub init_from: Option<String>,
    /// How generations are played: the self-play crate's own settings type (its run-level
    /// fields are not part of the block); see [`GeneratorConfig`].
    pub self_play: GeneratorConfig,
    pub replay: ReplayConfig,
    pub training: TrainingConfig,
    pub evaluation: EvaluationConfig,
    pub checkpoints: CheckpointConfig,
    /// A run at a URL, with self-play workers on other machines (`gipfzero train --run URL`,
    /// `gipfzero worker URL`; see [`crate::distributed`]). A local run ignores it; left out of
    /// the printed config while it holds the defaults.
    #[serde(skip_serializing_if = "DistributedConfig::is_default")]
    pub distributed: DistributedConfig,
}

/// How the trainer and the workers of a run at a URL share the work.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DistributedConfig {
    /// Games in one worker upload (one shard): the worker looks for a newer network between
    /// two uploads. 0 = `self_play.games_in_flight`.
    pub games_per_shard: u64,
    /// Shards played by a network more than this many iterations older than the generation
    /// being gathered are stale: recorded as rejected, never trained on.
    pub max_lag: u32,
    /// The most SGD steps an iteration takes, as a multiple of `training.steps_per_iteration`,
    /// when the workers delivered more than `self_play.games` games since the last one (the
    /// steps grow with the games up to this cap, so that the steps per new position stay as
    /// configured until the trainer cannot keep up).
    pub max_step_scale: f64,
    /// How often the trainer lists new shards while it waits for a generation, and a worker
    /// looks for the run's config and first network, in milliseconds.
    pub poll_ms: u64,
}

impl Default for DistributedConfig {
    fn default() -> Self {
        DistributedConfig { games_per_shard: 0, max_lag: 2, max_step_scale: 4.0, poll_ms: 1000 }
    }
}

impl DistributedConfig {
    fn is_default(&self) -> bool {
        *self == DistributedConfig::default()
    }
}

/// Threads: workers for self-play and matches, libtorch's pools for tensor work.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ThreadsConfig {
    /// Self-play workers (each searching its share of the games in flight, with a replica of
    /// the network on a CPU) and the run's rayon threads; 0 = one per core. The games played
    /// do not depend on it.
    pub workers: usize,
    /// libtorch intra-op threads. 1 on small machines: the workers already keep the cores
    /// busy and OpenMP threads only contend with them (see `gipfzero_model::runtime`).
    pub intra_op: usize,
    /// libtorch inter-op threads.
    pub inter_op: usize,
    /// Inference server threads on a GPU, each dispatching forward passes with its own copy
    /// of the weights; 0 = the default (`gipfzero_train::agents::DEFAULT_GPU_REPLICAS`).
    /// Ignored on a CPU, where every worker has a replica.
    pub gpu_replicas: usize,
    /// Milliseconds a GPU batch waits for the rest of the workers' requests after its first
    /// (it closes once every worker has one in; 0 takes what is queued). Ignored on a CPU.
    pub gpu_wait_ms: f64,
    /// On a GPU, the inference servers' passes replayed as CUDA graphs in fixed-size buckets
    /// (`gipfzero_model::cuda_graph`); off until measured on a GPU. Ignored on a CPU.
    pub cuda_graphs: bool,
}

/// The replay window: which recent samples SGD draws from (see [`crate::replay`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReplayConfig {
    /// Keep at most this many positions (oldest generations dropped first); 0 = no bound.
    pub max_positions: usize,
    /// Keep at most this many most recent generations; 0 = no bound.
    pub max_generations: u32,
    /// Draw each sample at most this many times; used-up samples leave the window.
    pub max_reuse: u32,
    /// Train only once the window holds this many positions.
    pub min_positions: usize,
    /// Train only on positions searched with the full budget (playout cap).
    pub full_search_only: bool,
}

/// SGD.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainingConfig {
    pub batch_size: usize,
    pub steps_per_iteration: u32,
    /// Random board symmetry per sample.
    pub augment: bool,
    /// Weight of the value loss against the policy loss.
    pub value_loss_weight: f32,
    /// The value target is `(1 − w)·outcome + w·root_value`: w = 0 is AlphaZero's target (the
    /// game's result), w > 0 blends in the search's own estimate of the position, which is
    /// less noisy when self-play games are short of simulations and long on randomness.
    pub root_value_weight: f32,
    pub optimizer: OptimizerConfig,
    pub lr: LrSchedule,
}

/// The optimiser; weight decay is decoupled for Adam (AdamW) and L2-coupled for SGD.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "lowercase")]
pub enum OptimizerConfig {
    Adam {
        #[serde(default = "defaults::beta1")]
        beta1: f64,
        #[serde(default = "defaults::beta2")]
        beta2: f64,
        #[serde(default = "defaults::eps")]
        eps: f64,
        #[serde(default = "defaults::weight_decay")]
        weight_decay: f64,
    },
    Sgd {
        #[serde(default = "defaults::momentum")]
        momentum: f64,
        #[serde(default)]
        nesterov: bool,
        #[serde(default = "defaults::weight_decay")]
        weight_decay: f64,
    },
}

/// The learning rate by training step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, tag = "schedule", rename_all = "lowercase")]
pub enum LrSchedule {
    Constant {
        base: f64,
    },
    /// `base · gamma^k`, k = number of milestones passed.
    Step {
        base: f64,
        milestones: Vec<u64>,
        #[serde(default = "defaults::gamma")]
        gamma: f64,
    },
    /// Linear warm-up from 0 to `base` over `warmup_steps`, then a half cosine down to `min`
    /// at `total_steps` (and `min` after).
    Cosine {
        base: f64,
        #[serde(default)]
        warmup_steps: u64,
        total_steps: u64,
        #[serde(default)]
        min: f64,
    },
}

/// Evaluation matches.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EvaluationConfig {
    /// Evaluate every this many iterations; 0 = never.
    pub every: u32,
    /// Games per opponent (rounded up to an even number: colour-swapped pairs).
    pub games: u32,
    /// Games longer than this many turns count as draws.
    pub max_turns: usize,
    /// Games played at once, each on its own thread; the network's leaves of all of them go
    /// through one inference server, so its batches grow with this. The games mostly wait on
    /// the network, so more games than cores pays (16 games used 2.2 times less CPU than 2
    /// for the same 20-game match on 2 cores, docs/PERFORMANCE.md). Results do not depend on
    /// it beyond the last bits of batched arithmetic.
    pub parallel_games: u32,
    /// The network's search in evaluation games (noise is switched off:
    /// [`SearchConfig::for_evaluation`]).
    pub search: SearchConfig,
    /// `random`, `greedy`, `rollout:N`, `previous` (the last checkpoint), `best` (the gated
    /// champion; the previous network when gating is off), `checkpoint:PATH` or `model:NAME`
    /// (a shipped network).
    pub opponents: Vec<Opponent>,
    /// Gating: the new network replaces the champion (`best`) only if it scores at least
    /// `threshold` against it; `null` = always accept.
    pub gating: Option<GatingConfig>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatingConfig {
    /// Against `best`: the minimum score (wins + draws/2 over games) against the champion,
    /// in (0, 1]. Against a baseline: the new network must score at least `threshold − 0.5`
    /// more than the champion (0.5: at least as much).
    pub threshold: f64,
    /// Games of the gating match; defaults to `evaluation.games`.
    #[serde(default)]
    pub games: Option<u32>,
    /// Whom the new network is measured against: `best` (the champion, AlphaGo Zero's
    /// gating), or a baseline (`random`, `greedy`, `rollout:N`) or fixed network
    /// (`checkpoint:PATH`, `model:NAME`) that the champion plays too, over the same openings
    /// and seeds. Self-play improves a network against
    /// itself, which need not make it stronger against anyone else (docs/RESULTS.md measured
    /// the drift on ZÈRTZ); a fixed yardstick keeps the champion that is.
    #[serde(default = "defaults::gating_against")]
    pub against: Opponent,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CheckpointConfig {
    /// Write a numbered checkpoint every this many iterations (the latest is always kept).
    pub every: u32,
    /// Numbered checkpoints kept; 0 = all.
    pub keep: u32,
}

/// An evaluation opponent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opponent {
    Random,
    Greedy,
    Rollout(u32),
    Previous,
    Best,
    Checkpoint(PathBuf),
    /// A shipped network, `model:NAME` (see `crate::agents::model_checkpoint`).
    Model(String),
}

/// The most simulations a `rollout:N` opponent takes (as `gipfzero_mcts::parse_agent`).
const MAX_ROLLOUT_SIMULATIONS: u32 = gipfzero_mcts::agent::MAX_ROLLOUT_SIMULATIONS;

impl FromStr for Opponent {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "random" => return Ok(Opponent::Random),
            "greedy" => return Ok(Opponent::Greedy),
            "previous" => return Ok(Opponent::Previous),
            "best" => return Ok(Opponent::Best),
            _ => {}
        }
        if let Some(count) = text.strip_prefix("rollout:") {
            return match count.parse::<u32>() {
                Ok(n) if (1..=MAX_ROLLOUT_SIMULATIONS).contains(&n) => Ok(Opponent::Rollout(n)),
                _ => Err(format!(
                    "bad simulation count in \"{text}\": expected a whole number from 1 to {MAX_ROLLOUT_SIMULATIONS}"
                )),
            };
        }
        if let Some(path) = text.strip_prefix("checkpoint:") {
            if !path.is_empty() {
                return Ok(Opponent::Checkpoint(PathBuf::from(path)));
            }
        }
        if let Some(name) = text.strip_prefix("model:") {
            if !name.is_empty() {
                return Ok(Opponent::Model(name.to_string()));
            }
        }
        Err(format!(
            "unknown opponent \"{text}\": expected random, greedy, rollout:N, previous, best, checkpoint:PATH or model:NAME"
        ))
    }
}

impl Opponent {
    /// A fixed player (`random`, `greedy`, `rollout:N`), as opposed to a network; its
    /// [`Display`](fmt::Display) text is the agent spec `gipfzero_mcts::parse_agent` reads.
    pub fn is_baseline(&self) -> bool {
        matches!(self, Opponent::Random | Opponent::Greedy | Opponent::Rollout(_))
    }
}

impl fmt::Display for Opponent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Opponent::Random => f.write_str("random"),
            Opponent::Greedy => f.write_str("greedy"),
            Opponent::Rollout(n) => write!(f, "rollout:{n}"),
            Opponent::Previous => f.write_str("previous"),
            Opponent::Best => f.write_str("best"),
            Opponent::Checkpoint(path) => write!(f, "checkpoint:{}", path.display()),
            Opponent::Model(name) => write!(f, "model:{name}"),
        }
    }
}

impl Serialize for Opponent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Opponent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Parsed while deserialising so that serde-saphyr reports the string's own location.
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(de::Error::custom)
    }
}

mod defaults {
    pub fn gating_against() -> super::Opponent {
        super::Opponent::Best
    }
    pub fn beta1() -> f64 {
        0.9
    }
    pub fn beta2() -> f64 {
        0.999
    }
    pub fn eps() -> f64 {
        1e-8
    }
    pub fn weight_decay() -> f64 {
        1e-4
    }
    pub fn momentum() -> f64 {
        0.9
    }
    pub fn gamma() -> f64 {
        0.1
    }
}

impl Default for RunConfig {
    /// The values of `configs/default.yaml` once parsed (a test keeps the two equal); the
    /// variant is filled in by parsing, from the game.
    fn default() -> Self {
        RunConfig {
            config_version: CONFIG_VERSION,
            game: "zertz".into(),
            variant: None,
            run_dir: PathBuf::from("data/runs/default"),
            seed: 1,
            iterations: 120,
            device: "cpu".into(),
            precision: "f32".into(),
            threads: ThreadsConfig::default(),
            overlap: true,
            network: NetConfig::default(),
            init_from: None,
            self_play: GeneratorConfig::training(),
            replay: ReplayConfig::default(),
            training: TrainingConfig::default(),
            evaluation: EvaluationConfig::default(),
            checkpoints: CheckpointConfig::default(),
            distributed: DistributedConfig::default(),
        }
    }
}

impl Default for ThreadsConfig {
    fn default() -> Self {
        ThreadsConfig {
            workers: 0,
            intra_op: 1,
            inter_op: 1,
            gpu_replicas: 0,
            gpu_wait_ms: crate::agents::DEFAULT_GPU_WAIT.as_secs_f64() * 1e3,
            cuda_graphs: false,
        }
    }
}

impl Default for ReplayConfig {
    fn default() -> Self {
        ReplayConfig {
            max_positions: 40_000,
            max_generations: 8,
            max_reuse: 8,
            min_positions: 2_000,
            full_search_only: true,
        }
    }
}

impl Default for TrainingConfig {
    fn default() -> Self {
        TrainingConfig {
            batch_size: 128,
            steps_per_iteration: 60,
            augment: true,
            value_loss_weight: 1.0,
            root_value_weight: 0.5,
            optimizer: OptimizerConfig::default(),
            lr: LrSchedule::default(),
        }
    }
}

impl Default for OptimizerConfig {
    fn default() -> Self {
        OptimizerConfig::Adam {
            beta1: defaults::beta1(),
            beta2: defaults::beta2(),
            eps: defaults::eps(),
            weight_decay: defaults::weight_decay(),
        }
    }
}

impl Default for LrSchedule {
    fn default() -> Self {
        LrSchedule::Cosine {
            base: 2e-3,
            warmup_steps: 100,
            total_steps: 7_200,
            min: 1e-4,
        }
    }
}

impl LrSchedule {
    /// The learning rate of step `step` (0-based).
    pub fn at(&self, step: u64) -> f64 {
        match *self {
            LrSchedule::Constant { base } => base,
            LrSchedule::Step {
                base,
                ref milestones,
                gamma,
            } => {
                let passed = milestones.iter().filter(|&&m| step >= m).count();
                base * gamma.powi(passed as i32)
            }
            LrSchedule::Cosine {
                base,
                warmup_steps,
                total_steps,
                min,
            } => {
                if step < warmup_steps {
                    base * (step + 1) as f64 / warmup_steps as f64
                } else if step >= total_steps {
                    min
                } else {
                    let span = (total_steps - warmup_steps).max(1) as f64;
                    let progress = (step - warmup_steps) as f64 / span;
                    min + 0.5 * (base - min) * (1.0 + (std::f64::consts::PI * progress).cos())
                }
            }
        }
    }
}

impl Default for EvaluationConfig {
    fn default() -> Self {
        EvaluationConfig {
            every: 10,
            games: 20,
            max_turns: 400,
            parallel_games: 16,
            search: SearchConfig::self_play(24),
            opponents: vec![Opponent::Random, Opponent::Rollout(200), Opponent::Previous],
            gating: None,
        }
    }
}

impl Default for CheckpointConfig {
    fn default() -> Self {
        CheckpointConfig { every: 10, keep: 0 }
    }
}

impl RunConfig {
    /// The device to run on.
    pub fn device_choice(&self) -> DeviceChoice {
        self.device.parse().expect("validated")
    }

    /// The forward passes' number format (validated).
    pub fn precision(&self) -> Precision {
        self.precision.parse().expect("validated")
    }

    /// How the run's networks are served: its device, precision and GPU server threads.
    pub fn serving(&self) -> crate::agents::Serving {
        crate::agents::Serving {
            device: self.device_choice(),
            precision: self.precision(),
            gpu_replicas: self.threads.gpu_replicas,
            gpu_wait: std::time::Duration::from_secs_f64(self.threads.gpu_wait_ms / 1e3),
            cuda_graphs: self.threads.cuda_graphs,
            cpu_server_threads: false,
        }
    }

    /// The run's worker threads: `threads.workers`, or one per core for 0.
    pub fn worker_threads(&self) -> usize {
        match self.threads.workers {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
    }

    /// libtorch's thread settings.
    pub fn thread_settings(&self) -> ThreadSettings {
        ThreadSettings {
            intra_op: self.threads.intra_op,
            inter_op: self.threads.inter_op,
        }
    }

    /// The variant name as the games take it (`standard`, `48`, …; the game's name for DVONN
    /// and LYNGK).
    pub fn variant_name(&self) -> &str {
        match &self.variant {
            Some(variant) => variant,
            None if self.game == "zertz" => "standard",
            None => &self.game,
        }
    }

    /// Parses, upgrades and validates a config of one's own; `file` names it in error
    /// messages. Without `config_version` it is of the current format.
    pub fn from_yaml(text: &str, file: &str) -> Result<RunConfig, ConfigError> {
        RunConfig::parse(text, file, CONFIG_VERSION)
    }

    /// Parses, upgrades and validates a run directory's saved config: without
    /// `config_version` it was written before versions existed (format 1).
    pub fn from_run_yaml(text: &str, file: &str) -> Result<RunConfig, ConfigError> {
        RunConfig::parse(text, file, 1)
    }

    /// `unversioned` is the format of a text that does not say its own.
    fn parse(text: &str, file: &str, unversioned: u32) -> Result<RunConfig, ConfigError> {
        let options = serde_saphyr::options! { with_snippet: false };
        let mut config: RunConfig =
            serde_saphyr::from_str_with_options(text, options).map_err(|error| {
                let (line, column) = error.location().map_or((0, 0), |l| (l.line(), l.column()));
                let rendered = error.to_string();
                // The plain rendering ends in " at line L, column C"; the location goes first.
                let suffix = format!(" at line {line}, column {column}");
                let message = rendered
                    .strip_suffix(&suffix)
                    .unwrap_or(&rendered)
                    .to_string();
                ConfigError::Parse {
                    file: file.to_string(),
                    line,
                    column,
                    message,
                }
            })?;
        let locator = Locator::new(text);
        if !locator.contains("config_version") {
            config.config_version = unversioned;
        }
        let checked = config.upgrade(&locator).and_then(|()| config.validate());
        checked.map_err(|invalid| {
            let (line, column) = locator.find(&invalid.path);
            ConfigError::Invalid {
                file: file.to_string(),
                line,
                column,
                path: invalid.path,
                message: invalid.message,
            }
        })?;
        config.variant = Some(config.variant_name().to_string());
        // League opponents by their canonical names (`rollout:0200` is `rollout:200`), as the
        // records and metrics name them; validation has parsed every one.
        if let Some(league) = &mut config.self_play.league {
            for name in &mut league.opponents {
                *name = name.parse::<Opponent>().expect("validated").to_string();
            }
        }
        Ok(config)
    }

    /// Reads, parses and validates a config file.
    pub fn load(path: &Path) -> Result<RunConfig, ConfigError> {
        RunConfig::read(path, RunConfig::from_yaml)
    }

    /// Reads a run directory's saved config (see [`RunConfig::from_run_yaml`]).
    pub fn load_run(path: &Path) -> Result<RunConfig, ConfigError> {
        RunConfig::read(path, RunConfig::from_run_yaml)
    }

    fn read(
        path: &Path,
        parse: fn(&str, &str) -> Result<RunConfig, ConfigError>,
    ) -> Result<RunConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        parse(&text, &path.display().to_string())
    }

    /// The embedded default config.
    pub fn embedded_default() -> RunConfig {
        RunConfig::from_yaml(DEFAULT_YAML, "configs/default.yaml")
            .expect("the embedded default config is valid (tested)")
    }

    /// The fully resolved config as YAML (every default written out).
    pub fn to_yaml(&self) -> String {
        serde_saphyr::to_string(self).expect("a run config always serialises")
    }

    /// A short hash of the resolved config (FNV-1a of its YAML), for checkpoints' sidecars.
    pub fn hash(&self) -> String {
        format!(
            "{:016x}",
            gipfzero_model::checkpoint::fnv1a64(self.to_yaml().as_bytes())
        )
    }
}

/// Why a config could not be used. Every variant but `Read` carries `file:line:column`.
#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("cannot read config {path}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{file}:{line}:{column}: {message}")]
    Parse {
        file: String,
        line: u64,
        column: u64,
        message: String,
    },
    #[error("{file}:{line}:{column}: {path}: {message}")]
    Invalid {
        file: String,
        line: u64,
        column: u64,
        path: String,
        message: String,
    },
}

mod locate;
mod upgrade;
mod validate;
#[cfg(test)]
mod tests;

pub use locate::Locator;
pub use validate::Invalid;
