//! `gipfzero evaluate`: a match between two agents with wins/draws/losses, an Elo difference
//! with its confidence interval, and an optional SPRT that stops once the answer is clear.
use anyhow::Context;
use clap::Args;
use gipfzero_games::registry::{GameName, GameSetting, GameVisitor};
use gipfzero_games::Game;
use gipfzero_play::AgentSource;

use crate::cmd::agents::AgentChoice;
use gipfzero_train::evaluate::{opening, run_match, MatchReport, MatchSettings, Side};
use gipfzero_train::stats::{Sprt, SprtDecision};
use indicatif::{ProgressBar, ProgressStyle};

#[derive(Args, Debug)]
pub struct EvaluateArgs {
    /// zertz, dvonn or lyngk.
    pub game: GameName,
    /// The first agent: random, greedy, rollout:<simulations> or checkpoint:<path>.
    pub first: String,
    /// The second agent, likewise.
    pub second: String,
    /// ZÈRTZ board (standard when absent).
    #[arg(long)]
    pub variant: Option<String>,
    /// Simulations per decision of checkpoint agents (their default when absent).
    #[arg(long)]
    pub simulations: Option<u32>,
    /// Number of games (an even number: pairs share a start with colours swapped).
    #[arg(long, default_value_t = 20)]
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
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(args: EvaluateArgs) -> anyhow::Result<()> {
    let sprt = args.sprt.as_deref().map(parse_sprt).transpose()?;
    // Check both agent specs before any game starts.
    let setting = GameSetting { game: args.game, variant: args.variant.clone(), setup: None, seed: None };
    setting.start()?.visit(CheckAgents(&args))?;
    let settings = MatchSettings { games: args.games, max_turns: args.max_turns, confidence: 0.95, sprt };
    let report = setting.start()?.visit(Match { args: &args, settings: &settings })?;
    print_report(&args, &report);
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

struct CheckAgents<'a>(&'a EvaluateArgs);

impl GameVisitor for CheckAgents<'_> {
    type Output = anyhow::Result<()>;
    fn visit<G: Game>(self, start: G) -> Self::Output {
        for spec in [&self.0.first, &self.0.second] {
            let choice = AgentChoice::parse(spec).with_context(|| format!("agent {spec:?}"))?;
            // Builds the agent once: a checkpoint is loaded and checked against the game.
            choice
                .agent(&start, self.0.simulations, 0)
                .map_err(anyhow::Error::msg)
                .with_context(|| format!("agent {spec:?}"))?;
        }
        Ok(())
    }
}

struct Match<'a> {
    args: &'a EvaluateArgs,
    settings: &'a MatchSettings,
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
        let report = run_match(
            // Each pair of games gets its own start, drawn from the match seed.
            |pair| opening(&start, args.opening_turns, args.seed.wrapping_add(pair as u64)),
            |side, game| {
                let (spec, salt) = match side {
                    Side::First => (&args.first, 0x5eed_0001),
                    Side::Second => (&args.second, 0x5eed_0002),
                };
                let seed = args.seed.wrapping_mul(0x9E37_79B9).wrapping_add(salt).wrapping_add((game as u64) << 20);
                AgentChoice::parse(spec)
                    .and_then(|choice| choice.agent(&start, args.simulations, seed).map_err(anyhow::Error::msg))
                    .expect("agent specs were checked before the match")
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

fn print_report(args: &EvaluateArgs, report: &MatchReport) {
    let results = report.results;
    println!("{} vs {} ({}, {} games)", args.first, args.second, args.game, results.games());
    println!(
        "{}: {} wins, {} draws, {} losses, score {:.3}{}",
        args.first,
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
