//! The run directory: everything a training run leaves on disk, and the metrics it reports.
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
//! Plots are SVG drawn by `plotters` without any font library: plotters' built-in text
//! layout estimates glyph widths and the SVG carries the text as `<text>` elements, which
//! the viewer renders with its own fonts. Tests check the labels are present.
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use gipfzero_selfplay::LeagueTally;
use gipfzero_store::write_atomically;
use plotters::prelude::*;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::config::{ConfigError, RunConfig};
use crate::replay::ReplayState;
use crate::trainer::StepStats;

/// Why the run directory could not be used.
#[derive(Debug, Error)]
pub enum RunError {
    #[error("{path}: {source}")]
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

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> RunError + '_ {
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
        let mut line = serde_json::to_string(metrics).expect("metrics serialise");
        line.push('\n');
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(io_error(&path))?;
        file.write_all(line.as_bytes())
            .and_then(|()| file.sync_data())
            .map_err(io_error(&path))
    }

    /// Redraws `plots/learning.svg` and `plots/elo.svg` from the metrics so far.
    pub fn plot(&self, metrics: &[IterationMetrics]) -> Result<(), RunError> {
        plot_learning(metrics, &self.plots().join("learning.svg"))?;
        plot_elo(metrics, &self.plots().join("elo.svg"))
    }
}

/// The dotted paths where two configs differ (`training.lr.base`, `evaluation.opponents`),
/// with both values, sorted by path.
fn differing_keys(saved: &RunConfig, new: &RunConfig) -> Vec<String> {
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
    /// Seed of the next self-play generation (drawn from the master seed's stream).
    pub next_self_play_seed: u64,
}

/// The metrics of one iteration: one line of `metrics.jsonl`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IterationMetrics {
    pub iteration: u32,
    /// SGD steps taken by the end of the iteration.
    pub step: u64,
    /// Seconds since the run (this process) started.
    pub elapsed_s: f64,
    /// CPU seconds (user + system, all threads) the run's processes had used by the end of
    /// the iteration, summed over restarts: a resumed run adds its process's time to the
    /// last committed iteration's (work redone after a crash counts, since it was spent).
    /// The measure of training cost on shared machines, where wall time is not. `None` where
    /// the platform does not tell (and in metrics of builds before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_s: Option<f64>,
    pub self_play: SelfPlayMetrics,
    /// Means over the iteration's SGD steps; `None` when it did not train (window not ready).
    pub training: Option<TrainingMetrics>,
    pub evaluations: Vec<EvaluationMetrics>,
    /// Whether the new network became the champion (gating runs only).
    pub accepted: Option<bool>,
}

/// Replaces `path` with `items` as JSON Lines, one object per line, crash-safely
/// ([`write_atomically`]).
pub fn write_json_lines<T: Serialize>(path: &Path, items: &[T]) -> io::Result<()> {
    let mut lines = Vec::new();
    for item in items {
        serde_json::to_writer(&mut lines, item).map_err(io::Error::other)?;
        lines.push(b'\n');
    }
    write_atomically(path, &lines)
}

/// One checkpoint of a run rated afterwards against a fixed opponent (`gipfzero evaluate
/// --run`): a line of `ratings-NAME.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointRating {
    pub iteration: u32,
    /// The run's `cpu_s` at that iteration, when its metrics recorded it.
    pub cpu_s: Option<f64>,
    /// The checkpoint's simulations per decision (`None`: its default).
    pub simulations: Option<u32>,
    #[serde(flatten)]
    pub result: EvaluationMetrics,
}

/// CPU time (user + system, all threads) of this process so far, in seconds; `None` where
/// the platform does not tell.
pub fn process_cpu_seconds() -> Option<f64> {
    #[cfg(unix)]
    {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: getrusage writes a `rusage` into the pointer it is given, which points to
        // one; the zeroed value is a valid `rusage` (plain integers) should it not.
        let status = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) };
        if status != 0 {
            return None;
        }
        // SAFETY: initialised (zeroed, then filled by getrusage).
        let usage = unsafe { usage.assume_init() };
        let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        Some(seconds(usage.ru_utime) + seconds(usage.ru_stime))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

fn is_zero(count: &u64) -> bool {
    *count == 0
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SelfPlayMetrics {
    pub games: u32,
    pub positions: u64,
    pub seconds: f64,
    /// Positions played per second of self-play (resumed positions not counted).
    pub positions_per_second: f64,
    /// Positions of games a restarted run found stored for this generation and did not play
    /// again (0 but in the first iteration after a resume).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub positions_resumed: u64,
    /// Mean game length in actions.
    pub mean_game_length: f64,
    /// Positions in the replay window after adding this generation.
    pub window_positions: u64,
    /// The network's results in the generation's league games, per opponent (none without a
    /// league): a free reading of its strength against fixed players, every iteration.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub league: Vec<LeagueTally>,
}


#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TrainingMetrics {
    pub steps: u32,
    pub seconds: f64,
    pub lr: f64,
    pub loss: f64,
    pub policy_loss: f64,
    pub value_loss: f64,
    pub policy_entropy: f64,
    pub value_accuracy: Option<f64>,
}

impl TrainingMetrics {
    /// Means over `steps` (the learning rate of the last); `None` for no steps.
    pub fn from_steps(steps: &[StepStats], seconds: f64) -> Option<TrainingMetrics> {
        let last = steps.last()?;
        let n = steps.len() as f64;
        let mean = |f: fn(&StepStats) -> f64| steps.iter().map(f).sum::<f64>() / n;
        let accuracies: Vec<f64> = steps.iter().filter_map(|s| s.value_accuracy).collect();
        Some(TrainingMetrics {
            steps: steps.len() as u32,
            seconds,
            lr: last.lr,
            loss: mean(|s| s.loss),
            policy_loss: mean(|s| s.policy_loss),
            value_loss: mean(|s| s.value_loss),
            policy_entropy: mean(|s| s.policy_entropy),
            value_accuracy: (!accuracies.is_empty())
                .then(|| accuracies.iter().sum::<f64>() / accuracies.len() as f64),
        })
    }
}

/// One evaluation match, from the trained network's point of view.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EvaluationMetrics {
    pub opponent: String,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// (wins + draws/2) / games.
    pub score: f64,
    /// Elo difference and its confidence interval (`None` when infinite: all won or lost).
    pub elo: Option<f64>,
    pub elo_lower: Option<f64>,
    pub elo_upper: Option<f64>,
}

impl EvaluationMetrics {
    pub fn new(opponent: &str, report: &crate::evaluate::MatchReport) -> EvaluationMetrics {
        let results = report.results;
        let games = results.wins + results.draws + results.losses;
        let finite = |x: f64| x.is_finite().then_some(x);
        EvaluationMetrics {
            opponent: opponent.to_string(),
            wins: results.wins,
            draws: results.draws,
            losses: results.losses,
            score: if games == 0 {
                0.5
            } else {
                (results.wins as f64 + 0.5 * results.draws as f64) / games as f64
            },
            elo: finite(report.elo.elo),
            elo_lower: finite(report.elo.lower),
            elo_upper: finite(report.elo.upper),
        }
    }

    /// The Elo to draw for this match: its estimate, or for a match all won or all lost (an
    /// infinite estimate) the Elo of a score half a game short of it, so that the best
    /// results stay on the chart instead of vanishing from it. `None` for a match of no games.
    pub fn plotted_elo(&self) -> Option<f64> {
        let games = (self.wins + self.draws + self.losses) as f64;
        if games == 0.0 {
            return None;
        }
        self.elo.or_else(|| {
            let score = if self.score >= 0.5 { (games - 0.5) / games } else { 0.5 / games };
            Some(crate::stats::elo_from_score(score))
        })
    }
}

/// Reads `metrics.jsonl`: one record per iteration, the latest line winning for an iteration
/// written twice (before and after a restart), a torn last line ignored.
pub fn read_metrics(path: &Path) -> Result<Vec<IterationMetrics>, RunError> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(io_error(path)(error)),
    };
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let complete = text.ends_with('\n');
    let mut records: Vec<IterationMetrics> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        match serde_json::from_str::<IterationMetrics>(line) {
            Ok(record) => {
                records.retain(|r| r.iteration < record.iteration);
                records.push(record);
            }
            Err(_) if i + 1 == lines.len() && !complete => {}
            Err(error) => {
                return Err(RunError::Invalid {
                    path: path.to_path_buf(),
                    message: format!("line {}: {error}", i + 1),
                })
            }
        }
    }
    Ok(records)
}

const SERIES_COLOURS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// One chart: named series of (x, y) points; `y_range` fixes the vertical axis (otherwise
/// it spans the points).
fn line_chart(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    title: &str,
    x_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
    y_range: Option<(f64, f64)>,
) -> Result<(), String> {
    let points = series.iter().flat_map(|(_, p)| p.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in points {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if x1 - x0 < 1e-9 {
        x1 = x0 + 1.0;
    }
    // A flat series gets a margin of a tenth of its size (at least 0.01), not a sliver that
    // labels the axis in its fourth decimal.
    let pad = if y1 - y0 > 1e-9 { (y1 - y0) * 0.05 } else { (0.1 * y0.abs()).max(0.01) };
    let (y0, y1) = y_range.unwrap_or((y0 - pad, y1 + pad));
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(55)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, (name, points)) in series.iter().enumerate() {
        let colour = SERIES_COLOURS[i % SERIES_COLOURS.len()];
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                colour.stroke_width(2),
            ))
            .map_err(|e| e.to_string())?
            .label(name.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(2))
            });
    }
    if !series.is_empty() {
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Losses, policy entropy and value accuracy by iteration.
pub fn plot_learning(metrics: &[IterationMetrics], path: &Path) -> Result<(), RunError> {
    let series = |f: fn(&TrainingMetrics) -> Option<f64>| -> Vec<(f64, f64)> {
        metrics
            .iter()
            .filter_map(|m| {
                m.training
                    .as_ref()
                    .and_then(f)
                    .map(|y| (m.iteration as f64, y))
            })
            .filter(|(_, y)| y.is_finite())
            .collect()
    };
    let losses = vec![
        ("loss".to_string(), series(|t| Some(t.loss))),
        ("policy".to_string(), series(|t| Some(t.policy_loss))),
        ("value".to_string(), series(|t| Some(t.value_loss))),
    ];
    let other = vec![
        (
            "policy entropy".to_string(),
            series(|t| Some(t.policy_entropy)),
        ),
        (
            "value sign accuracy".to_string(),
            series(|t| t.value_accuracy),
        ),
    ];
    let draw = || -> Result<(), String> {
        let root = SVGBackend::new(path, (900, 700)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (top, bottom) = root.split_vertically(380);
        line_chart(&top, "Training losses", "iteration", &losses, None)?;
        line_chart(
            &bottom,
            "Policy entropy and value accuracy",
            "iteration",
            &other,
            None,
        )?;
        root.present().map_err(|e| e.to_string())
    };
    draw().map_err(|message| RunError::Plot {
        path: path.to_path_buf(),
        message,
    })
}

/// Per opponent, in the order first met, the points `(iteration, value)`.
fn evaluation_series(
    results: &[(u32, &EvaluationMetrics)],
    value: impl Fn(&EvaluationMetrics) -> Option<f64>,
) -> Vec<(String, Vec<(f64, f64)>)> {
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for &(iteration, e) in results {
        let Some(y) = value(e) else { continue };
        let point = (iteration as f64, y);
        match series.iter_mut().find(|(name, _)| *name == e.opponent) {
            Some((_, points)) => points.push(point),
            None => series.push((e.opponent.clone(), vec![point])),
        }
    }
    series
}

/// Elo (above) and score (below) against each evaluation opponent by iteration.
pub fn plot_elo(metrics: &[IterationMetrics], path: &Path) -> Result<(), RunError> {
    let results: Vec<(u32, &EvaluationMetrics)> =
        metrics.iter().flat_map(|m| m.evaluations.iter().map(move |e| (m.iteration, e))).collect();
    plot_results(&results, "evaluation opponents", path)
}

/// Elo (above) and score (below) of match results by iteration, a line per opponent;
/// `against` names them in the titles.
pub fn plot_results(results: &[(u32, &EvaluationMetrics)], against: &str, path: &Path) -> Result<(), RunError> {
    let elo = evaluation_series(results, EvaluationMetrics::plotted_elo);
    let score = evaluation_series(results, |e| Some(100.0 * e.score));
    let draw = || -> Result<(), String> {
        let root = SVGBackend::new(path, (900, 700)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (top, bottom) = root.split_vertically(380);
        line_chart(
            &top,
            &format!("Elo against {against} (all won or lost: drawn half a game short)"),
            "iteration",
            &elo,
            None,
        )?;
        line_chart(&bottom, &format!("Score against {against} (%)"), "iteration", &score, Some((0.0, 100.0)))?;
        root.present().map_err(|e| e.to_string())
    };
    draw().map_err(|message| RunError::Plot {
        path: path.to_path_buf(),
        message,
    })
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

    fn metrics(iteration: u32) -> IterationMetrics {
        IterationMetrics {
            iteration,
            step: iteration as u64 * 10,
            elapsed_s: iteration as f64,
            cpu_s: Some(iteration as f64 * 1.5),
            self_play: SelfPlayMetrics {
                games: 4,
                positions: 100,
                ..Default::default()
            },
            training: Some(TrainingMetrics {
                steps: 10,
                loss: 3.0 - iteration as f64 * 0.1,
                policy_loss: 2.0,
                value_loss: 1.0 - iteration as f64 * 0.1,
                policy_entropy: 1.5,
                value_accuracy: Some(0.6),
                ..Default::default()
            }),
            evaluations: vec![EvaluationMetrics {
                opponent: "rollout:200".into(),
                wins: iteration,
                draws: 0,
                losses: 1,
                score: 0.5,
                elo: Some(iteration as f64 * 50.0 - 100.0),
                elo_lower: None,
                elo_upper: None,
            }],
            accepted: None,
        }
    }

    #[test]
    fn metrics_append_and_read_back() {
        let dir = crate::fresh_test_dir("run-metrics");
        let run = RunDir::new(&dir);
        run.open(&RunConfig::embedded_default()).unwrap();
        for i in 0..3 {
            run.append_metrics(&metrics(i)).unwrap();
        }
        // A restart after iteration 1 redoes iteration 2, then a crash tears a line.
        run.append_metrics(&IterationMetrics {
            elapsed_s: 99.0,
            ..metrics(2)
        })
        .unwrap();
        let mut file = OpenOptions::new()
            .append(true)
            .open(run.metrics_path())
            .unwrap();
        file.write_all(b"{\"iteration\": 3, \"st").unwrap();
        drop(file);
        let read = read_metrics(&run.metrics_path()).unwrap();
        assert_eq!(read.len(), 3);
        assert_eq!(read[2].elapsed_s, 99.0);
        assert_eq!(read[1], metrics(1));
        fs::remove_dir_all(&dir).ok();
    }

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
    fn plots_are_svg_with_their_labels() {
        let dir = crate::fresh_test_dir("run-plots");
        let run = RunDir::new(&dir);
        run.open(&RunConfig::embedded_default()).unwrap();
        let records: Vec<_> = (0..5).map(metrics).collect();
        run.plot(&records).unwrap();
        let learning = fs::read_to_string(run.plots().join("learning.svg")).unwrap();
        assert!(
            learning.starts_with("<svg"),
            "{}",
            &learning[..60.min(learning.len())]
        );
        for label in [
            "Training losses",
            "policy entropy",
            "value sign accuracy",
            "iteration",
        ] {
            assert!(learning.contains(label), "{label} missing");
        }
        assert!(learning.contains("<polyline"), "no curves drawn");
        let elo = fs::read_to_string(run.plots().join("elo.svg")).unwrap();
        assert!(elo.contains("rollout:200"));
        assert!(elo.contains("Score against evaluation opponents"));
        // No data yet is still a (blank) chart, not an error.
        run.plot(&[]).unwrap();
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

    /// A perfect score has no finite Elo; the chart draws it half a game short of perfect
    /// rather than leaving it out (the runs that win every game were missing from it).
    #[test]
    fn perfect_scores_stay_on_the_elo_chart() {
        let result = |wins, draws, losses, elo: Option<f64>| {
            let games = (wins + draws + losses) as f64;
            EvaluationMetrics {
                opponent: "rollout:200".into(),
                wins,
                draws,
                losses,
                score: (wins as f64 + 0.5 * draws as f64) / games.max(1.0),
                elo,
                ..Default::default()
            }
        };
        let all_won = result(20, 0, 0, None).plotted_elo().unwrap();
        assert!((all_won - crate::stats::elo_from_score(19.5 / 20.0)).abs() < 1e-9, "{all_won}");
        let all_lost = result(0, 0, 20, None).plotted_elo().unwrap();
        assert!((all_lost + all_won).abs() < 1e-9, "{all_lost}");
        assert_eq!(result(19, 0, 1, Some(511.5)).plotted_elo(), Some(511.5));
        assert_eq!(result(0, 0, 0, None).plotted_elo(), None);
        let records: Vec<IterationMetrics> = [(19, 1, Some(511.5)), (20, 0, None)]
            .into_iter()
            .enumerate()
            .map(|(i, (wins, losses, elo))| IterationMetrics {
                evaluations: vec![result(wins, 0, losses, elo)],
                ..metrics(i as u32)
            })
            .collect();
        let results: Vec<(u32, &EvaluationMetrics)> = records.iter().map(|m| (m.iteration, &m.evaluations[0])).collect();
        let series = evaluation_series(&results, EvaluationMetrics::plotted_elo);
        assert_eq!(series.len(), 1);
        assert_eq!(series[0].1, [(0.0, 511.5), (1.0, all_won)]);
    }
}
