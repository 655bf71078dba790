//! `gipfzero evaluate`: a match between two agents with wins/draws/losses, an Elo difference
//! with its confidence interval, and an optional SPRT that stops once the answer is clear.
use anyhow::Context;
use clap::Args;
use gipfzero_games::registry::{GameName, GameSetting, GameVisitor};
use gipfzero_games::Game;
use gipfzero_play::{AgentSource, TimeTally, TimedAgent};
use std::sync::Arc;

use gipfzero_train::agents::{AgentChoice, AgentFactory, CheckpointSearch};
use gipfzero_train::evaluate::{is_even_game_count, opening, run_match, MatchReport, MatchSettings, Side};
use gipfzero_train::metrics::{read_metrics, write_json_lines, CheckpointRating, EvaluationMetrics};
use gipfzero_train::run::RunDir;
use gipfzero_train::stats::{fit_elo, Pairing, Sprt, SprtDecision};
use indicatif::{ProgressBar, ProgressStyle};

#[derive(Args, Debug)]
pub struct EvaluateArgs {
    /// zertz, dvonn or lyngk.
    pub game: GameName,
    /// The first agent: random, greedy, rollout:<simulations> or checkpoint:<path>; with
    /// `--run`, the opponent every checkpoint of the run plays.
    #[arg(required_unless_present = "round_robin")]
    pub first: Option<String>,
    /// The second agent, likewise.
    #[arg(required_unless_present_any = ["round_robin", "run"])]
    pub second: Option<String>,
    /// Instead of two agents: every numbered checkpoint of the training run RUN_DIR
    /// (`checkpoints/iter-NNNNNN`) plays the one agent given (`--games` each), for a run
    /// trained without evaluations or against another opponent. The results, with the run's
    /// CPU time at each checkpoint, go to `RUN_DIR/ratings-<agent>[-s<simulations>].jsonl`
    /// (rewritten after every checkpoint) and a chart to `RUN_DIR/plots/` of the same name.
    #[arg(long, value_name = "RUN_DIR", conflicts_with_all = ["round_robin", "second", "sprt", "records"])]
    pub run: Option<std::path::PathBuf>,
    /// Instead of two agents: every checkpoint in DIR plays every other (`--games` each
    /// pairing), and an Elo table is fitted to all the results.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["first", "second", "sprt"])]
    pub round_robin: Option<std::path::PathBuf>,
    /// ZÈRTZ board (standard when absent).
    #[arg(long)]
    pub variant: Option<String>,
    /// Simulations per decision of checkpoint agents (their default when absent).
    #[arg(long)]
    pub simulations: Option<u32>,
    /// Both agents think the same wall-clock time per turn (e.g. 1000ms, 1.5s) instead of a
    /// number of simulations: each measures its own speed and sizes its searches to fit
    /// (`gipfzero_play::TimedAgent`), so a network and `rollout:N` meet at equal time (N is
    /// then ignored; random and greedy do not search). Play the games one at a time
    /// (`--threads 1`) for times that mean what they say.
    #[arg(long, value_name = "TIME", value_parser = parse_move_time, conflicts_with_all = ["simulations", "gumbel", "rollout_mix", "round_robin", "run"])]
    pub move_time: Option<std::time::Duration>,
    /// Checkpoint agents search with a Gumbel root (sequential halving over the prior's top
    /// actions, no noise) instead of PUCT.
    #[arg(long)]
    pub gumbel: bool,
    /// Checkpoint agents blend this weight of a random playout's result into each leaf's
    /// network value (AlphaGo's mixing λ; 0 is the network alone).
    #[arg(long, default_value_t = 0.0, value_name = "W")]
    pub rollout_mix: f32,
    /// Number of games (an even number: pairs share a start with colours swapped).
    #[arg(long, default_value_t = 20, value_parser = even_games)]
    pub games: u32,
    /// Games still running after this many turns count as draws.
    #[arg(long, default_value_t = 1000)]
    pub max_turns: usize,
    /// Uniformly random turns that open each pair of games (searches without noise would
    /// otherwise repeat the same games from a fixed start).
    #[arg(long, default_value_t = 2)]
    pub opening_turns: usize,
    /// Seed of the agents, of the openings and of LYNGK's set-ups.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Stop early with an SPRT of H0: Elo = ELO0 against H1: Elo = ELO1 (alpha = beta = 0.05).
    #[arg(long, value_name = "ELO0,ELO1")]
    pub sprt: Option<String>,
    /// Write every game of the match to FILE, one JSON object per line: set-up, turns in
    /// record notation (the random opening first), result, and which colour the first agent
    /// played.
    #[arg(long, value_name = "FILE", conflicts_with = "round_robin")]
    pub records: Option<std::path::PathBuf>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// `--move-time`: milliseconds (`1000ms`) or seconds (`1s`, `1.5s`), above 0.
fn parse_move_time(text: &str) -> Result<std::time::Duration, String> {
    let expected = || format!("expected a time per turn such as 1000ms or 1.5s, found {text:?}");
    let (number, scale) = match text.strip_suffix("ms") {
        Some(number) => (number, 1e-3),
        None => (text.strip_suffix('s').ok_or_else(expected)?, 1.0),
    };
    match number.trim().parse::<f64>() {
        Ok(value) if value.is_finite() && value > 0.0 => Ok(std::time::Duration::from_secs_f64(value * scale)),
        _ => Err(expected()),
    }
}

/// `--games`: an even number, at least 2.
pub(crate) fn even_games(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(games) if is_even_game_count(games) => Ok(games),
        _ => Err(format!(
            "expected an even number of games, at least 2 (games come in pairs that share a start, colours swapped), found {text:?}"
        )),
    }
}

pub fn run(args: EvaluateArgs) -> anyhow::Result<()> {
    let sprt = args.sprt.as_deref().map(parse_sprt).transpose()?;
    let setting = GameSetting { game: args.game, variant: args.variant.clone(), setup: None, seed: None };
    let settings = MatchSettings { games: args.games, max_turns: args.max_turns, confidence: 0.95, sprt };
    if let Some(directory) = &args.round_robin {
        return round_robin(&args, &setting, &settings, directory);
    }
    if let (Some(directory), Some(opponent)) = (&args.run, &args.first) {
        return rate_run(&args, &setting, &settings, directory, opponent);
    }
    let (Some(first), Some(second)) = (&args.first, &args.second) else {
        anyhow::bail!("give two agents, or --round-robin DIR, or --run RUN_DIR and one agent");
    };
    let tallies = [Arc::new(TimeTally::default()), Arc::new(TimeTally::default())];
    // The match loads both agents (and checks them against the game) before any game starts.
    let report = setting.start()?.visit(Match { args: &args, first, second, settings: &settings, tallies: &tallies })?;
    print_report(&args, first, second, &report);
    if args.move_time.is_some() {
        let mean = |tally: &TimeTally| tally.mean().map_or("-".to_string(), |t| format!("{:.0} ms", t.as_secs_f64() * 1e3));
        println!(
            "time per turn (measured): {first} {} over {} turns, {second} {} over {} turns",
            mean(&tallies[0]),
            tallies[0].turns(),
            mean(&tallies[1]),
            tallies[1].turns()
        );
    }
    if let Some(path) = &args.records {
        write_records(path, &report)?;
        println!("records: {} ({} games)", path.display(), report.games.len());
    }
    Ok(())
}

/// The match's games as JSON Lines, written atomically (a crash leaves the old file or none).
fn write_records(path: &std::path::Path, report: &MatchReport) -> anyhow::Result<()> {
    write_json_lines(path, &report.games).with_context(|| format!("cannot write the records to {}", path.display()))
}

/// The checkpoints of a directory (`NAME.json` beside `NAME.safetensors`), by name.
fn checkpoints_in(directory: &std::path::Path) -> anyhow::Result<Vec<String>> {
    let mut names: Vec<String> = std::fs::read_dir(directory)
        .with_context(|| format!("reading {}", directory.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "json") && path.with_extension("safetensors").is_file())
        .map(|path| format!("checkpoint:{}", path.with_extension("").display()))
        .collect();
    names.sort();
    anyhow::ensure!(names.len() >= 2, "{}: a round robin needs at least two checkpoints", directory.display());
    Ok(names)
}

fn round_robin(
    args: &EvaluateArgs,
    setting: &GameSetting,
    settings: &MatchSettings,
    directory: &std::path::Path,
) -> anyhow::Result<()> {
    let players = checkpoints_in(directory)?;
    setting.start()?.visit(CheckAgents { specs: &players })?;
    let mut pairings = Vec::new();
    for first in 0..players.len() {
        for second in first + 1..players.len() {
            let report = setting.start()?.visit(Match {
                args,
                first: &players[first],
                second: &players[second],
                settings,
                tallies: &Default::default(),
            })?;
            if !args.quiet {
                print_report(args, &players[first], &players[second], &report);
            }
            pairings.push(Pairing { first, second, results: report.results });
        }
    }
    let ratings = fit_elo(players.len(), &pairings);
    let mut order: Vec<usize> = (0..players.len()).collect();
    order.sort_by(|a, b| ratings[*b].total_cmp(&ratings[*a]));
    println!("{:>4}  {:>7}  {:>6}  {:>5}  agent", "rank", "elo", "score", "games");
    for (rank, &player) in order.iter().enumerate() {
        let (mut points, mut games) = (0.0, 0);
        for pairing in pairings.iter().filter(|p| p.first == player || p.second == player) {
            let results = pairing.results;
            let won = if pairing.first == player { results.wins } else { results.losses };
            points += won as f64 + 0.5 * results.draws as f64;
            games += results.games();
        }
        println!(
            "{:>4}  {:>+7.1}  {:>6.3}  {:>5}  {}",
            rank + 1,
            ratings[player],
            points / games.max(1) as f64,
            games,
            players[player]
        );
    }
    Ok(())
}

/// `--run`: every numbered checkpoint of a run against `opponent`, in iteration order.
fn rate_run(
    args: &EvaluateArgs,
    setting: &GameSetting,
    settings: &MatchSettings,
    directory: &std::path::Path,
    opponent: &str,
) -> anyhow::Result<()> {
    let run = RunDir::new(directory);
    let checkpoints = run.iteration_checkpoints()?;
    anyhow::ensure!(!checkpoints.is_empty(), "{}: no numbered checkpoints (iter-NNNNNN)", run.checkpoints().display());
    let players: Vec<String> = checkpoints.iter().map(|(_, name)| format!("checkpoint:{}", name.display())).collect();
    let mut agents = players.clone();
    agents.push(opponent.to_string());
    setting.start()?.visit(CheckAgents { specs: &agents })?;
    let cpu_seconds: std::collections::HashMap<u32, f64> =
        read_metrics(&run.metrics_path())?.into_iter().filter_map(|m| Some((m.iteration, m.cpu_s?))).collect();
    let name = RunDir::ratings_name(opponent, args.simulations);
    println!("{:>9}  {:>8}  {:>11}  {:>6}  {:>21}", "iteration", "CPU min", "W-D-L", "score", "Elo (95% interval)");
    let mut ratings = Vec::new();
    for ((iteration, _), player) in checkpoints.iter().zip(&players) {
        let report = setting.start()?.visit(Match { args, first: player, second: opponent, settings, tallies: &Default::default() })?;
        let rating = CheckpointRating {
            iteration: *iteration,
            cpu_s: cpu_seconds.get(iteration).copied(),
            simulations: args.simulations,
            result: EvaluationMetrics::new(opponent, &report),
        };
        let results = report.results;
        println!(
            "{:>9}  {:>8}  {:>11}  {:>6.3}  {:>+7.1} ({:+.0} to {:+.0})",
            iteration,
            rating.cpu_s.map_or("-".to_string(), |s| format!("{:.1}", s / 60.0)),
            format!("{}-{}-{}", results.wins, results.draws, results.losses),
            results.score(),
            report.elo.elo,
            report.elo.lower,
            report.elo.upper,
        );
        ratings.push(rating);
        run.write_ratings(&name, &ratings)?;
    }
    println!("ratings: {} and {}", run.ratings_path(&name).display(), run.ratings_plot(&name).display());
    Ok(())
}

fn parse_sprt(text: &str) -> anyhow::Result<Sprt> {
    let (elo0, elo1) = text
        .split_once(',')
        .and_then(|(a, b)| Some((a.trim().parse::<f64>().ok()?, b.trim().parse::<f64>().ok()?)))
        .with_context(|| format!("--sprt {text:?}: expected two Elo values, ELO0,ELO1"))?;
    anyhow::ensure!(elo1 > elo0, "--sprt {text:?}: ELO1 must be above ELO0");
    Ok(Sprt { elo0, elo1, alpha: 0.05, beta: 0.05 })
}

/// Loads every agent of a round robin once, so a bad checkpoint fails before the first
/// pairing rather than hours into the tournament.
struct CheckAgents<'a> {
    specs: &'a [String],
}

impl GameVisitor for CheckAgents<'_> {
    type Output = anyhow::Result<()>;
    fn visit<G: Game>(self, start: G) -> Self::Output {
        for spec in self.specs {
            let choice = AgentChoice::parse(spec).with_context(|| format!("agent {spec:?}"))?;
            // Builds the agent once: a checkpoint is loaded and checked against the game.
            choice
                .agent(&start, None, 0)
                .with_context(|| format!("agent {spec:?}"))?;
        }
        Ok(())
    }
}

struct Match<'a> {
    args: &'a EvaluateArgs,
    first: &'a str,
    second: &'a str,
    settings: &'a MatchSettings,
    /// Each side's turns and time under `--move-time`.
    tallies: &'a [Arc<TimeTally>; 2],
}

impl GameVisitor for Match<'_> {
    type Output = anyhow::Result<MatchReport>;
    fn visit<G: Game>(self, start: G) -> Self::Output {
        let args = self.args;
        let bar = if args.quiet { ProgressBar::hidden() } else { ProgressBar::new(args.games.div_ceil(2) as u64 * 2) };
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} games, {msg} [{elapsed_precise}, eta {eta}]")
                .expect("a valid progress template"),
        );
        let factory = |spec: &str| -> anyhow::Result<AgentFactory> {
            let choice = AgentChoice::parse(spec)?;
            AgentFactory::new(
                choice,
                &start,
                CheckpointSearch { simulations: args.simulations, gumbel: args.gumbel, rollout_mix: args.rollout_mix },
            )
                .with_context(|| format!("agent {spec:?}"))
        };
        let (first, second) = (factory(self.first)?, factory(self.second)?);
        // Under a time per turn each game's agents are thinkers over the same choices, and
        // each side's turns are timed.
        let tallies = self.tallies;
        let timed = |spec: &str, seed: u64, time, tally: &Arc<TimeTally>| -> anyhow::Result<Box<dyn gipfzero_mcts::Agent<G>>> {
            let choice = AgentChoice::parse(spec)?;
            let agent = TimedAgent::new(choice, seed, time, &start).with_context(|| format!("agent {spec:?}"))?;
            Ok(Box::new(agent.with_tally(tally.clone())))
        };
        if let Some(time) = args.move_time {
            timed(self.first, 0, time, &Arc::default())?;
            timed(self.second, 0, time, &Arc::default())?;
        }
        let report = run_match(
            // Each pair of games gets its own start, drawn from the match seed.
            |pair| opening(&start, args.opening_turns, args.seed.wrapping_add(pair as u64)),
            |side, game| {
                let (factory, spec, tally, salt) = match side {
                    Side::First => (&first, self.first, &tallies[0], 0x5eed_0001),
                    Side::Second => (&second, self.second, &tallies[1], 0x5eed_0002),
                };
                let seed = args.seed.wrapping_mul(0x9E37_79B9).wrapping_add(salt).wrapping_add((game as u64) << 20);
                match args.move_time {
                    Some(time) => timed(spec, seed, time, tally).expect("agent specs were checked before the match"),
                    None => factory.agent(&start, seed).expect("agent specs were checked before the match"),
                }
            },
            self.settings,
            |results| {
                bar.set_position(results.games() as u64);
                bar.set_message(format!("+{} ={} -{}", results.wins, results.draws, results.losses));
            },
        )?;
        bar.finish_and_clear();
        Ok(report)
    }
}

fn print_report(args: &EvaluateArgs, first: &str, second: &str, report: &MatchReport) {
    let results = report.results;
    match args.move_time {
        Some(time) => println!("{first} vs {second} ({}, {} games, {} ms per turn each)", args.game, results.games(), time.as_millis()),
        None => println!("{first} vs {second} ({}, {} games)", args.game, results.games()),
    }
    println!(
        "{}: {} wins, {} draws, {} losses, score {:.3}{}",
        first,
        results.wins,
        results.draws,
        results.losses,
        results.score(),
        if report.unfinished > 0 { format!(" ({} stopped at the turn limit)", report.unfinished) } else { String::new() }
    );
    println!(
        "Elo difference: {:+.1} (95% interval {:+.1} to {:+.1})",
        report.elo.elo, report.elo.lower, report.elo.upper
    );
    if let Some((llr, decision)) = report.sprt {
        let verdict = match decision {
            SprtDecision::AcceptH1 => "H1 accepted",
            SprtDecision::AcceptH0 => "H0 accepted",
            SprtDecision::Continue => "undecided",
        };
        println!("SPRT: LLR {llr:.2}, {verdict}");
    }
}
