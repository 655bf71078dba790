//! `gipfzero bench …`: throughput of the pipeline's pieces, printed for people and recorded
//! in docs/PERFORMANCE.md. Timed loops on one thread (per-core figures) unless stated.
use std::time::{Duration, Instant};

use clap::Subcommand;
use gipfzero_games::registry::{GameName, GameSetting, GameVisitor};
use gipfzero_games::zertz::Variant;
use gipfzero_games::{record, Game, SplitMix64};
use gipfzero_mcts::{RootPolicy, Search, SearchConfig, SearchPool, UniformEvaluator};

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Random playouts: actions/s, turns/s and full games/s on one thread.
    Rules {
        /// zertz, dvonn or lyngk.
        game: GameName,
        /// ZÈRTZ board; every board when absent.
        #[arg(long)]
        variant: Option<String>,
        /// Seconds of measurement per variant.
        #[arg(long, default_value_t = 3.0, value_parser = crate::cmd::parse_seconds)]
        seconds: f64,
    },
    /// Training speed: one SGD step and the forward pass of a run config's network
    /// (the embedded default when no config is given), on the CPU.
    Train {
        /// zertz, dvonn or lyngk.
        game: GameName,
        /// ZÈRTZ board (standard when absent).
        #[arg(long)]
        variant: Option<String>,
        /// A run config whose network and optimiser to measure.
        #[arg(long)]
        config: Option<std::path::PathBuf>,
        #[arg(long, default_value_t = 256, value_parser = crate::cmd::parse_count)]
        batch: usize,
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
        steps: u32,
    },
    /// The network's forward pass at batch sizes 1…512, and end to end through the inference
    /// server (encoding aside: random planes), for a run config's network shape.
    Model {
        /// zertz, dvonn or lyngk.
        game: GameName,
        /// ZÈRTZ board (standard when absent).
        #[arg(long)]
        variant: Option<String>,
        /// A run config whose network to measure (the embedded default when absent).
        #[arg(long)]
        config: Option<std::path::PathBuf>,
        /// auto, cpu, cuda or cuda:N.
        #[arg(long, default_value = "auto")]
        device: gipfzero_model::DeviceChoice,
        /// f32, or bf16 (weights and inputs; meant for GPUs).
        #[arg(long, default_value = "f32")]
        precision: gipfzero_model::Precision,
        /// Seconds of measurement per figure.
        #[arg(long, default_value_t = 1.0, value_parser = crate::cmd::parse_seconds)]
        seconds: f64,
        /// Also the bare pass at batches 64 and 512 on this many threads at once, each with
        /// its own copy of the network (comma-separated: `2,4,8`), as the inference server's
        /// replicas run: whether passes launched side by side add up.
        #[arg(long, value_delimiter = ',')]
        replicas: Vec<usize>,
        /// Also every bare figure with the passes in CUDA graph buckets (as
        /// `threads.cuda_graphs`), and how far their answers are from plain passes'.
        #[arg(long)]
        cuda_graphs: bool,
    },
    /// Search overhead alone: simulations/s with the uniform evaluator, one tree and many
    /// trees in lockstep, and the memory of the trees.
    Mcts {
        /// zertz, dvonn or lyngk.
        game: GameName,
        /// ZÈRTZ board (standard when absent).
        #[arg(long)]
        variant: Option<String>,
        /// Simulations per search.
        #[arg(long, default_value_t = 800)]
        simulations: u32,
        /// Trees searched in lockstep in the batched runs.
        #[arg(long, default_value_t = 64, value_parser = crate::cmd::parse_count)]
        trees: usize,
    },
    /// Self-play with a fresh network: positions/s and the batch size reached, next to the
    /// bare forward pass at that batch size.
    Selfplay(crate::cmd::selfplay::BenchSelfplayArgs),
    /// A run at a URL (a trainer and worker processes) against the in-process run of the
    /// same config: positions/s, and store requests and bytes per 1,000 positions.
    Distributed(crate::cmd::distributed_bench::BenchDistributedArgs),
}

pub fn run(command: BenchCommand) -> anyhow::Result<()> {
    match command {
        BenchCommand::Rules { game, variant, seconds } => {
            let variants: Vec<Option<String>> = match (game, variant) {
                (_, Some(name)) => vec![Some(name)],
                (GameName::Zertz, None) => {
                    Variant::ALL.iter().map(|v| Some(v.name().to_string())).collect()
                }
                (_, None) => vec![None],
            };
            println!("random playouts, 1 thread, {seconds} s per variant");
            for variant in variants {
                let setting = GameSetting { game, variant, setup: None, seed: None };
                let figures = setting.start()?.visit(Playouts { duration: Duration::from_secs_f64(seconds) });
                println!("{figures}");
            }
            Ok(())
        }
        BenchCommand::Train { game, variant, config, batch, steps } => {
            let config = match config {
                Some(path) => gipfzero_train::config::RunConfig::load(&path)?,
                None => gipfzero_train::config::RunConfig::embedded_default(),
            };
            let setting = GameSetting { game, variant, setup: None, seed: None };
            setting.start()?.visit(TrainBench { config, batch, steps })
        }
        BenchCommand::Model { game, variant, config, device, precision, seconds, replicas, cuda_graphs } => {
            let config = match config {
                Some(path) => gipfzero_train::config::RunConfig::load(&path)?,
                None => gipfzero_train::config::RunConfig::embedded_default(),
            };
            let setting = GameSetting { game, variant, setup: None, seed: None };
            setting.start()?.visit(ModelBench { config, device, precision, duration: Duration::from_secs_f64(seconds), replicas, cuda_graphs })
        }
        BenchCommand::Mcts { game, variant, simulations, trees } => {
            let setting = GameSetting { game, variant, setup: None, seed: None };
            setting.start()?.visit(SearchBench { simulations, trees })
        }
        BenchCommand::Selfplay(args) => crate::cmd::selfplay::bench(args),
        BenchCommand::Distributed(args) => crate::cmd::distributed_bench::run(args),
    }
}

/// Positions to search: the start and `count − 1` positions reached by random turns from it
/// (a mix of opening and middle game), each at a turn start.
fn bench_positions<G: Game>(start: &G, count: usize) -> Vec<G> {
    (0..count)
        .map(|index| {
            let turns = (index * 7) % 24;
            record::random_game(&start.seeded_start(index as u64), index as u64, turns).position
        })
        .filter(|position| !position.status().is_over())
        .collect()
}

struct SearchBench {
    simulations: u32,
    trees: usize,
}

impl GameVisitor for SearchBench {
    type Output = anyhow::Result<()>;
    fn visit<G: Game>(self, start: G) -> Self::Output {
        let spec = start.spec();
        println!(
            "{} {}: uniform evaluator, {} simulations per search, 1 search thread unless stated",
            spec.game, spec.variant, self.simulations
        );
        println!(
            "node {} bytes + {} bytes per edge (one edge per legal action of an expanded node)",
            gipfzero_mcts::NODE_BYTES,
            gipfzero_mcts::EDGE_BYTES
        );
        let positions = bench_positions(&start, self.trees.max(1));
        for root in [RootPolicy::Puct, RootPolicy::Gumbel] {
            let name = match root {
                RootPolicy::Puct => "puct",
                RootPolicy::Gumbel => "gumbel",
                RootPolicy::Ucb1 => "ucb1",
            };
            let config = SearchConfig { simulations: self.simulations, ..SearchConfig::evaluation(self.simulations, root) };
            for (trees, parallel) in [(1, false), (positions.len(), false), (positions.len(), true)] {
                let mut pool = SearchPool::new();
                pool.set_parallel(parallel);
                for (index, position) in positions.iter().take(trees).enumerate() {
                    pool.push(Search::new(position.clone(), config.clone(), index as u64)?);
                }
                let began = Instant::now();
                let results = pool.run(&UniformEvaluator)?;
                let elapsed = began.elapsed().as_secs_f64();
                let simulations: u64 = results.iter().map(|r| r.simulations as u64).sum();
                let bytes: usize = pool.searches().iter().map(|s| s.tree_bytes()).sum();
                let nodes: usize = pool.searches().iter().map(|s| s.tree_size().0).sum();
                println!(
                    "{name:<7} {trees:>4} tree{} {:<8} {:>10.0} simulations/s  {:>6.1} bytes/node",
                    if trees == 1 { " " } else { "s" },
                    if parallel { "(rayon)" } else { "" },
                    simulations as f64 / elapsed,
                    bytes as f64 / nodes.max(1) as f64,
                );
            }
        }
        Ok(())
    }
}

/// What one timed run of random playouts measured.
struct PlayoutFigures {
    name: String,
    games: u64,
    turns: u64,
    actions: u64,
    elapsed: Duration,
}

impl std::fmt::Display for PlayoutFigures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let seconds = self.elapsed.as_secs_f64();
        write!(
            f,
            "{:<16} {:>12.0} actions/s {:>12.0} turns/s {:>10.1} games/s  ({:.1} turns/game)",
            self.name,
            self.actions as f64 / seconds,
            self.turns as f64 / seconds,
            self.games as f64 / seconds,
            self.turns as f64 / self.games.max(1) as f64,
        )
    }
}

struct Playouts {
    duration: Duration,
}

impl GameVisitor for Playouts {
    type Output = PlayoutFigures;
    fn visit<G: Game>(self, start: G) -> PlayoutFigures {
        let mut rng = SplitMix64::new(1);
        let mut actions = Vec::with_capacity(start.spec().action_count);
        let (mut games, mut turns, mut applied) = (0u64, 0u64, 0u64);
        let began = Instant::now();
        while began.elapsed() < self.duration {
            let length = record::random_playout(&mut start.clone(), &mut rng, &mut actions);
            applied += length.actions;
            turns += length.turns;
            games += 1;
        }
        let spec = start.spec();
        PlayoutFigures {
            name: format!("{} {}", spec.game, spec.variant),
            games,
            turns,
            actions: applied,
            elapsed: began.elapsed(),
        }
    }
}

struct TrainBench {
    config: gipfzero_train::config::RunConfig,
    batch: usize,
    steps: u32,
}

impl GameVisitor for TrainBench {
    type Output = anyhow::Result<()>;
    fn visit<G: Game>(self, start: G) -> Self::Output {
        let net = &self.config.network;
        let figures =
            gipfzero_train::bench::measure(&start, net, &self.config.training, self.batch, self.steps)?;
        let spec = start.spec();
        println!(
            "{} {}: {} blocks x {} channels ({} parameters), libtorch intra-op threads {}",
            spec.game,
            spec.variant,
            net.blocks,
            net.channels,
            figures.parameters,
            tch::get_num_threads()
        );
        println!(
            "SGD step, batch {}: {:.1} ms ({:.0} positions/s); forward pass: {:.0} positions/s",
            figures.batch,
            figures.step.as_secs_f64() * 1e3,
            figures.batch as f64 / figures.step.as_secs_f64(),
            figures.forward_positions_per_second
        );
        Ok(())
    }
}

struct ModelBench {
    config: gipfzero_train::config::RunConfig,
    device: gipfzero_model::DeviceChoice,
    precision: gipfzero_model::Precision,
    duration: Duration,
    replicas: Vec<usize>,
    cuda_graphs: bool,
}

impl GameVisitor for ModelBench {
    type Output = anyhow::Result<()>;
    fn visit<G: Game>(self, start: G) -> Self::Output {
        use gipfzero_model::bench::{forward_throughput, graph_difference, server_throughput, PassSetting};
        use gipfzero_model::inference::ServerConfig;
        let spec = start.spec();
        let net = &self.config.network;
        println!(
            "{} {}: {} blocks x {} channels on {} ({}), {:?}, libtorch intra-op threads {}",
            spec.game,
            spec.variant,
            net.blocks,
            net.channels,
            self.device,
            format!("{:?}", self.device.resolve()).to_lowercase(),
            self.precision,
            tch::get_num_threads()
        );
        let batches = [1, 8, 64, 256, 512];
        let plain = PassSetting::plain(self.device, self.precision);
        let graphed = PassSetting { cuda_graphs: true, ..plain };
        let mut settings = vec![("bare forward ", plain)];
        if self.cuda_graphs {
            settings.push(("cuda graphs  ", graphed));
        }
        for &(label, setting) in &settings {
            for figure in forward_throughput(spec, net, &batches, setting, self.duration, 1)? {
                println!("{label}   batch {:>4}: {:>10.0} positions/s", figure.batch, figure.positions_per_s);
            }
            for &replicas in &self.replicas {
                for figure in forward_throughput(spec, net, &[64, 512], setting, self.duration, replicas)? {
                    println!("{label}   batch {:>4} x {replicas} replicas: {:>10.0} positions/s", figure.batch, figure.positions_per_s);
                }
            }
        }
        if self.cuda_graphs {
            for (batch, difference) in graph_difference(spec, net, &[1, 8, 50, 64, 256, 512], graphed)? {
                println!("cuda graphs     batch {batch:>4}: largest difference from a plain pass {difference:.3e}");
            }
        }
        for (clients, request) in [(1, 64), (4, 64)] {
            let config = ServerConfig { max_batch: 256, device: self.device, precision: self.precision, ..ServerConfig::default() };
            let rate = server_throughput(spec, net, config, clients, request, self.duration)?;
            println!("server {clients} client{} x {request}: {rate:>10.0} positions/s", if clients == 1 { " " } else { "s" });
        }
        Ok(())
    }
}
