//! The metrics schema: what a run reports, one JSON object per line — an [`IterationMetrics`]
//! per iteration in `metrics.jsonl` (self-play, training, evaluations), a [`CheckpointRating`]
//! per checkpoint rated afterwards in `ratings-NAME.jsonl` — and the JSON Lines writing and
//! reading of those files.
//!
//! The types are the files' format: fields added after the first runs carry serde defaults,
//! so the metrics of older runs still read. Where the files lie, and the methods that write
//! them after each iteration, are the run directory's ([`crate::run::RunDir`]);
//! [`crate::plots`] draws the charts from these records.
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

use gipfzero_selfplay::LeagueTally;
use gipfzero_store::write_atomically;
use serde::{Deserialize, Serialize};

use crate::run::{io_error, RunError};
use crate::trainer::StepStats;

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

/// The text of `metrics.jsonl`, `None` when there is no file yet.
fn read_text(path: &Path) -> Result<Option<String>, RunError> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(io_error(path)(error)),
    }
}

/// The records of a `metrics.jsonl` text with their lines: one per iteration, the latest line
/// winning for an iteration written twice (before and after a restart), a torn last line
/// ignored; any other line that does not read is an error naming it.
fn records_with_lines<'t>(path: &Path, text: &'t str) -> Result<Vec<(IterationMetrics, &'t str)>, RunError> {
    let lines: Vec<&str> = text.split_inclusive('\n').filter(|l| !l.trim().is_empty()).collect();
    let mut records: Vec<(IterationMetrics, &str)> = Vec::new();
    for (i, &line) in lines.iter().enumerate() {
        match serde_json::from_str::<IterationMetrics>(line) {
            Ok(record) => {
                records.retain(|(r, _)| r.iteration < record.iteration);
                records.push((record, line));
            }
            Err(_) if i + 1 == lines.len() && !line.ends_with('\n') => {}
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

/// Reads `metrics.jsonl`: one record per iteration (see [`records_with_lines`]).
pub fn read_metrics(path: &Path) -> Result<Vec<IterationMetrics>, RunError> {
    let Some(text) = read_text(path)? else { return Ok(Vec::new()) };
    Ok(records_with_lines(path, &text)?.into_iter().map(|(record, _)| record).collect())
}

/// Rewrites `metrics.jsonl` to the lines of the committed iterations (those below
/// `committed`, each iteration's latest line, as [`read_metrics`] reads them), when it holds
/// more: a restart redoes the iterations after the commit point, and their lines written
/// before the kill would otherwise stay in the file beside the new ones. The rewrite is
/// atomic; a file that needs none is left alone.
pub fn keep_committed_metrics(path: &Path, committed: u32) -> Result<(), RunError> {
    let Some(text) = read_text(path)? else { return Ok(()) };
    let mut lines = String::new();
    for (record, line) in records_with_lines(path, &text)? {
        if record.iteration < committed {
            lines.push_str(line);
            if !line.ends_with('\n') {
                lines.push('\n');
            }
        }
    }
    if lines != text {
        write_atomically(path, lines.as_bytes()).map_err(io_error(path))?;
    }
    Ok(())
}

/// Appends one iteration's metrics to `path` as a JSON line and syncs it to disk (a crash
/// loses at most the line being written, which [`read_metrics`] then ignores).
pub fn append_metrics_line(path: &Path, metrics: &IterationMetrics) -> io::Result<()> {
    let mut line = serde_json::to_string(metrics).expect("metrics serialise");
    line.push('\n');
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    file.write_all(line.as_bytes())
        .and_then(|()| file.sync_data())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::config::RunConfig;
    use crate::run::RunDir;

    /// A record of `iteration` with made-up numbers (the plots' tests draw them too).
    pub(crate) fn metrics(iteration: u32) -> IterationMetrics {
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

        // Committed up to iteration 2 (iterations 0 and 1): the file keeps just their lines,
        // byte for byte, and reads back the same.
        let before = fs::read_to_string(run.metrics_path()).unwrap();
        keep_committed_metrics(&run.metrics_path(), 2).unwrap();
        let after = fs::read_to_string(run.metrics_path()).unwrap();
        let first_two: String = before.split_inclusive('\n').take(2).collect();
        assert_eq!(after, first_two);
        assert_eq!(read_metrics(&run.metrics_path()).unwrap(), read[..2]);
        // A file that holds only committed lines is left as it is.
        keep_committed_metrics(&run.metrics_path(), 2).unwrap();
        assert_eq!(fs::read_to_string(run.metrics_path()).unwrap(), after);
        // A line that does not read is an error naming it, not a line quietly dropped.
        fs::write(run.metrics_path(), format!("{after}{{\"iteration\": oops}}\n")).unwrap();
        let error = keep_committed_metrics(&run.metrics_path(), 2).unwrap_err();
        assert!(error.to_string().contains("metrics.jsonl") && format!("{error:?}").contains("line 3"), "{error:?}");
        fs::remove_dir_all(&dir).ok();
    }
}
