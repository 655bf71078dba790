//! `gipfzero train [CONFIG]`: runs (or resumes) the training run a YAML config describes.
//!
//! Without a config file the embedded default (`configs/default.yaml`) runs. `--print-config`
//! prints the fully resolved config and exits, which is also how to start a config of one's
//! own. `--resume RUN_DIR` continues a run with the config saved in its directory; running
//! again with the same config (and `run_dir`) does the same. Only `iterations` may change
//! between the two, which extends the run.
//!
//! The run itself is one library call, [`gipfzero_train::train`]; this module maps the
//! arguments onto the config and prints a line per iteration.
use std::path::PathBuf;

use clap::Args;
use gipfzero_games::registry::GameName;
use gipfzero_train::config::RunConfig;
use gipfzero_train::metrics::IterationMetrics;
use gipfzero_train::run::RunDir;

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// The run's YAML config; the embedded default when absent.
    pub config: Option<PathBuf>,
    /// Override the config's run directory.
    #[arg(long)]
    pub run_dir: Option<PathBuf>,
    /// Continue the run in this directory with the config it was started with (its
    /// config.yaml; one written by an older build keeps the meaning it had).
    #[arg(long, value_name = "RUN_DIR", conflicts_with_all = ["config", "run_dir"])]
    pub resume: Option<PathBuf>,
    /// Override the config's number of iterations (extends a finished run).
    #[arg(long)]
    pub iterations: Option<u32>,
    /// Start from this network instead of random weights: a checkpoint path or model:NAME
    /// (overrides the config's `init_from`; only a new run reads it).
    #[arg(long, value_name = "CHECKPOINT", conflicts_with = "resume")]
    pub init_from: Option<String>,
    /// Print the fully resolved config and exit.
    #[arg(long)]
    pub print_config: bool,
}

pub fn run(args: TrainArgs) -> anyhow::Result<()> {
    let mut config = match (&args.config, &args.resume) {
        (_, Some(run_dir)) => {
            let saved = RunDir::new(run_dir).config_path();
            anyhow::ensure!(
                saved.is_file(),
                "{} holds no training run (no config.yaml)",
                run_dir.display()
            );
            let mut config = RunConfig::load_run(&saved)?;
            config.run_dir = run_dir.clone();
            config
        }
        (Some(path), None) => RunConfig::load(path)?,
        (None, None) => RunConfig::embedded_default(),
    };
    if let Some(run_dir) = args.run_dir {
        config.run_dir = run_dir;
    }
    if let Some(from) = args.init_from {
        config.init_from = Some(from);
    }
    if let Some(iterations) = args.iterations {
        anyhow::ensure!(iterations >= 1, "--iterations must be at least 1");
        config.iterations = iterations;
    }
    if args.print_config {
        print!("{}", config.to_yaml());
        return Ok(());
    }
    let game: GameName = config.game.parse()?;
    let variant = (game == GameName::Zertz).then(|| config.variant_name());
    eprintln!(
        "training {}{} in {} ({} iterations, device {})",
        config.game,
        variant.map_or_else(String::new, |variant| format!(" {variant}")),
        config.run_dir.display(),
        config.iterations,
        config.device
    );
    gipfzero_train::train(&config, report)?;
    Ok(())
}

/// One line per iteration on stderr.
fn report(metrics: &IterationMetrics) {
    let training = metrics.training.as_ref().map_or_else(
        || "window filling".to_string(),
        |t| {
            format!(
                "loss {:.3} (policy {:.3}, value {:.3}), entropy {:.2}, lr {:.2e}",
                t.loss, t.policy_loss, t.value_loss, t.policy_entropy, t.lr
            )
        },
    );
    let league = metrics
        .self_play
        .league
        .iter()
        .map(|l| format!("{} {}-{}-{}", l.opponent, l.wins, l.draws, l.losses));
    let evaluations: Vec<String> = metrics
        .evaluations
        .iter()
        .map(|e| format!("{} {:.0}%", e.opponent, 100.0 * e.score))
        .chain(league.map(|text| format!("league {text}")))
        .collect();
    let resumed = match metrics.self_play.positions_resumed {
        0 => String::new(),
        n => format!(" ({n} positions resumed)"),
    };
    let cpu = metrics.cpu_s.map_or_else(String::new, |seconds| format!("  cpu {:.1} min", seconds / 60.0));
    eprintln!(
        "iteration {:>4}  step {:>6}{cpu}  {:.0} positions/s{resumed}  {}{}",
        metrics.iteration,
        metrics.step,
        metrics.self_play.positions_per_second,
        training,
        if evaluations.is_empty() { String::new() } else { format!("  | {}", evaluations.join(", ")) }
    );
}
