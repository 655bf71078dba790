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
//! - **Search settings mirror [`SearchConfig`]** field by field (same names, same nesting), so
//!   the search's own validation names the YAML key directly.
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

use gipfzero_mcts::{
    DirichletNoise, GumbelConfig, MixedEvaluator, PlayoutCap, RootPolicy, SearchConfig, TemperatureStep,
};
use gipfzero_model::{DeviceChoice, NetConfig, ThreadSettings};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_saphyr::Spanned;
use thiserror::Error;

use crate::evaluate::is_even_game_count;

/// The embedded default configuration: ZÈRTZ standard on the CPU, sized to learn visibly in
/// minutes on a 2-core machine.
pub const DEFAULT_YAML: &str = include_str!("../../configs/default.yaml");

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
/// - 4: the current meaning of every key.
pub const CONFIG_VERSION: u32 = 4;

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
    pub threads: ThreadsConfig,
    /// The network's size: a partial block takes the rest from [`NetConfig::default`]
    /// (3 blocks × 32 channels).
    pub network: NetConfig,
    pub self_play: SelfPlayConfig,
    pub replay: ReplayConfig,
    pub training: TrainingConfig,
    pub evaluation: EvaluationConfig,
    pub checkpoints: CheckpointConfig,
}

/// Threads: rayon workers for self-play and matches, libtorch's pools for tensor work.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ThreadsConfig {
    /// rayon worker threads; 0 = one per core.
    pub workers: usize,
    /// libtorch intra-op threads. 1 on small machines: rayon already keeps the cores busy
    /// and OpenMP threads only contend with it (see `gipfzero_model::runtime`).
    pub intra_op: usize,
    /// libtorch inter-op threads.
    pub inter_op: usize,
}

/// How self-play games are generated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfPlayConfig {
    /// Games per iteration (one generation of samples).
    pub games_per_iteration: u32,
    /// Games played at once (one search tree each), batched through one inference server.
    pub parallel_games: u32,
    /// Games still running after this many turns stop and are scored as draws. (Runs
    /// configured before the key was renamed wrote it `max_actions`; it always counted turns.)
    #[serde(alias = "max_actions")]
    pub max_turns: u32,
    pub search: SearchSettings,
    /// A share of the games played against fixed opponents instead of the network itself
    /// (see [`LeagueSettings`]); `null`: pure self-play.
    pub league: Option<LeagueSettings>,
}

/// League self-play: `share` of each generation's games pit the network against one of
/// `opponents` (drawn per game, colour drawn too); only the network's decisions become
/// samples. Pure self-play drifts (the network beats its earlier selves while it gets weaker
/// against other players, docs/RESULTS.md); games against fixed players put their positions
/// in the data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeagueSettings {
    /// Fraction of the games, in [0, 1].
    pub share: f32,
    /// `random`, `greedy` or `rollout:N` (the baselines; they play as in evaluation).
    pub opponents: Vec<Opponent>,
}

/// The search, field by field as [`SearchConfig`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchSettings {
    pub simulations: u32,
    /// `puct`, `gumbel` or `ucb1`; the block of the same name holds its settings.
    pub root_policy: RootPolicyName,
    pub gumbel: GumbelSettings,
    pub ucb1: Ucb1Settings,
    pub c_puct: f32,
    pub c_base: f32,
    pub fpu_reduction: f32,
    pub root_fpu_reduction: f32,
    /// PUCT root noise; `null` for none.
    pub dirichlet: Option<DirichletSettings>,
    /// `[{from_move, temperature}, …]`: PUCT samples the played action from the visits at
    /// this temperature; a Gumbel root scales its Gumbel noise by it (0: no noise).
    pub temperature: Vec<TemperatureSettings>,
    /// Playout-cap randomisation; `null` for none.
    pub playout_cap: Option<PlayoutCapSettings>,
    pub reuse_tree: bool,
    pub leaves_per_tree: u32,
    pub virtual_loss: f32,
    /// Walk through positions with a single legal action instead of evaluating them
    /// (`SearchConfig::skip_forced`). Default true; false in configs of format 2 and older.
    pub skip_forced: bool,
    /// w in [0, 1]: each leaf's value is `(1 − w)·v + w·z`, the network's value v blended
    /// with the outcome z of one random playout from the leaf (AlphaGo's λ; see
    /// `gipfzero_mcts::MixedEvaluator`). 0, the default, is the network alone.
    pub rollout_mix: f32,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RootPolicyName {
    Puct,
    Gumbel,
    Ucb1,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GumbelSettings {
    pub max_considered: u32,
    pub c_visit: f32,
    pub c_scale: f32,
    pub rescale_values: bool,
    /// Gumbel noise at the root; evaluation searches switch it off whatever is written here.
    pub noise: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Ucb1Settings {
    pub exploration: f32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirichletSettings {
    pub alpha_scale: f32,
    pub epsilon: f32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TemperatureSettings {
    pub from_move: u32,
    pub temperature: f32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayoutCapSettings {
    pub full_probability: f32,
    pub cheap_simulations: u32,
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
    /// The network's search in evaluation games (noise is switched off).
    pub search: SearchSettings,
    /// `random`, `greedy`, `rollout:N`, `previous` (the last checkpoint), `best` (the gated
    /// champion; the previous network when gating is off), or `checkpoint:PATH`.
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
    /// gating), or a baseline (`random`, `greedy`, `rollout:N`) that the champion plays too,
    /// over the same openings and baseline seeds. Self-play improves a network against
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
        Err(format!(
            "unknown opponent \"{text}\": expected random, greedy, rollout:N, previous, best or checkpoint:PATH"
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
            threads: ThreadsConfig::default(),
            network: NetConfig::default(),
            self_play: SelfPlayConfig::default(),
            replay: ReplayConfig::default(),
            training: TrainingConfig::default(),
            evaluation: EvaluationConfig::default(),
            checkpoints: CheckpointConfig::default(),
        }
    }
}

impl Default for ThreadsConfig {
    fn default() -> Self {
        ThreadsConfig {
            workers: 0,
            intra_op: 1,
            inter_op: 1,
        }
    }
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            games_per_iteration: 32,
            parallel_games: 16,
            max_turns: 400,
            search: SearchSettings::self_play(24),
            league: None,
        }
    }
}

impl SearchSettings {
    /// Gumbel root search with `simulations`: the paper's choice for small budgets, where
    /// PUCT with Dirichlet noise learns little (Danihelka et al. 2022).
    pub fn self_play(simulations: u32) -> Self {
        let base = SearchConfig::default();
        let gumbel = GumbelConfig {
            max_considered: 8,
            ..GumbelConfig::default()
        };
        SearchSettings {
            simulations,
            root_policy: RootPolicyName::Gumbel,
            gumbel: GumbelSettings {
                max_considered: gumbel.max_considered,
                c_visit: gumbel.c_visit,
                c_scale: gumbel.c_scale,
                rescale_values: gumbel.rescale_values,
                noise: gumbel.noise,
            },
            ucb1: Ucb1Settings {
                exploration: std::f32::consts::SQRT_2,
            },
            c_puct: base.c_puct,
            c_base: base.c_base,
            fpu_reduction: base.fpu_reduction,
            root_fpu_reduction: base.root_fpu_reduction,
            dirichlet: base.dirichlet.map(|d| DirichletSettings {
                alpha_scale: d.alpha_scale,
                epsilon: d.epsilon,
            }),
            // The Gumbel noise at every move: cooling it to none after 30 actions (the
            // schedule PUCT's visit sampling wants) scored 18–1–21 head to head after an hour
            // of ZÈRTZ training (docs/RESULTS.md), so the default keeps it.
            temperature: vec![TemperatureSettings {
                from_move: 0,
                temperature: 1.0,
            }],
            playout_cap: None,
            reuse_tree: base.reuse_tree,
            leaves_per_tree: base.leaves_per_tree,
            virtual_loss: base.virtual_loss,
            skip_forced: base.skip_forced,
            rollout_mix: 0.0,
        }
    }

    /// The search these settings describe.
    pub fn to_search_config(&self) -> SearchConfig {
        let root_policy = match self.root_policy {
            RootPolicyName::Puct => RootPolicy::Puct,
            RootPolicyName::Gumbel => RootPolicy::Gumbel(GumbelConfig {
                max_considered: self.gumbel.max_considered,
                c_visit: self.gumbel.c_visit,
                c_scale: self.gumbel.c_scale,
                rescale_values: self.gumbel.rescale_values,
                noise: self.gumbel.noise,
            }),
            RootPolicyName::Ucb1 => RootPolicy::Ucb1 {
                exploration: self.ucb1.exploration,
            },
        };
        SearchConfig {
            simulations: self.simulations,
            root_policy,
            c_puct: self.c_puct,
            c_base: self.c_base,
            fpu_reduction: self.fpu_reduction,
            root_fpu_reduction: self.root_fpu_reduction,
            dirichlet: self.dirichlet.as_ref().map(|d| DirichletNoise {
                alpha_scale: d.alpha_scale,
                epsilon: d.epsilon,
            }),
            temperature: self
                .temperature
                .iter()
                .map(|t| TemperatureStep {
                    from_move: t.from_move,
                    temperature: t.temperature,
                })
                .collect(),
            playout_cap: self.playout_cap.as_ref().map(|p| PlayoutCap {
                full_probability: p.full_probability,
                cheap_simulations: p.cheap_simulations,
            }),
            reuse_tree: self.reuse_tree,
            leaves_per_tree: self.leaves_per_tree,
            virtual_loss: self.virtual_loss,
            skip_forced: self.skip_forced,
        }
    }

    /// The search of evaluation games: the same settings without noise, always the best
    /// action ([`SearchConfig::evaluation`]).
    pub fn to_evaluation_search_config(&self) -> SearchConfig {
        let search = self.to_search_config();
        SearchConfig {
            c_puct: search.c_puct,
            c_base: search.c_base,
            fpu_reduction: search.fpu_reduction,
            root_fpu_reduction: search.root_fpu_reduction,
            reuse_tree: search.reuse_tree,
            leaves_per_tree: search.leaves_per_tree,
            virtual_loss: search.virtual_loss,
            skip_forced: search.skip_forced,
            ..SearchConfig::evaluation(search.simulations, search.root_policy)
        }
    }

    fn validate(&self, prefix: &str) -> Result<(), Invalid> {
        self.to_search_config()
            .validate()
            .map_err(|error| Invalid::new(format!("{prefix}.{}", error.field), error.reason))?;
        MixedEvaluator::<()>::check_weight(self.rollout_mix)
            .map_err(|error| Invalid::new(format!("{prefix}.rollout_mix"), error.0))
    }
}

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings::self_play(24)
    }
}

impl Default for GumbelSettings {
    fn default() -> Self {
        let g = GumbelConfig::default();
        GumbelSettings {
            max_considered: g.max_considered,
            c_visit: g.c_visit,
            c_scale: g.c_scale,
            rescale_values: g.rescale_values,
            noise: g.noise,
        }
    }
}

impl Default for Ucb1Settings {
    fn default() -> Self {
        Ucb1Settings {
            exploration: std::f32::consts::SQRT_2,
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
            search: SearchSettings::self_play(24),
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

/// A value that parsed but cannot be used: the YAML path of the key and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    pub path: String,
    pub message: String,
}

impl Invalid {
    fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Invalid {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// Why a number of match games must be even.
const EVEN_GAMES: &str =
    "must be an even number, at least 2 (games come in pairs that share a start, colours swapped)";

fn check(ok: bool, path: &str, message: &str) -> Result<(), Invalid> {
    if ok {
        Ok(())
    } else {
        Err(Invalid::new(path, message))
    }
}

fn finite_in(value: f64, low: f64, high: f64) -> bool {
    value.is_finite() && value >= low && value <= high
}

impl RunConfig {
    /// Checks every value (the first problem found is returned).
    pub fn validate(&self) -> Result<(), Invalid> {
        check(
            self.config_version <= CONFIG_VERSION,
            "config_version",
            &format!(
                "format {} is newer than this build reads (up to {CONFIG_VERSION}): written by a newer gipfzero",
                self.config_version
            ),
        )?;
        check(self.config_version >= 1, "config_version", "formats start at 1")?;
        match self.game.as_str() {
            "zertz" => {
                if let Some(variant) = &self.variant {
                    if let Err(error) = gipfzero_games::zertz::Variant::from_name(variant) {
                        check(false, "variant", &error.to_string())?;
                    }
                }
            }
            "dvonn" | "lyngk" => {
                if let Some(variant) = &self.variant {
                    check(
                        variant == &self.game,
                        "variant",
                        &format!("{} has no variants (leave variant out)", self.game),
                    )?;
                }
            }
            other => {
                return Err(Invalid::new(
                    "game",
                    format!("unknown game \"{other}\": expected zertz, dvonn or lyngk"),
                ))
            }
        }
        check(self.iterations >= 1, "iterations", "must be at least 1")?;
        check(
            !self.run_dir.as_os_str().is_empty(),
            "run_dir",
            "must not be empty",
        )?;
        self.device
            .parse::<DeviceChoice>()
            .map_err(|error| Invalid::new("device", error.to_string()))?;
        check(
            self.threads.intra_op >= 1,
            "threads.intra_op",
            "must be at least 1",
        )?;
        check(
            self.threads.inter_op >= 1,
            "threads.inter_op",
            "must be at least 1",
        )?;

        check(
            self.network.blocks <= 64,
            "network.blocks",
            "must be at most 64",
        )?;
        self.network.validate().map_err(|error| {
            let field = match &error {
                gipfzero_model::NetConfigError::Zero(name) => name.to_string(),
                gipfzero_model::NetConfigError::TooManyPooled { .. } => {
                    "global_pool_channels".to_string()
                }
                gipfzero_model::NetConfigError::Groups { .. } => "norm_groups".to_string(),
                gipfzero_model::NetConfigError::EmptySpec => "blocks".to_string(),
            };
            Invalid::new(format!("network.{field}"), error.to_string())
        })?;

        let sp = &self.self_play;
        check(
            sp.games_per_iteration >= 1,
            "self_play.games_per_iteration",
            "must be at least 1",
        )?;
        check(
            sp.parallel_games >= 1,
            "self_play.parallel_games",
            "must be at least 1",
        )?;
        check(
            sp.max_turns >= 1,
            "self_play.max_turns",
            "must be at least 1",
        )?;
        sp.search.validate("self_play.search")?;
        if let Some(league) = &sp.league {
            check(
                finite_in(league.share as f64, 0.0, 1.0),
                "self_play.league.share",
                "must lie in [0, 1]",
            )?;
            check(
                !league.opponents.is_empty(),
                "self_play.league.opponents",
                "name at least one opponent",
            )?;
            for (i, opponent) in league.opponents.iter().enumerate() {
                check(
                    opponent.is_baseline(),
                    &format!("self_play.league.opponents.{i}"),
                    "league opponents are random, greedy or rollout:N",
                )?;
            }
        }

        let replay = &self.replay;
        check(
            replay.max_positions > 0 || replay.max_generations > 0,
            "replay",
            "bound the window: set max_positions or max_generations (or both)",
        )?;
        check(
            replay.max_reuse >= 1,
            "replay.max_reuse",
            "must be at least 1",
        )?;
        if replay.max_positions > 0 {
            check(
                replay.min_positions <= replay.max_positions,
                "replay.min_positions",
                "must not exceed replay.max_positions",
            )?;
        }

        let training = &self.training;
        check(
            training.batch_size >= 1,
            "training.batch_size",
            "must be at least 1",
        )?;
        check(
            replay.min_positions >= training.batch_size,
            "replay.min_positions",
            "must be at least training.batch_size",
        )?;
        check(
            training.steps_per_iteration >= 1,
            "training.steps_per_iteration",
            "must be at least 1",
        )?;
        check(
            training.value_loss_weight.is_finite() && training.value_loss_weight >= 0.0,
            "training.value_loss_weight",
            "must be a finite number ≥ 0",
        )?;
        check(
            (0.0..=1.0).contains(&training.root_value_weight),
            "training.root_value_weight",
            "must be between 0 and 1",
        )?;
        match training.optimizer {
            OptimizerConfig::Adam {
                beta1,
                beta2,
                eps,
                weight_decay,
            } => {
                check(
                    finite_in(beta1, 0.0, 0.999_999),
                    "training.optimizer.beta1",
                    "must be in [0, 1)",
                )?;
                check(
                    finite_in(beta2, 0.0, 0.999_999_999),
                    "training.optimizer.beta2",
                    "must be in [0, 1)",
                )?;
                check(
                    eps.is_finite() && eps > 0.0,
                    "training.optimizer.eps",
                    "must be a finite number > 0",
                )?;
                check(
                    finite_in(weight_decay, 0.0, 1.0),
                    "training.optimizer.weight_decay",
                    "must be in [0, 1]",
                )?;
            }
            OptimizerConfig::Sgd {
                momentum,
                weight_decay,
                ..
            } => {
                check(
                    finite_in(momentum, 0.0, 0.999_999),
                    "training.optimizer.momentum",
                    "must be in [0, 1)",
                )?;
                check(
                    finite_in(weight_decay, 0.0, 1.0),
                    "training.optimizer.weight_decay",
                    "must be in [0, 1]",
                )?;
            }
        }
        let positive_lr = |lr: f64| lr.is_finite() && lr > 0.0 && lr <= 10.0;
        match &training.lr {
            LrSchedule::Constant { base } => {
                check(
                    positive_lr(*base),
                    "training.lr.base",
                    "must be a number in (0, 10]",
                )?;
            }
            LrSchedule::Step {
                base,
                milestones,
                gamma,
            } => {
                check(
                    positive_lr(*base),
                    "training.lr.base",
                    "must be a number in (0, 10]",
                )?;
                check(
                    milestones.windows(2).all(|w| w[0] < w[1]),
                    "training.lr.milestones",
                    "must be strictly increasing",
                )?;
                check(
                    finite_in(*gamma, 1e-12, 1.0),
                    "training.lr.gamma",
                    "must be in (0, 1]",
                )?;
            }
            LrSchedule::Cosine {
                base,
                warmup_steps,
                total_steps,
                min,
            } => {
                check(
                    positive_lr(*base),
                    "training.lr.base",
                    "must be a number in (0, 10]",
                )?;
                check(
                    finite_in(*min, 0.0, *base),
                    "training.lr.min",
                    "must be in [0, base]",
                )?;
                check(
                    *total_steps >= 1,
                    "training.lr.total_steps",
                    "must be at least 1",
                )?;
                check(
                    warmup_steps < total_steps,
                    "training.lr.warmup_steps",
                    "must be less than total_steps",
                )?;
            }
        }

        let evaluation = &self.evaluation;
        if evaluation.every > 0 {
            check(
                is_even_game_count(evaluation.games),
                "evaluation.games",
                EVEN_GAMES,
            )?;
            check(
                evaluation.max_turns >= 1,
                "evaluation.max_turns",
                "must be at least 1",
            )?;
            check(
                (1..=256).contains(&evaluation.parallel_games),
                "evaluation.parallel_games",
                "must be between 1 and 256",
            )?;
            evaluation.search.validate("evaluation.search")?;
        }
        for (i, opponent) in evaluation.opponents.iter().enumerate() {
            check(
                !evaluation.opponents[..i].contains(opponent),
                &format!("evaluation.opponents.{i}"),
                &format!("{opponent} is listed twice"),
            )?;
        }
        if let Some(gating) = &evaluation.gating {
            check(
                finite_in(gating.threshold, 1e-9, 1.0) && gating.threshold > 0.0,
                "evaluation.gating.threshold",
                "must be a score in (0, 1]",
            )?;
            check(
                gating.games.is_none_or(is_even_game_count),
                "evaluation.gating.games",
                EVEN_GAMES,
            )?;
            check(
                evaluation.every > 0,
                "evaluation.every",
                "gating needs evaluations (every ≥ 1)",
            )?;
            check(
                gating.against == Opponent::Best || gating.against.is_baseline(),
                "evaluation.gating.against",
                "gating is against best or a baseline (random, greedy, rollout:N)",
            )?;
        }
        check(
            self.checkpoints.every >= 1,
            "checkpoints.every",
            "must be at least 1",
        )?;
        Ok(())
    }

    /// The device to run on.
    pub fn device_choice(&self) -> DeviceChoice {
        self.device.parse().expect("validated")
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

    /// Brings a config of an older format to the current one, keeping what its keys meant
    /// then; `locator` says which keys the text wrote. Format 1 (see [`CONFIG_VERSION`]):
    /// - no `training.root_value_weight`: the build had none, the value learnt the game's
    ///   result alone, so the weight is 0;
    /// - an odd number of evaluation or gating games: its builds rounded it up to the next
    ///   even one (the pairs), so that is what it becomes;
    /// - a Gumbel self-play root (with noise) under a schedule with a temperature other than
    ///   1: some builds of format 1 ignored the schedule, later ones honoured it, and the text
    ///   cannot say which; this is an error that asks for the choice to be written.
    ///
    /// Format 2: no `skip_forced` in a search block: its builds had none and evaluated forced
    /// positions, so it is false.
    ///
    /// Format 3: the keys the embedded default's length changed take the values they had:
    /// no `iterations` 40, no `training.lr` the cosine over 2,400 steps, no
    /// `evaluation.every` or `checkpoints.every` 5.
    fn upgrade(&mut self, locator: &Locator) -> Result<(), Invalid> {
        if self.config_version == 1 {
            if !locator.contains("training.root_value_weight") {
                self.training.root_value_weight = 0.0;
            }
            let evaluation = &mut self.evaluation;
            evaluation.games = evaluation.games.next_multiple_of(2);
            if let Some(gating) = &mut evaluation.gating {
                gating.games = gating.games.map(|games| games.next_multiple_of(2));
            }
            let search = &self.self_play.search;
            let cooled = search.temperature.iter().any(|step| step.temperature != 1.0);
            check(
                !(search.root_policy == RootPolicyName::Gumbel && search.gumbel.noise && cooled),
                "self_play.search.temperature",
                "this config is of format 1 (written without config_version, by a build up to \
                 2026-11-30), whose Gumbel root ignored this schedule in some builds (noise at \
                 every move) and honoured it in later ones; say which the run had: add \
                 `config_version: 2` at the top to honour the schedule, or make it \
                 [{from_move: 0, temperature: 1.0}] for noise at every move",
            )?;
            self.config_version = 2;
        }
        if self.config_version == 2 {
            for (key, search) in [
                ("self_play.search.skip_forced", &mut self.self_play.search),
                ("evaluation.search.skip_forced", &mut self.evaluation.search),
            ] {
                if !locator.contains(key) {
                    search.skip_forced = false;
                }
            }
            self.config_version = 3;
        }
        if self.config_version == 3 {
            if !locator.contains("iterations") {
                self.iterations = 40;
            }
            if !locator.contains("training.lr") {
                // Left out, it is the default cosine, of which only the length changed.
                if let LrSchedule::Cosine { total_steps, .. } = &mut self.training.lr {
                    *total_steps = 2_400;
                }
            }
            if !locator.contains("evaluation.every") {
                self.evaluation.every = 5;
            }
            if !locator.contains("checkpoints.every") {
                self.checkpoints.every = 5;
            }
            self.config_version = 4;
        }
        Ok(())
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
    #[error("cannot read config {path}: {source}")]
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

/// Where each key of a YAML document is: a second, location-only parse used to place errors
/// found after parsing.
pub struct Locator {
    root: Option<Spanned<Node>>,
}

enum Node {
    Map(Vec<(String, Spanned<Node>)>),
    Seq(Vec<Spanned<Node>>),
    Leaf,
}

impl Locator {
    pub fn new(text: &str) -> Locator {
        Locator {
            root: serde_saphyr::from_str::<Spanned<Node>>(text).ok(),
        }
    }

    /// The line and column of the dotted `path` (`training.lr.base`, `evaluation.opponents.2`),
    /// or of its deepest ancestor written in the file; `(1, 1)` when nothing of it is.
    pub fn find(&self, path: &str) -> (u64, u64) {
        self.lookup(path).0
    }

    /// Whether the dotted `path` is written in the text.
    pub fn contains(&self, path: &str) -> bool {
        self.lookup(path).1
    }

    /// The location of `path` or of its deepest written ancestor, and whether `path` itself
    /// is written.
    fn lookup(&self, path: &str) -> ((u64, u64), bool) {
        let Some(mut node) = self.root.as_ref() else {
            return ((1, 1), false);
        };
        // A mapping value is located at its key (where the reader looks for it).
        let mut found = (1, 1);
        for segment in path.split('.') {
            let next = match &node.value {
                Node::Map(entries) => entries
                    .iter()
                    .find(|(key, _)| key == segment)
                    .map(|(_, v)| v),
                Node::Seq(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
                Node::Leaf => None,
            };
            match next {
                Some(child) => {
                    found = (child.referenced.line(), child.referenced.column());
                    node = child;
                }
                None => return (found, false),
            }
        }
        (found, true)
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NodeVisitor;
        impl<'de> Visitor<'de> for NodeVisitor {
            type Value = Node;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any YAML value")
            }
            fn visit_bool<E>(self, _: bool) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_str<E>(self, _: &str) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_unit<E>(self) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_none<E>(self) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
                Node::deserialize(d)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<Spanned<Node>>()? {
                    items.push(item);
                }
                Ok(Node::Seq(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
                let mut entries = Vec::new();
                while let Some(key) = map.next_key::<KeyText>()? {
                    entries.push((key.0, map.next_value::<Spanned<Node>>()?));
                }
                Ok(Node::Map(entries))
            }
        }
        deserializer.deserialize_any(NodeVisitor)
    }
}

/// A mapping key of any scalar type, as text.
struct KeyText(String);

impl<'de> Deserialize<'de> for KeyText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = KeyText;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a scalar key")
            }
            fn visit_str<E>(self, v: &str) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_bool<E>(self, v: bool) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<KeyText, E> {
                Ok(KeyText(v.to_string()))
            }
            fn visit_unit<E>(self) -> Result<KeyText, E> {
                Ok(KeyText(String::new()))
            }
        }
        deserializer.deserialize_any(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<RunConfig, ConfigError> {
        RunConfig::from_yaml(text, "run.yaml")
    }

    #[test]
    fn empty_document_gives_the_defaults() {
        let parsed = parse("{}\n").unwrap();
        assert_eq!(
            parsed,
            RunConfig {
                variant: Some("standard".into()),
                ..RunConfig::default()
            }
        );
        assert_eq!(
            parse("game: dvonn\n").unwrap().variant.as_deref(),
            Some("dvonn")
        );
    }

    #[test]
    fn embedded_default_matches_the_rust_defaults() {
        assert_eq!(RunConfig::embedded_default(), parse("{}\n").unwrap());
    }

    #[test]
    fn shipped_configs_are_valid() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "yaml") {
                let config = RunConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
                // Round trip through the resolved YAML.
                let again = RunConfig::from_yaml(&config.to_yaml(), "resolved").unwrap();
                assert_eq!(again, config, "{}", path.display());
                seen += 1;
            }
        }
        assert!(seen >= 7, "only {seen} configs in {}", dir.display());
    }

    #[test]
    fn resolved_yaml_round_trips() {
        let mut config = RunConfig::embedded_default();
        config.training.optimizer = OptimizerConfig::Sgd {
            momentum: 0.8,
            nesterov: true,
            weight_decay: 0.0,
        };
        config.training.lr = LrSchedule::Step {
            base: 0.1,
            milestones: vec![10, 20],
            gamma: 0.5,
        };
        config
            .evaluation
            .opponents
            .push(Opponent::Checkpoint("a/b".into()));
        config.evaluation.gating = Some(GatingConfig {
            threshold: 0.55,
            games: Some(40),
            against: Opponent::Rollout(1000),
        });
        config.self_play.search.dirichlet = None;
        let text = config.to_yaml();
        assert_eq!(parse(&text).unwrap(), config, "{text}");
    }

    fn error_text(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn unknown_key_is_located() {
        let text = "game: dvonn\ntraining:\n  batch_size: 64\n  bach_size: 3\n";
        let message = error_text(text);
        assert!(message.starts_with("run.yaml:4:3: "), "{message}");
        assert!(message.contains("bach_size"), "{message}");
    }

    #[test]
    fn a_league_is_read_and_its_opponents_checked() {
        let text = "game: zertz\nself_play:\n  league:\n    share: 0.25\n    opponents: [rollout:200, random]\n";
        let league = parse(text).unwrap().self_play.league.unwrap();
        assert_eq!(league.share, 0.25);
        assert_eq!(league.opponents, vec![Opponent::Rollout(200), Opponent::Random]);
        assert_eq!(parse("game: zertz\n").unwrap().self_play.league, None);
        let networks = "game: zertz\nself_play:\n  league:\n    share: 0.25\n    opponents:\n      - greedy\n      - previous\n";
        let message = error_text(networks);
        assert!(message.starts_with("run.yaml:7:9: self_play.league.opponents.1: league opponents are random, greedy or rollout:N"), "{message}");
        let share = error_text("game: zertz\nself_play:\n  league:\n    share: 1.5\n    opponents: [random]\n");
        assert!(share.starts_with("run.yaml:4:") && share.contains("self_play.league.share"), "{share}");
        let empty = error_text("game: zertz\nself_play:\n  league:\n    share: 0.5\n    opponents: []\n");
        assert!(empty.contains("self_play.league.opponents: name at least one opponent"), "{empty}");
    }

    #[test]
    fn the_turn_cap_keeps_its_old_name() {
        let old = parse("game: dvonn\nself_play:\n  max_actions: 77\n").unwrap();
        let new = parse("game: dvonn\nself_play:\n  max_turns: 77\n").unwrap();
        assert_eq!(old.self_play.max_turns, 77);
        assert_eq!(old, new);
    }

    #[test]
    fn rollout_mix_is_read_and_bounded() {
        let config = parse("game: zertz\nself_play:\n  search:\n    rollout_mix: 0.25\n").unwrap();
        assert_eq!(config.self_play.search.rollout_mix, 0.25);
        assert_eq!(config.evaluation.search.rollout_mix, 0.0);
        let message = error_text("game: zertz\nevaluation:\n  search:\n    rollout_mix: -0.5\n");
        assert!(message.starts_with("run.yaml:4:"), "{message}");
        assert!(message.contains("evaluation.search.rollout_mix"), "{message}");
    }

    #[test]
    fn a_config_of_a_newer_format_is_refused() {
        let message = error_text("config_version: 5\ngame: dvonn\n");
        assert!(message.starts_with("run.yaml:1:"), "{message}");
        assert!(message.contains("newer gipfzero"), "{message}");
        assert!(error_text("config_version: 0\n").contains("config_version"));
    }

    #[test]
    fn format_1_keeps_the_value_target_it_had() {
        // A config of one's own without the key is of the current format.
        assert_eq!(parse("game: zertz\n").unwrap().training.root_value_weight, 0.5);
        // A run's saved config without it, or any config saying format 1: the builds of
        // format 1 that wrote no root_value_weight had none (the result alone).
        let saved = RunConfig::from_run_yaml("game: zertz\n", "config.yaml").unwrap();
        assert_eq!(saved.training.root_value_weight, 0.0);
        assert_eq!(saved.config_version, CONFIG_VERSION);
        let explicit = parse("config_version: 1\ngame: zertz\n").unwrap();
        assert_eq!(explicit, saved);
        let written = "game: zertz\ntraining:\n  root_value_weight: 0.25\n";
        let saved = RunConfig::from_run_yaml(written, "config.yaml").unwrap();
        assert_eq!(saved.training.root_value_weight, 0.25);
        // Odd match sizes were played as the next even number.
        let odd = "evaluation:\n  games: 5\n  gating: { threshold: 0.55, games: 7 }\n";
        let saved = RunConfig::from_run_yaml(odd, "config.yaml").unwrap();
        assert_eq!((saved.evaluation.games, saved.evaluation.gating.unwrap().games), (6, Some(8)));
    }

    #[test]
    fn format_2_searches_evaluate_forced_positions() {
        // The current format walks through them unless told otherwise.
        let current = parse("game: zertz\n").unwrap();
        assert!(current.self_play.search.skip_forced && current.evaluation.search.skip_forced);
        assert!(current.self_play.search.to_search_config().skip_forced);
        assert!(current.evaluation.search.to_evaluation_search_config().skip_forced);
        // Format 2 had no such key: its searches evaluated every position.
        let old = parse("config_version: 2\ngame: zertz\n").unwrap();
        assert!(!old.self_play.search.skip_forced && !old.evaluation.search.skip_forced);
        assert!(!old.evaluation.search.to_evaluation_search_config().skip_forced);
        assert_eq!(old.config_version, CONFIG_VERSION);
        // A format-1 run's saved config went through format 2.
        let saved = RunConfig::from_run_yaml("game: zertz\n", "config.yaml").unwrap();
        assert!(!saved.self_play.search.skip_forced);
        // Written out, the key is kept whatever the format.
        let written = "config_version: 2\nself_play:\n  search:\n    skip_forced: true\n";
        let kept = parse(written).unwrap();
        assert!(kept.self_play.search.skip_forced && !kept.evaluation.search.skip_forced);
    }

    #[test]
    fn format_3_keeps_the_default_run_length_it_had() {
        let current = parse("game: zertz\n").unwrap();
        assert_eq!((current.iterations, current.evaluation.every, current.checkpoints.every), (120, 10, 10));
        assert!(matches!(current.training.lr, LrSchedule::Cosine { total_steps: 7_200, .. }));
        let old = parse("config_version: 3\ngame: zertz\n").unwrap();
        assert_eq!((old.iterations, old.evaluation.every, old.checkpoints.every), (40, 5, 5));
        assert!(matches!(old.training.lr, LrSchedule::Cosine { base: 2e-3, warmup_steps: 100, total_steps: 2_400, min: 1e-4 }));
        assert_eq!(old.config_version, CONFIG_VERSION);
        // What the text writes stays as written.
        let written = "config_version: 3\niterations: 7\ntraining:\n  lr: { schedule: constant, base: 0.01 }\nevaluation:\n  every: 3\ncheckpoints:\n  every: 2\n";
        let kept = parse(written).unwrap();
        assert_eq!((kept.iterations, kept.evaluation.every, kept.checkpoints.every), (7, 3, 2));
        assert_eq!(kept.training.lr, LrSchedule::Constant { base: 0.01 });
        // A run's config saved by a build of format 3 resumes with the length it had.
        let saved = RunConfig::from_run_yaml("config_version: 3\n", "config.yaml").unwrap();
        assert_eq!(saved.iterations, 40);
    }

    #[test]
    fn format_1_with_a_cooled_gumbel_root_asks_which_meaning() {
        let schedule = "self_play:\n  search:\n    temperature:\n      - { from_move: 0, temperature: 1.0 }\n      - { from_move: 30, temperature: 0.0 }\n";
        let message = RunConfig::from_run_yaml(schedule, "config.yaml").unwrap_err().to_string();
        assert!(message.starts_with("config.yaml:4:7: self_play.search.temperature: "), "{message}");
        assert!(message.contains("config_version: 2"), "{message}");
        // Said explicitly, the schedule is honoured; a PUCT root always honoured it.
        let honoured = RunConfig::from_run_yaml(&format!("config_version: 2\n{schedule}"), "c").unwrap();
        assert_eq!(honoured.self_play.search.temperature.len(), 2);
        let puct = schedule.replace("  search:\n", "  search:\n    root_policy: puct\n");
        assert_eq!(RunConfig::from_run_yaml(&puct, "c").unwrap().self_play.search.temperature.len(), 2);
        // Noise at every move was the same in every build of format 1.
        let constant = "self_play:\n  search:\n    temperature: [{ from_move: 0, temperature: 1.0 }]\n";
        assert!(RunConfig::from_run_yaml(constant, "c").is_ok());
    }

    #[test]
    fn match_games_come_in_pairs() {
        let message = error_text("game: dvonn\nevaluation:\n  games: 7\n");
        assert!(message.starts_with("run.yaml:3:"), "{message}");
        assert!(message.contains("evaluation.games: must be an even number"), "{message}");
        let message = error_text("evaluation:\n  gating: { threshold: 0.55, games: 3 }\n");
        assert!(message.contains("evaluation.gating.games: must be an even number"), "{message}");
        let gate = parse("evaluation:\n  gating: { threshold: 0.5, against: \"rollout:1000\" }\n").unwrap();
        assert_eq!(gate.evaluation.gating.unwrap().against, Opponent::Rollout(1000));
        let default = parse("evaluation:\n  gating: { threshold: 0.55 }\n").unwrap();
        assert_eq!(default.evaluation.gating.unwrap().against, Opponent::Best);
        let message = error_text("evaluation:\n  gating:\n    threshold: 0.5\n    against: previous\n");
        assert!(message.starts_with("run.yaml:4:") && message.contains("evaluation.gating.against: gating is against best or a baseline"), "{message}");
        assert_eq!(parse("evaluation:\n  games: 8\n").unwrap().evaluation.games, 8);
    }

    #[test]
    fn a_partial_network_block_takes_the_rest_from_the_default() {
        let network = parse("network:\n  blocks: 5\n  channels: 48\n").unwrap().network;
        assert_eq!(network, NetConfig { blocks: 5, channels: 48, ..NetConfig::default() });
        assert_eq!((NetConfig::default().blocks, NetConfig::default().channels), (3, 32));
        assert_eq!(parse("game: lyngk\n").unwrap().network, NetConfig::default());
        let message = error_text("game: zertz\nnetwork:\n  block: 5\n");
        assert!(message.starts_with("run.yaml:3:3: unknown field `block`"), "{message}");
        let message = error_text("network:\n  channels: 32\n  norm_groups: 5\n");
        assert!(message.contains("network.norm_groups"), "{message}");
        let message = error_text("network:\n  blocks: 65\n");
        assert!(message.starts_with("run.yaml:2:11: network.blocks: must be at most 64"), "{message}");
    }

    #[test]
    fn evaluation_threads_are_bounded() {
        for (value, column) in [("0", 19), ("257", 19)] {
            let message = error_text(&format!("game: zertz\nevaluation:\n  parallel_games: {value}\n"));
            assert!(
                message.starts_with(&format!("run.yaml:3:{column}: evaluation.parallel_games: must be between 1 and 256")),
                "{message}"
            );
        }
        assert_eq!(parse("evaluation:\n  parallel_games: 2\n").unwrap().evaluation.parallel_games, 2);
        assert_eq!(parse("game: dvonn\n").unwrap().evaluation.parallel_games, 16);
    }

    #[test]
    fn root_value_weight_outside_zero_to_one_is_refused() {
        let message = error_text("game: dvonn\ntraining:\n  root_value_weight: 1.5\n");
        assert!(message.starts_with("run.yaml:3:"), "{message}");
        assert!(message.contains("root_value_weight"), "{message}");
    }

    #[test]
    fn wrong_type_is_located() {
        let text = "game: dvonn\ntraining:\n  batch_size: lots\n";
        let message = error_text(text);
        assert!(message.starts_with("run.yaml:3:15: "), "{message}");
    }

    #[test]
    fn bad_values_are_located_at_their_key() {
        let text = "game: dvonn\nreplay:\n  max_reuse: 0\n";
        let message = error_text(text);
        assert!(
            message.starts_with("run.yaml:3:14: replay.max_reuse: must be at least 1"),
            "{message}"
        );

        let text = "training:\n  lr:\n    schedule: cosine\n    base: 0.01\n    total_steps: 10\n    warmup_steps: 20\n";
        let message = error_text(text);
        assert!(
            message.starts_with("run.yaml:6:19: training.lr.warmup_steps:"),
            "{message}"
        );

        // A search setting checked by the search itself names the YAML key.
        let text = "self_play:\n  search:\n    gumbel:\n      max_considered: 0\n";
        let message = error_text(text);
        assert!(
            message.starts_with("run.yaml:4:23: self_play.search.gumbel.max_considered:"),
            "{message}"
        );

        // An opponent string is checked while parsing, at the string.
        let text = "evaluation:\n  opponents: [random, rollout:0]\n";
        let message = error_text(text);
        assert!(message.starts_with("run.yaml:2:23: "), "{message}");
        assert!(message.contains("rollout:0"), "{message}");

        // A value left at its default that conflicts with a written one is reported at the
        // nearest written ancestor.
        let text = "game: zertz\nvariant: huge\n";
        assert!(error_text(text).starts_with("run.yaml:2:10: variant: unknown"));
        let text = "training:\n  batch_size: 100000\n";
        let message = error_text(text);
        assert!(
            message.starts_with("run.yaml:1:1: replay.min_positions:"),
            "{message}"
        );
    }

    #[test]
    fn optimiser_and_schedule_tags_are_checked() {
        // The tag is located at its key.
        let message = error_text("training:\n  optimizer:\n    kind: rmsprop\n");
        assert!(
            message.starts_with("run.yaml:3:5: unknown variant `rmsprop`"),
            "{message}"
        );
        // Inside a tagged block serde buffers the mapping, so serde-saphyr can only point at
        // the block's key (see the module docs).
        let message = error_text("training:\n  optimizer:\n    kind: sgd\n    beta1: 0.9\n");
        assert!(
            message.starts_with("run.yaml:2:3: unknown field `beta1`"),
            "{message}"
        );
        let message = error_text("training:\n  optimizer:\n    kind: adam\n    beta1: abc\n");
        assert!(
            message.starts_with("run.yaml:2:3: invalid type"),
            "{message}"
        );
        let message = error_text("training:\n  lr:\n    schedule: cosine\n    base: 0.1\n");
        assert!(
            message.starts_with("run.yaml:2:3: missing field `total_steps`"),
            "{message}"
        );
    }

    #[test]
    fn learning_rate_schedules() {
        let cosine = LrSchedule::Cosine {
            base: 1.0,
            warmup_steps: 10,
            total_steps: 110,
            min: 0.0,
        };
        assert!((cosine.at(0) - 0.1).abs() < 1e-12);
        assert!((cosine.at(9) - 1.0).abs() < 1e-12);
        assert!((cosine.at(10) - 1.0).abs() < 1e-12);
        assert!((cosine.at(60) - 0.5).abs() < 1e-12);
        assert!(cosine.at(109) < 0.001);
        assert_eq!(cosine.at(500), 0.0);
        let step = LrSchedule::Step {
            base: 1.0,
            milestones: vec![5, 10],
            gamma: 0.1,
        };
        assert_eq!(step.at(4), 1.0);
        assert!((step.at(5) - 0.1).abs() < 1e-12);
        assert!((step.at(10) - 0.01).abs() < 1e-12);
        assert_eq!(LrSchedule::Constant { base: 0.3 }.at(1000), 0.3);
    }

    #[test]
    fn opponents_parse_and_print_back() {
        for text in [
            "random",
            "greedy",
            "rollout:200",
            "previous",
            "best",
            "checkpoint:runs/x/best",
        ] {
            assert_eq!(text.parse::<Opponent>().unwrap().to_string(), text);
        }
        for bad in ["rollout:", "rollout:0", "checkpoint:", "Random", "mcts"] {
            assert!(bad.parse::<Opponent>().is_err(), "{bad}");
        }
    }

    #[test]
    fn evaluation_search_has_no_noise() {
        let settings = SearchSettings::self_play(16);
        let search = settings.to_evaluation_search_config();
        assert_eq!(search.dirichlet, None);
        assert_eq!(search.simulations, 16);
        match search.root_policy {
            RootPolicy::Gumbel(g) => assert!(!g.noise),
            other => panic!("{other:?}"),
        }
    }
}
