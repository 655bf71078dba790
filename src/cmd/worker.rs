//! `gipfzero worker URL`: a self-play worker of a run kept in an object store
//! (docs/DISTRIBUTED.md). It plays the network the run's trainer publishes and uploads its
//! games as shards until the run is finished; it keeps no state, so any number of them may run
//! on any machines and a killed one loses only its games in flight. With `--evaluate` it is
//! an evaluation worker instead: it rates the run's numbered checkpoints against the config's
//! evaluation opponents and writes the results beside the run.
use std::path::PathBuf;

use clap::Args;
use gipfzero_train::distributed::{evaluate_checkpoints, work, Notice, WorkerOptions};

#[derive(Args, Debug)]
pub struct WorkerArgs {
    /// The run's URL: s3://bucket/prefix, gs://…, az://…, file:///path or a folder.
    pub url: String,
    /// Self-play threads (each searching its share of the games in flight); 0 = one per core.
    #[arg(long, default_value_t = 0)]
    pub workers: usize,
    /// The device to play on (cpu, cuda, cuda:N, auto), instead of the run config's.
    #[arg(long)]
    pub device: Option<String>,
    /// Stop after this many uploaded shards (default: when the run is finished).
    #[arg(long, value_name = "N", conflicts_with = "evaluate")]
    pub shards: Option<u64>,
    /// Rate checkpoints instead of playing self-play games: every numbered checkpoint of the
    /// run against the config's evaluation opponents, once (evaluations/iter-NNNNNN.json),
    /// until the run is finished and all are rated.
    #[arg(long)]
    pub evaluate: bool,
    /// The folder for the games in play and the network (emptied when the worker starts);
    /// default: a fresh folder under the system's temp dir.
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
}

pub fn run(args: WorkerArgs) -> anyhow::Result<()> {
    let temporary = args.work_dir.is_none();
    let work_dir = args
        .work_dir
        .unwrap_or_else(|| std::env::temp_dir().join(format!("gipfzero-worker-{}", std::process::id())));
    let options = WorkerOptions { threads: args.workers, work_dir: work_dir.clone(), max_shards: args.shards, device: args.device };
    let notice: Notice = std::sync::Arc::new(|message: &str| eprintln!("{message}"));
    if args.evaluate {
        let summary = evaluate_checkpoints(&args.url, &options, notice)?;
        eprintln!("rated {} checkpoints", summary.rated.len());
        eprintln!("store traffic: {}", summary.traffic);
        if temporary {
            let _ = std::fs::remove_dir_all(&work_dir);
        }
        return Ok(());
    }
    let summary = work(&args.url, &options, notice)?;
    eprintln!("uploaded {} shards ({} games, {} positions)", summary.shards, summary.games, summary.positions);
    eprintln!("store traffic: {}", summary.traffic);
    if temporary {
        let _ = std::fs::remove_dir_all(&work_dir);
    }
    Ok(())
}
