//! The run directory: everything a training run leaves on disk, and how a restart finds its
//! place in it.
//!
//! [`RunDir`] names the paths and writes the files; what the metrics and ratings files hold
//! is the metrics schema ([`crate::metrics`]), and the charts are drawn by [`crate::plots`].
//!
//! ```text
//! RUN_DIR/
//!   config.yaml          the fully resolved config the run started with
//!   resume.json          counters to continue after a crash (written atomically)
//!   metrics.jsonl        one JSON object per iteration, appended and fsync'd
//!   checkpoints/         latest.{safetensors,json}, iter-NNNNNN.*, best.* (gating)
//!   resume/              trainer-NNNNNN.*, best-NNNNNN.*: the networks resume.json names
//!   shards/              self-play shards, gen-NNNNNN-*.npz
//!   plots/               learning.svg, elo.svg (redrawn after every iteration),
//!                        ratings-NAME.svg
//!   ratings-NAME.jsonl   its checkpoints rated afterwards against one opponent
//!                        (`gipfzero evaluate --run`), one line per checkpoint
//! ```
//!
//! Crash safety: `metrics.jsonl` is appended one whole line at a time and synced, so a
//! crash loses at most the line being written; [`read_metrics`] ignores a torn last line.
//! `resume.json` is replaced atomically ([`gipfzero_store::write_atomically`]).
//! A restart trusts `resume.json` and the checkpoints it names; metrics lines of iterations
//! after it (written before the crash, redone after) are superseded by the newer ones when
//! read. The checkpoints it names are never overwritten: an iteration writes its own
//! (`resume/trainer-NNNNNN`, and `resume/best-NNNNNN` when the champion changed) before its
//! commit and deletes the ones they replace after it, so a crash anywhere in an iteration
//! (its evaluation included, after `latest` and `best` were already rewritten) resumes from
//! the networks of the iteration before, and no SGD step is applied twice.
//!
//! [`read_metrics`]: crate::metrics::read_metrics
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use gipfzero_store::write_atomically;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::config::{ConfigError, RunConfig};
use crate::metrics::{append_metrics_line, write_json_lines, CheckpointRating, EvaluationMetrics, IterationMetrics};
use crate::plots::{plot_elo, plot_learning, plot_results};
use crate::replay::ReplayState;

/// Why the run directory could not be used.
#[derive(Debug, Error)]
pub enum RunError {
    #[error("{path}")]
    Io { path: PathBuf, source: io::Error },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    /// The saved config.yaml cannot be read (the error names the file and place).
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("{path} holds a run with another configuration (it differs in {keys}); use another run_dir, the same config, or `gipfzero train --resume` with the run directory")]
    ConfigChanged { path: PathBuf, keys: String },
    #[error("cannot draw {path}: {message}")]
    Plot { path: PathBuf, message: String },
}

pub(crate) fn io_error(path: &Path) -> impl FnOnce(io::Error) -> RunError + '_ {
    move |source| RunError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The paths of a run directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunDir {
    root: PathBuf,
}

impl RunDir {
    pub fn new(root: impl Into<PathBuf>) -> RunDir {
        RunDir { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
    pub fn config_path(&self) -> PathBuf {
        self.root.join("config.yaml")
    }
    pub fn resume_path(&self) -> PathBuf {
        self.root.join("resume.json")
    }
    pub fn metrics_path(&self) -> PathBuf {
        self.root.join("metrics.jsonl")
    }
    pub fn checkpoints(&self) -> PathBuf {
        self.root.join("checkpoints")
    }
    pub fn shards(&self) -> PathBuf {
        self.root.join("shards")
    }
    pub fn plots(&self) -> PathBuf {
        self.root.join("plots")
    }
    /// The checkpoint name (without extension) written after `iteration`.
    pub fn iteration_checkpoint(&self, iteration: u32) -> PathBuf {
        self.checkpoints().join(format!("iter-{iteration:06}"))
    }
    /// The numbered checkpoints (`iter-NNNNNN`, both files present) by iteration: the
    /// iteration and the name without extension.
    pub fn iteration_checkpoints(&self) -> Result<Vec<(u32, PathBuf)>, RunError> {
        let directory = self.checkpoints();
        let mut found = Vec::new();
        for entry in fs::read_dir(&directory).map_err(io_error(&directory))? {
            let path = entry.map_err(io_error(&directory))?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            let Some(number) = name.strip_prefix("iter-").and_then(|n| n.strip_suffix(".json")) else { continue };
            let Ok(iteration) = number.parse::<u32>() else { continue };
            let stem = self.iteration_checkpoint(iteration);
            if stem.with_extension("safetensors").is_file() {
                found.push((iteration, stem));
            }
        }
        found.sort();
        Ok(found)
    }
    /// The name of a rating of the run's checkpoints against `opponent` with `simulations`
    /// (their default when `None`): `ratings-rollout-1000-s200`.
    pub fn ratings_name(opponent: &str, simulations: Option<u32>) -> String {
        let opponent: String = opponent.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
        match simulations {
            Some(simulations) => format!("ratings-{opponent}-s{simulations}"),
            None => format!("ratings-{opponent}"),
        }
    }
    /// The file of the ratings named `name` ([`RunDir::ratings_name`]).
    pub fn ratings_path(&self, name: &str) -> PathBuf {
        self.root.join(format!("{name}.jsonl"))
    }
    /// Their chart.
    pub fn ratings_plot(&self, name: &str) -> PathBuf {
        self.plots().join(format!("{name}.svg"))
    }
    /// Writes the ratings so far to [`RunDir::ratings_path`] (atomically: a kill leaves the
    /// old file or the new one) and draws [`RunDir::ratings_plot`].
    pub fn write_ratings(&self, name: &str, ratings: &[CheckpointRating]) -> Result<(), RunError> {
        let path = self.ratings_path(name);
        write_json_lines(&path, ratings).map_err(io_error(&path))?;
        let results: Vec<(u32, &EvaluationMetrics)> = ratings.iter().map(|r| (r.iteration, &r.result)).collect();
        fs::create_dir_all(self.plots()).map_err(io_error(&self.plots()))?;
        plot_results(&results, "the opponent", &self.ratings_plot(name))
    }
    pub fn latest_checkpoint(&self) -> PathBuf {
        self.checkpoints().join("latest")
    }
    pub fn best_checkpoint(&self) -> PathBuf {
        self.checkpoints().join("best")
    }
    /// The restart copies of the networks that `resume.json` names.
    pub fn resume_dir(&self) -> PathBuf {
        self.root.join("resume")
    }
    /// Where the trained network and optimiser after `iteration` are kept for a restart.
    pub fn resume_trainer(&self, iteration: u32) -> PathBuf {
        self.resume_dir().join(format!("trainer-{iteration:06}"))
    }
    /// Where the champion chosen in `iteration` is kept for a restart (gating).
    pub fn resume_best(&self, iteration: u32) -> PathBuf {
        self.resume_dir().join(format!("best-{iteration:06}"))
    }
    /// Where the network playing generation `generation` in the background is kept for a
    /// restart (`overlap`).
    pub fn resume_player(&self, generation: u64) -> PathBuf {
        self.resume_dir().join(format!("player-{generation:06}"))
    }

    /// Creates the directories and saves the resolved config, or — when the directory
    /// already holds a run — checks that it was started with the same config and returns its
    /// resume state (`None` when it never finished an iteration). Only `iterations` (a run
    /// can be extended) and `run_dir` (a run directory can be moved) may differ; the saved
    /// config is then rewritten, as it is when it was of an older format (upgraded on
    /// reading, see `RunConfig::load_run`).
    pub fn open(&self, config: &RunConfig) -> Result<Option<ResumeState>, RunError> {
        for dir in [
            self.root.clone(),
            self.resume_dir(),
            self.checkpoints(),
            self.shards(),
            self.plots(),
        ] {
            fs::create_dir_all(&dir).map_err(io_error(&dir))?;
        }
        let config_path = self.config_path();
        let yaml = config.to_yaml();
        match fs::read_to_string(&config_path) {
            Ok(saved) => {
                let saved_config =
                    RunConfig::from_run_yaml(&saved, &config_path.display().to_string())?;
                let comparable = RunConfig {
                    iterations: config.iterations,
                    run_dir: config.run_dir.clone(),
                    ..saved_config.clone()
                };
                if comparable != *config {
                    return Err(RunError::ConfigChanged {
                        path: config_path,
                        keys: differing_keys(&comparable, config).join(", "),
                    });
                }
                if saved != yaml {
                    write_atomically(&config_path, yaml.as_bytes())
                        .map_err(io_error(&config_path))?;
                }
            }
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                write_atomically(&config_path, yaml.as_bytes()).map_err(io_error(&config_path))?;
            }
            Err(error) => return Err(io_error(&config_path)(error)),
        }
        self.read_resume()
    }

    /// Deletes the files of `resume/` that are not of the checkpoints `state` names (those a
    /// commit replaced, or that an iteration wrote before a crash): called after each commit
    /// and at start. Best effort: a file that cannot be deleted is only disk space.
    pub fn prune_resume(&self, state: Option<&ResumeState>) {
        let named = state.map_or_else(Vec::new, |state| self.checkpoint_files(state));
        let Ok(entries) = fs::read_dir(self.resume_dir()) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if !named.contains(&path) {
                let _ = fs::remove_file(&path);
            }
        }
    }

    /// The files of the checkpoints `state` names (weights and sidecar of each).
    pub fn checkpoint_files(&self, state: &ResumeState) -> Vec<PathBuf> {
        std::iter::once(&state.checkpoint)
            .chain(&state.best)
            .chain(state.next_generation.as_ref().map(|next| &next.player))
            .flat_map(|name| {
                let paths = gipfzero_model::checkpoint::CheckpointPaths::new(self.root.join(name));
                [paths.weights, paths.sidecar]
            })
            .collect()
    }

    /// The saved resume state, if any.
    pub fn read_resume(&self) -> Result<Option<ResumeState>, RunError> {
        let path = self.resume_path();
        match fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| RunError::Invalid {
                    path,
                    message: e.to_string(),
                }),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(error) => Err(io_error(&path)(error)),
        }
    }

    /// Replaces the resume state atomically.
    pub fn write_resume(&self, state: &ResumeState) -> Result<(), RunError> {
        let path = self.resume_path();
        let json = serde_json::to_vec_pretty(state).expect("resume state serialises");
        write_atomically(&path, &json).map_err(io_error(&path))
    }

    /// Appends one iteration's metrics as a JSON line and syncs it to disk.
    pub fn append_metrics(&self, metrics: &IterationMetrics) -> Result<(), RunError> {
        let path = self.metrics_path();
        append_metrics_line(&path, metrics).map_err(io_error(&path))
    }

    /// Redraws `plots/learning.svg` and `plots/elo.svg` from the metrics so far.
    pub fn plot(&self, metrics: &[IterationMetrics]) -> Result<(), RunError> {
        plot_learning(metrics, &self.plots().join("learning.svg"))?;
        plot_elo(metrics, &self.plots().join("elo.svg"))
    }
}

/// The dotted paths where two configs differ (`training.lr.base`, `evaluation.opponents`),
/// with both values, sorted by path.
pub(crate) fn differing_keys(saved: &RunConfig, new: &RunConfig) -> Vec<String> {
    fn walk(path: &str, saved: &serde_json::Value, new: &serde_json::Value, out: &mut Vec<String>) {
        use serde_json::Value;
        match (saved, new) {
            (Value::Object(a), Value::Object(b)) => {
                for (key, value) in a {
                    let child = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                    walk(&child, value, b.get(key).unwrap_or(&Value::Null), out);
                }
            }
            (a, b) if a != b => out.push(format!("{path} (run: {a}, config: {b})")),
            _ => {}
        }
    }
    let mut out = Vec::new();
    let json = |config: &RunConfig| serde_json::to_value(config).expect("a run config serialises");
    walk("", &json(saved), &json(new), &mut out);
    out
}

/// What a restart needs besides the checkpoint and the shards (see the module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResumeState {
    /// Iterations completed.
    pub iteration: u32,
    /// SGD steps taken.
    pub step: u64,
    /// The checkpoint holding the network and optimiser after `iteration` (relative to the
    /// run directory).
    pub checkpoint: PathBuf,
    /// The gated champion, when gating is on.
    pub best: Option<PathBuf>,
    /// The replay window's counters and RNG ([`ReplayState`]).
    pub replay: ReplayState,
    /// The state of the master seed's stream (the next draw is the next seed it gives).
    pub next_self_play_seed: u64,
    /// With `overlap`: the next iteration's generation, fixed when this iteration began (and
    /// in play since, unless this was the last iteration), which a restart plays (again, from
    /// its complete shards) and an extended run plays as an uninterrupted one would have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_generation: Option<NextGeneration>,
}

/// The next generation's seed and player, fixed one iteration ahead (`overlap`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NextGeneration {
    pub generation: u64,
    pub seed: u64,
    /// The network playing it: a restart copy (relative to the run directory).
    pub player: PathBuf,
}

/// A file in the run directory for `path`, relative when it is inside the run directory.
pub fn relative_to(run: &RunDir, path: &Path) -> PathBuf {
    path.strip_prefix(run.root())
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{TrainingConfig, CONFIG_VERSION};

    #[test]
    fn resume_state_round_trips_and_config_is_checked() {
        let dir = crate::fresh_test_dir("run-resume");
        let run = RunDir::new(&dir);
        let config = RunConfig::embedded_default();
        assert_eq!(run.open(&config).unwrap(), None);
        let saved = RunConfig::load(&run.config_path()).unwrap();
        assert_eq!(saved, config);
        let state = ResumeState {
            iteration: 3,
            step: 180,
            checkpoint: PathBuf::from("checkpoints/latest"),
            best: None,
            replay: ReplayState {
                rng_state: 42,
                generations: Vec::new(),
            },
            next_self_play_seed: 7,
            next_generation: Some(NextGeneration { generation: 3, seed: 9, player: PathBuf::from("resume/player-000003") }),
        };
        run.write_resume(&state).unwrap();
        assert_eq!(run.open(&config).unwrap(), Some(state.clone()));
        let mut other = config.clone();
        other.seed += 1;
        let error = run.open(&other).unwrap_err();
        assert!(matches!(error, RunError::ConfigChanged { .. }), "{error}");
        assert!(error.to_string().contains("differs in seed (run: 1, config: 2)"), "{error}");
        // More iterations and another place: the same run, and the saved config says so.
        let mut moved = config.clone();
        moved.iterations += 5;
        moved.run_dir = PathBuf::from("elsewhere");
        assert_eq!(run.open(&moved).unwrap(), Some(state));
        assert_eq!(RunConfig::load_run(&run.config_path()).unwrap(), moved);
        fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_saved_config_of_format_1_resumes_with_its_old_meaning() {
        let dir = crate::fresh_test_dir("run-format-1");
        let run = RunDir::new(&dir);
        fs::create_dir_all(&dir).unwrap();
        // What the first builds wrote: no config_version, no root_value_weight.
        let current = RunConfig::embedded_default();
        let old_text: String = current
            .to_yaml()
            .lines()
            .filter(|line| !line.starts_with("config_version:") && !line.contains("root_value_weight:"))
            .map(|line| format!("{line}\n"))
            .collect();
        assert_eq!(old_text.lines().count() + 2, current.to_yaml().lines().count());
        fs::write(run.config_path(), &old_text).unwrap();
        // Resuming it with today's defaults would change its value target: refused, by name.
        let error = run.open(&current).unwrap_err();
        assert!(
            error.to_string().contains("training.root_value_weight (run: 0.0, config: 0.5)"),
            "{error}"
        );
        assert_eq!(fs::read_to_string(run.config_path()).unwrap(), old_text);
        // Its own config (as `train --resume` reads it) resumes, and is saved upgraded.
        let resumed = RunConfig::load_run(&run.config_path()).unwrap();
        assert_eq!(resumed.config_version, CONFIG_VERSION);
        assert_eq!(resumed.training.root_value_weight, 0.0);
        assert_eq!(
            resumed,
            RunConfig { training: TrainingConfig { root_value_weight: 0.0, ..current.training.clone() }, ..current.clone() }
        );
        assert_eq!(run.open(&resumed).unwrap(), None);
        let saved = fs::read_to_string(run.config_path()).unwrap();
        assert!(saved.starts_with(&format!("config_version: {CONFIG_VERSION}\n")), "{saved}");
        assert_eq!(RunConfig::load_run(&run.config_path()).unwrap(), resumed);
        // A saved config this build cannot read is an error at its place, named once.
        fs::write(run.config_path(), "config_version: 9\n").unwrap();
        let error = run.open(&current).unwrap_err().to_string();
        let place = format!("{}:1:", run.config_path().display());
        assert!(error.starts_with(&place) && error.matches("config.yaml").count() == 1, "{error}");
        fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_runs_checkpoints_are_rated_into_a_file_and_a_chart() {
        let dir = crate::fresh_test_dir("run-ratings");
        let run = RunDir::new(&dir);
        fs::create_dir_all(run.checkpoints()).unwrap();
        for name in ["iter-000019.json", "iter-000019.safetensors", "iter-000009.json", "iter-000009.safetensors", "iter-000029.json", "latest.json", "latest.safetensors"] {
            fs::write(run.checkpoints().join(name), "").unwrap();
        }
        // Numbered, both files present, in order; `latest` and a half-written one are not.
        let found = run.iteration_checkpoints().unwrap();
        assert_eq!(found, vec![(9, run.iteration_checkpoint(9)), (19, run.iteration_checkpoint(19))]);
        assert_eq!(RunDir::ratings_name("rollout:1000", Some(200)), "ratings-rollout-1000-s200");
        assert_eq!(RunDir::ratings_name("random", None), "ratings-random");
        let ratings: Vec<CheckpointRating> = [(9, 5), (19, 20)]
            .into_iter()
            .map(|(iteration, wins)| CheckpointRating {
                iteration,
                cpu_s: Some(iteration as f64 * 3.5),
                simulations: Some(200),
                result: EvaluationMetrics { opponent: "rollout:1000".into(), wins, losses: 20 - wins, score: wins as f64 / 20.0, ..Default::default() },
            })
            .collect();
        run.write_ratings("ratings-rollout-1000-s200", &ratings).unwrap();
        let text = fs::read_to_string(dir.join("ratings-rollout-1000-s200.jsonl")).unwrap();
        let read: Vec<CheckpointRating> = text.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
        assert_eq!(read, ratings);
        assert!(text.starts_with("{\"iteration\":9,\"cpu_s\":31.5,\"simulations\":200,\"opponent\":\"rollout:1000\",\"wins\":5,"), "{text}");
        let chart = fs::read_to_string(run.plots().join("ratings-rollout-1000-s200.svg")).unwrap();
        assert!(chart.contains("Score against the opponent") && chart.contains("rollout:1000"), "labels missing");
        assert!(chart.contains("<polyline"), "no curve drawn");
        fs::remove_dir_all(&dir).ok();
    }
}
