//! `gipfzero bench distributed`: a run at a URL (one trainer process and worker processes, as
//! users run them) against the in-process run of the same config and iterations, on this
//! machine: positions trained on per wall second, and what the store was asked for per
//! 1,000 positions (docs/PERFORMANCE.md, docs/DISTRIBUTED.md).
//!
//! Both sides are real `gipfzero` processes started from this binary, so that their set-up,
//! threads and store traffic are the ones a user gets; the figures come from their metrics
//! files and from the `store traffic:` line each run-at-a-URL process prints at its end.
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use gipfzero_store::object::Traffic;
use gipfzero_train::config::RunConfig;
use gipfzero_train::metrics::read_metrics;

#[derive(Args, Debug)]
pub struct BenchDistributedArgs {
    /// The run config (the embedded default when absent).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Iterations of each run.
    #[arg(long, default_value_t = 10)]
    pub iterations: u32,
    /// Worker processes beside the trainer.
    #[arg(long, default_value_t = 2)]
    pub workers: usize,
    /// Self-play threads of each worker process.
    #[arg(long, default_value_t = 1)]
    pub worker_threads: usize,
    /// Where the run at a URL lives (default: a folder under --dir; an s3:// URL takes its
    /// credentials and endpoint from the environment).
    #[arg(long)]
    pub url: Option<String>,
    /// A scratch folder for both runs (emptied first; default: one under the temp dir,
    /// removed afterwards).
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// One run's figures.
struct Measured {
    wall_s: f64,
    positions: u64,
}

fn gipfzero(args: &[&str], log: &Path) -> anyhow::Result<Child> {
    let exe = std::env::current_exe().context("the gipfzero binary's path")?;
    let log_file = std::fs::File::create(log).with_context(|| format!("{}", log.display()))?;
    Command::new(exe)
        .args(args)
        .stdout(Stdio::null())
        .stderr(log_file)
        .spawn()
        .with_context(|| format!("starting gipfzero {}", args.join(" ")))
}

fn wait(child: &mut Child, what: &str, log: &Path) -> anyhow::Result<()> {
    let status = child.wait()?;
    if !status.success() {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        anyhow::bail!("{what} failed ({status}); its log {}:\n{text}", log.display());
    }
    Ok(())
}

/// The positions a run trained on: the sum of its generations.
fn positions(run_dir: &Path) -> anyhow::Result<u64> {
    Ok(read_metrics(&run_dir.join("metrics.jsonl"))?.iter().map(|m| m.self_play.positions).sum())
}

/// The `store traffic:` line of a log.
fn traffic(log: &Path) -> anyhow::Result<Traffic> {
    let text = std::fs::read_to_string(log).with_context(|| format!("{}", log.display()))?;
    let line = text
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix("store traffic: "))
        .with_context(|| format!("{} has no store traffic line", log.display()))?;
    line.parse::<Traffic>().map_err(|why| anyhow::anyhow!("{}: {why}", log.display()))
}

pub fn run(args: BenchDistributedArgs) -> anyhow::Result<()> {
    let temporary = args.dir.is_none();
    let dir = args.dir.clone().unwrap_or_else(|| std::env::temp_dir().join(format!("gipfzero-bench-distributed-{}", std::process::id())));
    if dir.exists() {
        std::fs::remove_dir_all(&dir).with_context(|| format!("emptying {}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir)?;
    let config_path = match &args.config {
        Some(path) => path.clone(),
        None => {
            let path = dir.join("config.yaml");
            std::fs::write(&path, RunConfig::embedded_default().to_yaml())?;
            path
        }
    };
    let config = RunConfig::load(&config_path)?;
    let config_arg = config_path.to_str().context("a config path in UTF-8")?;
    let iterations = args.iterations.to_string();
    println!(
        "{} iterations of {} ({} games per generation), in one process against a trainer and {} worker processes of {} thread(s)",
        args.iterations,
        config_path.display(),
        config.self_play.games,
        args.workers,
        args.worker_threads
    );

    // The in-process run.
    let local_dir = dir.join("local");
    let local_log = dir.join("local.log");
    let began = Instant::now();
    let mut local = gipfzero(&["train", config_arg, "--run-dir", local_dir.to_str().unwrap(), "--iterations", &iterations], &local_log)?;
    wait(&mut local, "the in-process run", &local_log)?;
    let in_process = Measured { wall_s: began.elapsed().as_secs_f64(), positions: positions(&local_dir)? };

    // The run at a URL.
    let url = args.url.clone().unwrap_or_else(|| format!("file://{}", dir.join("store").display()));
    let trainer_dir = dir.join("trainer");
    let trainer_log = dir.join("trainer.log");
    let began = Instant::now();
    let mut trainer = gipfzero(
        &["train", config_arg, "--run", &url, "--work-dir", trainer_dir.to_str().unwrap(), "--iterations", &iterations],
        &trainer_log,
    )?;
    let threads = args.worker_threads.to_string();
    let mut workers = Vec::new();
    for k in 0..args.workers {
        let log = dir.join(format!("worker-{k}.log"));
        let work_dir = dir.join(format!("worker-{k}"));
        let child = gipfzero(&["worker", &url, "--workers", &threads, "--work-dir", work_dir.to_str().unwrap()], &log)?;
        workers.push((child, log));
    }
    let trained = wait(&mut trainer, "the trainer", &trainer_log);
    let wall_s = began.elapsed().as_secs_f64();
    // The workers stop once they see the run finished (after the round they are playing).
    let deadline = Instant::now() + Duration::from_secs(600);
    for (child, log) in &mut workers {
        while child.try_wait()?.is_none() && Instant::now() < deadline && trained.is_ok() {
            std::thread::sleep(Duration::from_millis(100));
        }
        if trained.is_err() || child.try_wait()?.is_none() {
            child.kill()?;
            child.wait()?;
        } else {
            wait(child, "a worker", log)?;
        }
    }
    trained?;
    let remote = Measured { wall_s, positions: positions(&trainer_dir)? };
    let trainer_traffic = traffic(&trainer_log)?;
    let mut worker_traffic = Traffic::default();
    for (_, log) in &workers {
        worker_traffic = worker_traffic + traffic(log)?;
    }

    let rate = |m: &Measured| m.positions as f64 / m.wall_s;
    println!("{:<34} {:>8} {:>10} {:>12}", "run", "wall s", "positions", "positions/s");
    println!("{:<34} {:>8.1} {:>10} {:>12.0}", "in one process", in_process.wall_s, in_process.positions, rate(&in_process));
    println!("{:<34} {:>8.1} {:>10} {:>12.0}", format!("trainer + {} workers at {}", args.workers, url_kind(&url)), remote.wall_s, remote.positions, rate(&remote));
    println!("ratio (at a URL / in one process): {:.3}", rate(&remote) / rate(&in_process));
    let per_1000 = |count: u64| 1000.0 * count as f64 / remote.positions.max(1) as f64;
    println!("store requests and bytes per 1,000 positions trained on:");
    println!("{:<10} {:>8} {:>8} {:>8} {:>8} {:>12} {:>12}", "role", "puts", "gets", "lists", "deletes", "MB written", "MB read");
    for (role, t) in [("trainer", trainer_traffic), ("workers", worker_traffic)] {
        println!(
            "{:<10} {:>8.1} {:>8.1} {:>8.1} {:>8.1} {:>12.3} {:>12.3}",
            role,
            per_1000(t.puts),
            per_1000(t.gets),
            per_1000(t.lists),
            per_1000(t.deletes),
            per_1000(t.bytes_written) / 1e6,
            per_1000(t.bytes_read) / 1e6
        );
    }
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(())
}

fn url_kind(url: &str) -> &str {
    url.split_once("://").map_or("a folder", |(scheme, _)| scheme)
}
