//! `gipfzero train [CONFIG]`: runs (or resumes) the training run a YAML config describes.
//!
//! Without a config file the embedded default (`configs/default.yaml`) runs. `--print-config`
//! prints the fully resolved config and exits, which is also how to start a config of one's
//! own. `--resume RUN_DIR` continues a run with the config saved in its directory; running
//! again with the same config (and `run_dir`) does the same. Only `iterations` may change
//! between the two, which extends the run.
//!
//! `--run URL` puts the run in an object store (`s3://`, `gs://`, `az://`, `file:///` or a
//! folder), where `gipfzero worker URL` processes on any machines play its games
//! (docs/DISTRIBUTED.md): with a config it starts the run (or continues it, the config
//! being the same), without one it continues the run the store holds.
//!
//! The run itself is one library call, [`gipfzero_train::train`] (or
//! [`gipfzero_train::distributed::train_at`]); this module maps the arguments onto the config
//! and prints a line per iteration.
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
    /// Keep the run in an object store at this URL (s3://bucket/prefix, gs://…, az://…,
    /// file:///path) and gather its games from `gipfzero worker URL` processes instead of
    /// playing them (docs/DISTRIBUTED.md). Without CONFIG, continue the run stored there.
    #[arg(long, value_name = "URL", conflicts_with_all = ["resume", "run_dir"])]
    pub run: Option<String>,
    /// The trainer's local working directory with --run (emptied and filled from the store
    /// when the trainer starts); default: a folder per URL under ~/.cache/gipfzero/trainers.
    #[arg(long, value_name = "DIR", requires = "run")]
    pub work_dir: Option<PathBuf>,
    /// Print the fully resolved config and exit.
    #[arg(long)]
    pub print_config: bool,
}

pub fn run(args: TrainArgs) -> anyhow::Result<()> {
    let mut config = match (&args.run, &args.config, &args.resume) {
        (_, Some(path), _) => RunConfig::load(path)?,
        (Some(url), None, _) => {
            let store = gipfzero_store::object::RunStore::open(url)?;
            match gipfzero_train::distributed::stored_config(&store)? {
                Some(config) => config,
                None => anyhow::bail!("{url} holds no training run (no config.yaml): give the run's config to start one"),
            }
        }
        (None, None, Some(run_dir)) => {
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
        (None, None, None) => RunConfig::embedded_default(),
    };
    // A run at a URL works in a local directory of its own.
    if let Some(url) = &args.run {
        config.run_dir = args.work_dir.clone().unwrap_or_else(|| default_work_dir(url));
    }
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
    let game = format!("{}{}", config.game, variant.map_or_else(String::new, |variant| format!(" {variant}")));
    let Some(url) = &args.run else {
        eprintln!("training {game} in {} ({} iterations, device {})", config.run_dir.display(), config.iterations, config.device);
        gipfzero_train::train(&config, report)?;
        return Ok(());
    };
    eprintln!(
        "training {game} at {url} ({} iterations, device {}, working directory {}); its games come from `gipfzero worker {url}`",
        config.iterations,
        config.device,
        config.run_dir.display()
    );
    let notice: gipfzero_train::distributed::Notice = std::sync::Arc::new(|message: &str| eprintln!("{message}"));
    let traffic = gipfzero_train::distributed::train_at(url, &config, notice, report)?;
    eprintln!("store traffic: {traffic}");
    Ok(())
}

/// `~/.cache/gipfzero/trainers/<hash of the URL>` (or under `$XDG_CACHE_HOME`).
fn default_work_dir(url: &str) -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    cache.join("gipfzero").join("trainers").join(format!("{:016x}", gipfzero_model::checkpoint::fnv1a64(url.as_bytes())))
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
