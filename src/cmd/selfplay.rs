//! `gipfzero selfplay`: generates games by search and writes training shards and game
//! records (docs/DATASETS.md), and `gipfzero bench selfplay`, its throughput next to the
//! network's bare forward pass.
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, ValueEnum};
use gipfzero_games::registry::{GameName, GameSetting, GameVisitor};
use gipfzero_games::{Game, Spec};
use gipfzero_mcts::{
    Evaluator, PlayoutCap, RolloutEvaluator, RootPolicy, SearchConfig, UniformEvaluator,
};
use gipfzero_model::bench::forward_throughput;
use gipfzero_model::{DeviceChoice, NetConfig, Network, Precision};
use gipfzero_train::agents::{ServedNetwork, Serving};
use gipfzero_train::cpu::process_cpu_seconds;
use gipfzero_selfplay::{
    CapRule, LeagueConfig, ProgressReport, ResignConfig, RunSummary, Generator, GeneratorConfig,
};
use indicatif::{ProgressBar, ProgressStyle};

/// What evaluates the leaves when no checkpoint is given.
#[derive(Clone, Debug, PartialEq)]
pub enum EvaluatorChoice {
    /// Value 0, uniform priors: search over the rules alone.
    Uniform,
    /// Value from this many random playouts, uniform priors.
    Rollout(u32),
}

impl FromStr for EvaluatorChoice {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "uniform" => Ok(EvaluatorChoice::Uniform),
            _ => text
                .strip_prefix("rollout:")
                .and_then(|k| k.parse().ok())
                .filter(|&k| k > 0)
                .map(EvaluatorChoice::Rollout)
                .ok_or_else(|| format!("unknown evaluator \"{text}\": expected uniform or rollout:<playouts>")),
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum CapRuleArg {
    Draw,
    Score,
}

#[derive(Args, Debug)]
pub struct SelfplayArgs {
    /// zertz, dvonn or lyngk.
    pub game: GameName,
    /// ZÈRTZ board (standard when absent).
    #[arg(long)]
    pub variant: Option<String>,
    /// Games in the run (ids 0..N); a directory that already holds some continues.
    #[arg(long, default_value_t = 100)]
    pub games: u64,
    /// Output directory for shards and games.jsonl.
    #[arg(long)]
    pub out: PathBuf,
    /// A network checkpoint evaluates the positions (both sides).
    #[arg(long, conflicts_with = "evaluator")]
    pub checkpoint: Option<PathBuf>,
    /// Without a checkpoint: uniform, or rollout:<playouts>.
    #[arg(long, default_value = "uniform")]
    pub evaluator: EvaluatorChoice,
    /// Simulations per decision.
    #[arg(long, default_value_t = 200)]
    pub simulations: u32,
    /// Gumbel AlphaZero root search instead of PUCT with Dirichlet noise.
    #[arg(long)]
    pub gumbel: bool,
    /// Run seed: the same seed and evaluator give the same games.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Games played at once (the network's batch size).
    #[arg(long, default_value_t = 64)]
    pub in_flight: usize,
    /// Games are stopped after this many turns and scored by --cap-rule.
    #[arg(long, default_value_t = 1000)]
    pub max_turns: u32,
    #[arg(long, value_enum, default_value_t = CapRuleArg::Draw)]
    pub cap_rule: CapRuleArg,
    /// Positions per shard (shards hold whole games, so a shard may be a game larger).
    #[arg(long, default_value_t = 4096)]
    pub positions_per_shard: usize,
    /// Resign when the root value stays below this (off when absent).
    #[arg(long, allow_hyphen_values = true)]
    pub resign: Option<f32>,
    /// …for this many consecutive decisions of the same player.
    #[arg(long, default_value_t = 3)]
    pub resign_moves: u32,
    /// Fraction of games played out without resignation, to measure false resignations.
    #[arg(long, default_value_t = 0.1)]
    pub resign_disabled: f32,
    /// Device of the network: auto, cpu, cuda or cuda:N.
    #[arg(long, default_value = "auto")]
    pub device: DeviceChoice,
    /// f32, or bf16 (the network's forward passes; meant for GPUs), as a run's `precision`.
    #[arg(long, default_value = "f32", requires = "checkpoint")]
    pub precision: Precision,
    /// On a GPU, the network's passes replayed as CUDA graphs, as a run's
    /// `threads.cuda_graphs` (ignored on a CPU).
    #[arg(long, requires = "checkpoint")]
    pub cuda_graphs: bool,
    /// A league opponent (random, greedy or rollout:<sims>; repeat for several): a share of
    /// the games pits the searcher against one of them, drawn per game with its colour, and
    /// only the searcher's decisions are written as positions.
    #[arg(long = "league", value_name = "SPEC")]
    pub league: Vec<String>,
    /// The share of the games played against --league opponents.
    #[arg(long, default_value_t = 0.5, requires = "league")]
    pub league_share: f32,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(args: SelfplayArgs) -> anyhow::Result<()> {
    let setting = GameSetting { game: args.game, variant: args.variant.clone(), setup: None, seed: None };
    let summary = setting.start()?.visit(Generate { args: &args })?;
    print_summary(&summary);
    Ok(())
}

fn search_config(simulations: u32, gumbel: bool) -> SearchConfig {
    let mut config = SearchConfig { simulations, ..SearchConfig::default() };
    if gumbel {
        config.root_policy = RootPolicy::Gumbel;
        config.dirichlet = None;
    }
    config
}

struct Generate<'a> {
    args: &'a SelfplayArgs,
}

impl GameVisitor for Generate<'_> {
    type Output = anyhow::Result<RunSummary>;
    fn visit<G: Game>(self, start: G) -> Self::Output {
        let args = self.args;
        let spec = start.spec();
        // One worker per thread of `--threads`, each searching its share of the games.
        let workers = rayon::current_num_threads().min(args.in_flight.max(1));
        // The server (when a network plays) must outlive the run.
        let mut _server = None;
        let (evaluator, generator): (Box<dyn Evaluator<G>>, String) = match &args.checkpoint {
            Some(name) => {
                let serving = Serving { precision: args.precision, cuda_graphs: args.cuda_graphs, ..Serving::on(args.device) };
                let served = ServedNetwork::load(name, spec, serving, args.in_flight, workers)?;
                let evaluator = served.evaluator(0.0, args.seed)?;
                _server = Some(served);
                (Box::new(evaluator), format!("checkpoint {}", name.display()))
            }
            None => match args.evaluator {
                EvaluatorChoice::Uniform => (Box::new(UniformEvaluator), "uniform".into()),
                EvaluatorChoice::Rollout(k) => (Box::new(RolloutEvaluator::new(k, args.seed)), format!("rollout:{k}")),
            },
        };
        let config = GeneratorConfig {
            search: search_config(args.simulations, args.gumbel),
            games_in_flight: args.in_flight,
            games: args.games,
            max_turns: args.max_turns,
            cap_rule: match args.cap_rule {
                CapRuleArg::Draw => CapRule::Draw,
                CapRuleArg::Score => CapRule::Score,
            },
            resign: args.resign.map(|threshold| ResignConfig {
                threshold,
                consecutive: args.resign_moves,
                disabled_fraction: args.resign_disabled,
            }),
            positions_per_shard: args.positions_per_shard,
            seed: args.seed,
            workers,
            checkpoint: args.checkpoint.as_ref().map(|name| name.display().to_string()),
            generator,
            league: (!args.league.is_empty())
                .then(|| LeagueConfig { share: args.league_share, opponents: args.league.clone() }),
        };
        generate(start, config, &args.out, &evaluator, args.quiet)
    }
}

/// Runs self-play with an indicatif bar (hidden when `quiet`).
fn generate<G: Game, E: Evaluator<G>>(
    start: G,
    config: GeneratorConfig,
    out: &Path,
    evaluator: &E,
    quiet: bool,
) -> anyhow::Result<RunSummary> {
    let bar = if quiet { ProgressBar::hidden() } else { ProgressBar::new(config.games) };
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games, {msg} [{elapsed_precise}]")
            .expect("a valid progress template"),
    );
    let mut progress = |report: &ProgressReport| {
        bar.set_length(report.games_total);
        bar.set_position(report.games_done);
        let eta = report.eta().map_or("?".into(), |eta| format!("{}s", eta.as_secs()));
        bar.set_message(format!(
            "{} positions, {:.0} positions/s, {:.1} turns/game, eta {eta}",
            report.positions,
            report.positions_per_second(),
            report.average_game_length()
        ));
    };
    let mut selfplay = Generator::new(start, config, out)?;
    let summary = selfplay.run(evaluator, &mut progress).with_context(|| format!("self-play into {}", out.display()))?;
    bar.finish_and_clear();
    Ok(summary)
}

fn print_summary(summary: &RunSummary) {
    if summary.games_resumed > 0 {
        println!("{} games were already complete", summary.games_resumed);
    }
    println!(
        "{} games, {} positions in {} shards, {:.1} s ({:.0} positions/s)",
        summary.games_played,
        summary.positions,
        summary.shards_written,
        summary.elapsed.as_secs_f64(),
        summary.positions_per_second()
    );
    println!(
        "evaluator: {} calls, mean batch {:.1}, largest {}",
        summary.evaluator_calls,
        summary.mean_batch(),
        summary.largest_batch
    );
    if summary.resignations > 0 || summary.resignation_disabled_games > 0 {
        let rate = summary
            .false_resignation_rate()
            .map_or("n/a".into(), |rate| format!("{:.1} %", rate * 100.0));
        println!(
            "resignations: {}; played out {} games, {} would have resigned, {} of them wrongly (false resignation rate {rate})",
            summary.resignations,
            summary.resignation_disabled_games,
            summary.would_have_resigned,
            summary.false_resignations
        );
    }
}

/// `gipfzero bench selfplay`.
#[derive(Args, Debug)]
pub struct BenchSelfplayArgs {
    /// zertz, dvonn or lyngk.
    pub game: GameName,
    #[arg(long)]
    pub variant: Option<String>,
    /// Games played at once, shared out between the workers (one per thread of the global
    /// --threads).
    #[arg(long, default_value_t = 64)]
    pub in_flight: usize,
    #[arg(long, default_value_t = 32)]
    pub simulations: u32,
    /// Games in the run (default: as many as --in-flight); more games keep every worker busy
    /// for longer, so the measurement covers less of the run's tail.
    #[arg(long)]
    pub games: Option<u64>,
    /// The small test network instead of the 6 × 64 one (`NetConfig::medium`).
    #[arg(long, conflicts_with = "config")]
    pub tiny: bool,
    /// A run config whose network (shape, freshly initialised) plays instead.
    #[arg(long)]
    pub config: Option<PathBuf>,
    #[arg(long, default_value = "auto")]
    pub device: DeviceChoice,
    /// f32, or bf16 (the server's weights and inputs; meant for GPUs).
    #[arg(long, default_value = "f32")]
    pub precision: Precision,
    /// Inference server threads on a GPU (0: the default, as `threads.gpu_replicas`).
    #[arg(long, default_value_t = 0)]
    pub gpu_replicas: usize,
    /// Milliseconds a GPU batch waits for the rest of the workers' requests (as
    /// `threads.gpu_wait_ms`; 0 takes what is queued).
    #[arg(long, default_value_t = gipfzero_train::agents::DEFAULT_GPU_WAIT.as_secs_f64() * 1e3, value_parser = parse_gpu_wait_ms)]
    pub gpu_wait_ms: f64,
    /// Passes in CUDA graph buckets on a GPU (as `threads.cuda_graphs`); the bare figures
    /// then run the same way.
    #[arg(long)]
    pub cuda_graphs: bool,
    /// On a CPU, run the passes on inference server threads, each worker's requests handed
    /// over to one, instead of on the workers' own threads (for comparison).
    #[arg(long)]
    pub server_threads: bool,
    /// Worker counts to measure, comma-separated (`1,2`): each runs the same games, and the
    /// last line gives their speeds as ratios to the first; default the global --threads.
    #[arg(long, value_delimiter = ',')]
    pub workers: Vec<usize>,
    /// Measure every worker count this many times, the counts taking turns, and report the
    /// median of each (a shared machine's load drifts; turns and medians keep the ratios fair).
    #[arg(long, default_value_t = 1)]
    pub rounds: usize,
    /// KataGo's playout cap, FULL_PROBABILITY:CHEAP_SIMULATIONS (`0.25:8`): a search gets
    /// --simulations with that probability, else the cheap budget, as in self-play configs
    /// with `playout_cap`.
    #[arg(long, value_parser = parse_playout_cap)]
    pub playout_cap: Option<PlayoutCap>,
}

impl BenchSelfplayArgs {
    /// How the self-play's networks are served.
    fn serving(&self) -> Serving {
        Serving {
            device: self.device,
            precision: self.precision,
            gpu_replicas: self.gpu_replicas,
            gpu_wait: Duration::from_secs_f64(self.gpu_wait_ms / 1e3),
            cuda_graphs: self.cuda_graphs,
            cpu_server_threads: self.server_threads,
        }
    }

    /// How the bare passes that self-play is compared with run: as its server's do.
    fn pass_setting(&self) -> gipfzero_model::bench::PassSetting {
        let serving = self.serving();
        gipfzero_model::bench::PassSetting { device: serving.device, precision: serving.precision, cuda_graphs: serving.graphs_on_device() }
    }
}

/// `--gpu-wait-ms`: as `threads.gpu_wait_ms`, finite, from 0 to 1000.
fn parse_gpu_wait_ms(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(value) if gipfzero_train::agents::valid_gpu_wait_ms(value) => Ok(value),
        _ => Err(format!("expected milliseconds from 0 to 1000, found {text:?}")),
    }
}

fn parse_playout_cap(text: &str) -> Result<PlayoutCap, String> {
    let expected = || format!("\"{text}\": expected FULL_PROBABILITY:CHEAP_SIMULATIONS, for example 0.25:8");
    let (probability, cheap) = text.split_once(':').ok_or_else(expected)?;
    Ok(PlayoutCap {
        full_probability: probability.trim().parse().map_err(|_| expected())?,
        cheap_simulations: cheap.trim().parse().map_err(|_| expected())?,
    })
}

/// At most this many pass sizes are measured for [`bare_forward_of_passes`]: on a GPU one
/// replica gathers whatever is queued, and its passes take hundreds of sizes.
const MEASURED_PASS_SIZES: usize = 12;

/// The passes (size, count) grouped into at most `groups` runs of neighbouring sizes holding
/// about equal shares of the positions, each as (its mean pass size, its positions); sizes
/// stay apart while there are no more of them than `groups`. A pass costs about a fixed
/// launch time plus a time per position, so a group's passes take about as long as the same
/// positions in passes of the group's mean size.
fn pass_groups(passes: &[(usize, u64)], groups: usize) -> Vec<(usize, u64)> {
    let mut sorted: Vec<(usize, u64)> = passes.iter().copied().filter(|&(size, count)| size > 0 && count > 0).collect();
    sorted.sort_unstable();
    if sorted.len() <= groups.max(1) {
        return sorted.into_iter().map(|(size, count)| (size, size as u64 * count)).collect();
    }
    let total: u64 = sorted.iter().map(|&(size, count)| size as u64 * count).sum();
    let share = total.div_ceil(groups.max(1) as u64);
    let mut out = Vec::new();
    let (mut positions, mut count_in_group) = (0u64, 0u64);
    for (i, &(size, count)) in sorted.iter().enumerate() {
        positions += size as u64 * count;
        count_in_group += count;
        if positions >= share || i + 1 == sorted.len() {
            let mean = (positions as f64 / count_in_group as f64).round().max(1.0) as usize;
            out.push((mean, positions));
            positions = 0;
            count_in_group = 0;
        }
    }
    out
}

/// The bare forward pass's positions per second over passes of the sizes and numbers in
/// `passes` ((size, count), as the server reports them), on `replicas` replicas at once: each
/// size's rate measured on its own (for a time that grows with its share of the positions),
/// and the passes' positions over the time they would take at those rates. Self-play's passes
/// vary in size, and a small pass costs more per position than the mean size suggests. Many
/// sizes are measured as [`pass_groups`] of neighbouring sizes.
fn bare_forward_of_passes(spec: &Spec, net_config: &NetConfig, passes: &[(usize, u64)], args: &BenchSelfplayArgs, replicas: usize) -> anyhow::Result<f64> {
    let groups = pass_groups(passes, MEASURED_PASS_SIZES);
    let total: u64 = groups.iter().map(|&(_, positions)| positions).sum();
    let mut seconds = 0.0;
    for &(size, positions) in &groups {
        let share = positions as f64 / total.max(1) as f64;
        let duration = Duration::from_secs_f64(0.1 + 2.0 * share);
        let rate = forward_throughput(spec, net_config, &[size], args.pass_setting(), duration, replicas)?[0].positions_per_s;
        seconds += positions as f64 / rate;
    }
    Ok(total as f64 / seconds.max(1e-12))
}

pub fn bench(args: BenchSelfplayArgs) -> anyhow::Result<()> {
    let setting = GameSetting { game: args.game, variant: args.variant.clone(), setup: None, seed: None };
    setting.start()?.visit(Bench { args: &args })
}

struct Bench<'a> {
    args: &'a BenchSelfplayArgs,
}

impl GameVisitor for Bench<'_> {
    type Output = anyhow::Result<()>;
    fn visit<G: Game>(self, start: G) -> Self::Output {
        let args = self.args;
        let spec = start.spec();
        let net_config = match (&args.config, args.tiny) {
            (Some(path), _) => gipfzero_train::config::RunConfig::load(path)?.network,
            (None, true) => NetConfig::tiny(),
            (None, false) => NetConfig::medium(),
        };
        // Fresh weights from a fixed seed: every run of the bench plays the same games, so
        // runs of other settings (--server-threads, another binary) compare like with like.
        tch::manual_seed(0);
        let network = Network::new(spec, &net_config, args.device.resolve())?;
        // One worker per thread of `--threads` unless --workers says otherwise, as `gipfzero
        // selfplay` and training run.
        let counts = if args.workers.is_empty() { vec![rayon::current_num_threads()] } else { args.workers.clone() };
        // Per worker count, per round: positions evaluated per second, and their share of the
        // bare pass at the batch reached and over the passes run.
        let mut measured: Vec<Vec<f64>> = vec![Vec::new(); counts.len()];
        let mut shares: Vec<Vec<(f64, f64)>> = vec![Vec::new(); counts.len()];
        let serving = args.serving();
        for _ in 0..args.rounds.max(1) {
            for (k, &count) in counts.iter().enumerate() {
                let workers = count.clamp(1, args.in_flight.max(1));
                let served = ServedNetwork::serve_in(&network, spec, serving, args.in_flight, workers)?;
                let replicas = served.replicas();
                let evaluator = served.evaluator(0.0, 0)?;
                let out = std::env::temp_dir().join(format!("gipfzero-bench-selfplay-{}", std::process::id()));
                let config = GeneratorConfig {
                    search: SearchConfig { playout_cap: args.playout_cap.clone(), ..search_config(args.simulations, false) },
                    games_in_flight: args.in_flight,
                    games: args.games.unwrap_or(args.in_flight as u64),
                    workers,
                    generator: "bench".into(),
                    ..GeneratorConfig::default()
                };
                let cpu_before = process_cpu_seconds();
                let summary = generate(start.clone(), config, &out, &evaluator, true);
                let cpu = cpu_before.zip(process_cpu_seconds()).map(|(before, after)| after - before);
                let _ = std::fs::remove_dir_all(&out);
                let summary = summary?;
                // The passes the replicas ran: a replica gathers whatever requests are queued
                // into one pass, so they are not the workers' requests.
                let passes = served.pass_sizes();
                let on_workers = served.passes_on_searchers();
                drop(evaluator);
                drop(served);
                let wall = summary.elapsed.as_secs_f64().max(1e-9);
                let evaluated_per_s = summary.evaluated_positions as f64 / wall;
                let pass_count: u64 = passes.iter().map(|&(_, count)| count).sum();
                let pass_positions: u64 = passes.iter().map(|&(size, count)| size as u64 * count).sum();
                let mean_pass = pass_positions as f64 / pass_count.max(1) as f64;
                let batch = mean_pass.round().max(1.0) as usize;
                let forward = forward_throughput(spec, &net_config, &[batch], args.pass_setting(), Duration::from_secs(2), replicas)?;
                let bare = forward[0].positions_per_s;
                let bare_mix = bare_forward_of_passes(spec, &net_config, &passes, args, replicas)?;
                println!(
                    "{} {}: {} games, {} simulations, {} workers, {} network replicas ({} blocks x {} channels, {:?}), device {}, passes on {}",
                    spec.game, spec.variant, summary.games_played, args.simulations, workers, replicas, net_config.blocks, net_config.channels, args.precision, args.device,
                    if on_workers { "the workers' threads" } else { "server threads" }
                );
                println!(
                    "self-play: {:.0} positions/s written, {:.0} positions/s evaluated, requests of {:.1} positions (largest {}), forward passes of {:.1}, {:.1} s, {}",
                    summary.positions_per_second(),
                    evaluated_per_s,
                    summary.mean_batch(),
                    summary.largest_batch,
                    mean_pass,
                    wall,
                    cpu.map_or("CPU time unknown".into(), |cpu| format!("{:.2} cores busy", cpu / wall))
                );
                println!(
                    "bare forward on {replicas} replica{}: {bare:.0} positions/s at batch {batch}, {bare_mix:.0} over passes of the sizes self-play ran; self-play reaches {:.1} % and {:.1} % of them",
                    if replicas == 1 { "" } else { "s" },
                    100.0 * evaluated_per_s / bare,
                    100.0 * evaluated_per_s / bare_mix
                );
                measured[k].push(evaluated_per_s);
                shares[k].push((evaluated_per_s / bare, evaluated_per_s / bare_mix));
            }
        }
        let rounds = args.rounds.max(1);
        if rounds > 1 {
            // The bare pass drifts with the machine's load from round to round: the medians of
            // the shares, each taken against a bare pass measured seconds after its self-play.
            let lines: Vec<String> = counts
                .iter()
                .zip(&shares)
                .map(|(count, shares)| {
                    let at_batch = median(shares.iter().map(|share| share.0).collect());
                    let over_passes = median(shares.iter().map(|share| share.1).collect());
                    format!("{count} workers {:.1} % and {:.1} %", 100.0 * at_batch, 100.0 * over_passes)
                })
                .collect();
            println!("self-play's share of the bare forward pass at the batch reached and over the passes run (median of {rounds} rounds): {}", lines.join(", "));
        }
        if counts.len() > 1 {
            let medians: Vec<f64> = measured.into_iter().map(median).collect();
            let ratios: Vec<String> = counts
                .iter()
                .zip(&medians)
                .map(|(count, m)| format!("{count} workers {:.2}", m / medians[0]))
                .collect();
            println!("positions evaluated per second against {} workers (median of {rounds} rounds): {}", counts[0], ratios.join(", "));
        }
        Ok(())
    }
}

/// The median of `values` (the upper one of an even count); `values` is not empty.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::{median, pass_groups};

    #[test]
    fn the_median_is_the_middle_value_or_the_upper_middle() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 3.0);
        assert_eq!(median(vec![5.0]), 5.0);
    }

    #[test]
    fn few_pass_sizes_are_measured_apart() {
        assert_eq!(pass_groups(&[(64, 3), (8, 2), (0, 5), (32, 0)], 12), vec![(8, 16), (64, 192)]);
    }

    #[test]
    fn many_pass_sizes_form_groups_of_equal_shares_that_keep_every_position() {
        let passes: Vec<(usize, u64)> = (1..=512).map(|size| (size, 1 + (size % 3) as u64)).collect();
        let total: u64 = passes.iter().map(|&(size, count)| size as u64 * count).sum();
        let groups = pass_groups(&passes, 12);
        assert!(groups.len() <= 12 && groups.len() >= 10, "{groups:?}");
        assert_eq!(groups.iter().map(|&(_, positions)| positions).sum::<u64>(), total);
        // Neighbouring sizes: the mean sizes rise, and each lies inside the range of sizes.
        assert!(groups.windows(2).all(|pair| pair[0].0 < pair[1].0), "{groups:?}");
        assert!(groups.iter().all(|&(size, _)| (1..=512).contains(&size)));
        // Equal shares: no group but the last holds less than a twelfth.
        let share = total.div_ceil(12);
        assert!(groups[..groups.len() - 1].iter().all(|&(_, positions)| positions >= share));
    }
}
