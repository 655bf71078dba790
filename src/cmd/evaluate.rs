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
    #[arg(required_unless_present_any = ["round_robin", "ladder"])]
    pub first: Option<String>,
    /// The second agent, likewise.
    #[arg(required_unless_present_any = ["round_robin", "run", "ladder"])]
    pub second: Option<String>,
    /// Instead of two agents: every numbered checkpoint of the training run RUN_DIR
    /// (`checkpoints/iter-NNNNNN`) plays the one agent given (`--games` each), for a run
    /// trained without evaluations or against another opponent. The results, with the run's
    /// CPU time at each checkpoint, go to `RUN_DIR/ratings-<agent>[-s<simulations>].jsonl`
    /// (rewritten after every checkpoint) and a chart to `RUN_DIR/plots/` of the same name.
    #[arg(long, value_name = "RUN_DIR", conflicts_with_all = ["round_robin", "ladder", "second", "sprt", "records"])]
    pub run: Option<std::path::PathBuf>,
    /// Instead of two agents: every checkpoint in DIR plays every other (`--games` each
    /// pairing), and an Elo table is fitted to all the results.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["first", "second", "sprt", "ladder"])]
    pub round_robin: Option<std::path::PathBuf>,
    /// Instead of two agents: a strength ladder, weakest first, of rungs `AGENT` or
    /// `AGENT@TIME` (a time per turn, e.g. `rollout:1000@100ms`, `model:zertz@1s`; a rung
    /// without one runs `--simulations`). Each rung plays the next `--games` games; the
    /// ratings are anchored at the first rung = 0 (put `random` first), with intervals.
    #[arg(long, value_name = "RUNG,RUNG,...", value_delimiter = ',', num_args = 1.., conflicts_with_all = ["first", "second", "sprt", "records", "run"])]
    pub ladder: Vec<String>,
    /// With `--ladder`: the file (JSON Lines) each finished step is saved to as it ends. A
    /// ladder run again with the same file plays only the steps it does not hold with the same
    /// agents, times and match settings, so an interrupted ladder continues and a longer one
    /// reuses the steps it shares. One ladder per file at a time: each rewrites the file
    /// from what it read at its start.
    #[arg(long, value_name = "FILE", requires = "ladder")]
    pub results: Option<std::path::PathBuf>,
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
    #[arg(long, value_name = "TIME", value_parser = parse_move_time, conflicts_with_all = ["simulations", "gumbel", "rollout_mix", "round_robin", "run", "ladder"])]
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
    if !args.ladder.is_empty() {
        let rungs = args.ladder.iter().map(|spec| Rung::parse(spec)).collect::<Result<Vec<_>, _>>()?;
        return ladder(&args, &setting, &settings, &rungs);
    }
    if let (Some(directory), Some(opponent)) = (&args.run, &args.first) {
        return rate_run(&args, &setting, &settings, directory, opponent);
    }
    let (Some(first), Some(second)) = (&args.first, &args.second) else {
        anyhow::bail!("give two agents, or --round-robin DIR, or --run RUN_DIR and one agent");
    };
    for spec in [first, second] {
        // `AGENT@TIME` names a ladder rung; a match of two gives both agents --move-time.
        if let Ok(Rung { time: Some(time), .. }) = Rung::parse(spec) {
            anyhow::bail!("agent {spec:?}: AGENT@TIME is a rung of --ladder; for two agents at equal time per turn give both as AGENT and add --move-time {}ms", time.as_millis());
        }
    }
    let tallies = [Arc::new(TimeTally::default()), Arc::new(TimeTally::default())];
    // The match loads both agents (and checks them against the game) before any game starts.
    let times = [args.move_time; 2];
    let report = setting.start()?.visit(Match { args: &args, first, second, times, settings: &settings, tallies: &tallies })?;
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
                times: [None; 2],
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
        let report = setting.start()?.visit(Match { args, first: player, second: opponent, times: [None; 2], settings, tallies: &Default::default() })?;
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
    /// Each side's time per turn (`None`: it runs its simulations).
    times: [Option<std::time::Duration>; 2],
    settings: &'a MatchSettings,
    /// Each side's turns and time when it plays under a time per turn.
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
        for (spec, time) in [self.first, self.second].into_iter().zip(self.times) {
            if let Some(time) = time {
                timed(spec, 0, time, &Arc::default())?;
            }
        }
        let report = run_match(
            // Each pair of games gets its own start, drawn from the match seed.
            |pair| opening(&start, args.opening_turns, args.seed.wrapping_add(pair as u64)),
            |side, game| {
                let (factory, spec, time, tally, salt) = match side {
                    Side::First => (&first, self.first, self.times[0], &tallies[0], 0x5eed_0001),
                    Side::Second => (&second, self.second, self.times[1], &tallies[1], 0x5eed_0002),
                };
                let seed = args.seed.wrapping_mul(0x9E37_79B9).wrapping_add(salt).wrapping_add((game as u64) << 20);
                match time {
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

/// A rung of `--ladder`: an agent, and the time per turn it thinks (`None`: its simulations).
#[derive(Clone, Debug, PartialEq)]
struct Rung {
    agent: String,
    time: Option<std::time::Duration>,
}

impl Rung {
    /// `AGENT` or `AGENT@TIME`; the time is read after the last `@`.
    fn parse(spec: &str) -> anyhow::Result<Rung> {
        let spec = spec.trim();
        anyhow::ensure!(!spec.is_empty(), "--ladder: an empty rung (expected AGENT or AGENT@TIME, separated by commas)");
        let rung = match spec.rsplit_once('@') {
            Some((agent, time)) => Rung {
                agent: agent.to_string(),
                time: Some(parse_move_time(time).map_err(|error| anyhow::anyhow!("--ladder rung {spec:?}: {error} after '@'"))?),
            },
            None => Rung { agent: spec.to_string(), time: None },
        };
        AgentChoice::parse(&rung.agent).with_context(|| format!("--ladder rung {spec:?}"))?;
        Ok(rung)
    }

    fn time_ms(&self) -> Option<f64> {
        self.time.map(|time| time.as_secs_f64() * 1e3)
    }

    fn label(&self) -> String {
        match self.time {
            Some(time) => format!("{}@{}ms", self.agent, time.as_millis()),
            None => self.agent.clone(),
        }
    }
}

/// One finished step of a ladder, a line of `--results`: the upper rung's match against the
/// lower one, from the upper rung's view, with the settings that make it the same match.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LadderStep {
    game: String,
    variant: Option<String>,
    lower: String,
    lower_ms: Option<f64>,
    upper: String,
    upper_ms: Option<f64>,
    games: u32,
    seed: u64,
    opening_turns: usize,
    max_turns: usize,
    simulations: Option<u32>,
    gumbel: bool,
    rollout_mix: f32,
    wins: u32,
    draws: u32,
    losses: u32,
    unfinished: u32,
    /// The measured mean time of a turn of each side (timed rungs only).
    lower_turn_ms: Option<f64>,
    upper_turn_ms: Option<f64>,
    seconds: f64,
}

impl LadderStep {
    /// Whether `self` is the match `other` asks for (the results aside).
    fn same_match(&self, other: &LadderStep) -> bool {
        let key = |s: &LadderStep| {
            (s.game.clone(), s.variant.clone(), s.lower.clone(), s.lower_ms, s.upper.clone(), s.upper_ms, s.games, s.seed)
        };
        let settings = |s: &LadderStep| (s.opening_turns, s.max_turns, s.simulations, s.gumbel, s.rollout_mix);
        key(self) == key(other) && settings(self) == settings(other)
    }

    fn results(&self) -> gipfzero_train::stats::MatchResults {
        gipfzero_train::stats::MatchResults { wins: self.wins, draws: self.draws, losses: self.losses }
    }
}

/// The steps saved in a ladder's results file (none when it does not exist yet).
fn read_ladder_steps(path: &std::path::Path) -> anyhow::Result<Vec<LadderStep>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(error).with_context(|| format!("cannot read the ladder results {}", path.display())),
    };
    let mut steps = Vec::new();
    for (number, line) in text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
        let step = serde_json::from_str(line).with_context(|| {
            format!("{}:{}: not a ladder step as `evaluate --ladder --results` writes them", path.display(), number + 1)
        })?;
        steps.push(step);
    }
    Ok(steps)
}

/// `--ladder`: each rung against the next, then the ratings anchored at the first rung.
fn ladder(args: &EvaluateArgs, setting: &GameSetting, settings: &MatchSettings, rungs: &[Rung]) -> anyhow::Result<()> {
    anyhow::ensure!(rungs.len() >= 2, "--ladder: a ladder needs at least two rungs, found {}", rungs.len());
    let specs: Vec<String> = rungs.iter().map(|rung| rung.agent.clone()).collect();
    setting.start()?.visit(CheckAgents { specs: &specs })?;
    let mut saved = match &args.results {
        Some(path) => read_ladder_steps(path)?,
        None => Vec::new(),
    };
    let mut steps = Vec::new();
    for pair in rungs.windows(2) {
        let (lower, upper) = (&pair[0], &pair[1]);
        let mut step = LadderStep {
            game: args.game.to_string(),
            variant: args.variant.clone(),
            lower: lower.agent.clone(),
            lower_ms: lower.time_ms(),
            upper: upper.agent.clone(),
            upper_ms: upper.time_ms(),
            games: args.games,
            seed: args.seed,
            opening_turns: args.opening_turns,
            max_turns: args.max_turns,
            simulations: args.simulations,
            gumbel: args.gumbel,
            rollout_mix: args.rollout_mix,
            wins: 0,
            draws: 0,
            losses: 0,
            unfinished: 0,
            lower_turn_ms: None,
            upper_turn_ms: None,
            seconds: 0.0,
        };
        if let Some(found) = saved.iter().find(|saved| saved.same_match(&step)) {
            if !args.quiet {
                println!("{} vs {}: {}-{}-{} (saved)", upper.label(), lower.label(), found.wins, found.draws, found.losses);
            }
            steps.push(found.clone());
            continue;
        }
        let tallies = [Arc::new(TimeTally::default()), Arc::new(TimeTally::default())];
        let started = std::time::Instant::now();
        // The upper rung plays first, so that the results are from its view.
        let report = setting.start()?.visit(Match {
            args,
            first: &upper.agent,
            second: &lower.agent,
            times: [upper.time, lower.time],
            settings,
            tallies: &tallies,
        })?;
        let mean_ms = |tally: &TimeTally| tally.mean().map(|time| time.as_secs_f64() * 1e3);
        step.wins = report.results.wins;
        step.draws = report.results.draws;
        step.losses = report.results.losses;
        step.unfinished = report.unfinished;
        step.upper_turn_ms = mean_ms(&tallies[0]);
        step.lower_turn_ms = mean_ms(&tallies[1]);
        step.seconds = started.elapsed().as_secs_f64();
        if !args.quiet {
            println!("{} vs {}: {}-{}-{} in {:.0} s", upper.label(), lower.label(), step.wins, step.draws, step.losses, step.seconds);
        }
        if let Some(path) = &args.results {
            // A step played again under the same settings replaces the saved one.
            saved.retain(|old| !old.same_match(&step));
            saved.push(step.clone());
            write_json_lines(path, &saved).with_context(|| format!("cannot write the ladder results {}", path.display()))?;
        }
        steps.push(step);
    }
    let results: Vec<_> = steps.iter().map(LadderStep::results).collect();
    let ratings = gipfzero_train::stats::ladder_ratings(&results, settings.confidence);
    let elo = |value: f64| match value {
        v if v == f64::INFINITY => "+inf".to_string(),
        v if v == f64::NEG_INFINITY => "-inf".to_string(),
        v if v.is_nan() => "?".to_string(),
        v if v == 0.0 => "0".to_string(),
        v => format!("{v:+.0}"),
    };
    println!(
        "ladder of {} ({} games a step, seed {}), anchored at {} = 0",
        args.game,
        args.games,
        args.seed,
        rungs[0].label()
    );
    // The last column: the measured mean time of a turn of this rung and of the one below.
    println!("{:>4}  {:<40}  {:>6}  {:>17}  {:>9}  {:>9}  {:>10}", "rung", "agent", "elo", "95% interval", "step", "step elo", "ms a turn");
    for (index, (rung, rating)) in rungs.iter().zip(&ratings).enumerate() {
        let (record, step_elo, turn) = match index.checked_sub(1).map(|i| &steps[i]) {
            None => ("".to_string(), "".to_string(), String::new()),
            Some(step) => {
                let estimate = step.results().elo(settings.confidence);
                let measured = |ms: Option<f64>| ms.map_or("-".to_string(), |ms| format!("{ms:.0}"));
                (
                    format!("{}-{}-{}", step.wins, step.draws, step.losses),
                    elo(estimate.elo),
                    format!("{}/{}", measured(step.upper_turn_ms), measured(step.lower_turn_ms)),
                )
            }
        };
        let interval = if index == 0 { "anchor".to_string() } else { format!("({} to {})", elo(rating.lower), elo(rating.upper)) };
        println!(
            "{:>4}  {:<40}  {:>6}  {:>17}  {:>9}  {:>9}  {:>10}",
            index + 1,
            rung.label(),
            elo(rating.elo),
            interval,
            record,
            step_elo,
            turn
        );
    }
    if let Some(path) = &args.results {
        println!("results: {}", path.display());
    }
    Ok(())
}
