//! Training and evaluation of gipfzero agents.
//!
//! - [`config`]: the YAML run configuration (game, network, search, replay window,
//!   optimiser, schedule, evaluation), with errors located at `file:line:column`.
//! - [`stats`]: match statistics — Elo differences with confidence intervals and the
//!   sequential probability ratio test that stops a match once its answer is clear.
//! - [`replay`]: the replay window (bounded by positions, generations and reuse) and the
//!   samples it holds ([`replay::Samples`], the self-play crate's type: the arrays of a shard).
//! - [`trainer`]: SGD steps (masked policy cross-entropy + value MSE) with its own Adam and
//!   SGD whose moments are saved in checkpoints, learning-rate schedules, and symmetry
//!   augmentation.
//! - [`run`]: the run directory — its layout, the resolved config (compared when a run resumes),
//!   resume counters (atomic), and the methods that write its metrics and plots.
//! - [`metrics`]: the metrics schema — per iteration and per rated checkpoint, as JSON Lines
//!   (appended and fsync'd, or replaced atomically), read back past a torn last line.
//! - [`plots`]: SVG charts of the learning curves, Elo and scores.
//! - [`cpu`]: the process's CPU time, the `cpu_s` of the metrics.
//! - [`pipeline`]: the loop itself (self-play → window → SGD → checkpoint → evaluation →
//!   gating, resumable), over the [`pipeline::SelfPlay`] and [`pipeline::Arena`] traits, and
//!   [`train`], a whole run from its config as one call.
//! - [`generation`]: self-play generations played with the network and stored as shards (the
//!   loop's [`pipeline::SelfPlay`]).
//! - [`evaluate`]: the match runner (evaluation matches between two agents) and the loop's
//!   [`pipeline::Arena`].
//! - [`distributed`]: a run at a URL — the trainer that gathers its generations from the
//!   workers' shards in an object store and mirrors its run directory there, the self-play
//!   worker and the evaluation worker.
//! - [`agents`]: the one factory from a checkpoint or network to a served network, the
//!   search's evaluator and an agent, for every command and the loop.
pub mod agents;
pub mod bench;
pub mod config;
pub mod cpu;
pub mod distributed;
pub mod evaluate;
pub mod generation;
pub mod metrics;
pub mod pipeline;
pub mod plots;
pub mod replay;
pub mod run;
pub mod stats;
pub mod trainer;

pub use pipeline::train;

/// Serialises the tests that seed libtorch's global generator (`tch::manual_seed`) and then
/// build networks, so that parallel tests do not draw from each other's stream.
#[cfg(test)]
pub(crate) static TORCH_RNG: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A directory for one test, `gipfzero-<name>-<process id>` in the system's temp dir, with
/// whatever an earlier run of the test left there removed (not created: the code under test
/// makes it).
#[cfg(test)]
pub(crate) fn fresh_test_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gipfzero-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}
