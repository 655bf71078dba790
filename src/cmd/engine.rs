//! `gipfzero engine`: talks to other programs over standard input and output, in gipfzero's
//! own line protocol (docs/ENGINE.md) or, with `--codecup`, as a DVONN player of the CodeCup
//! 2011 competition. The protocols live in `gipfzero_play::{engine, codecup}`.
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use gipfzero_play::codecup::{run_codecup, TimePlan, CODECUP_GAME_TIME, DEFAULT_PLACEMENT_WEIGHT};
use gipfzero_play::engine::run_engine;

use gipfzero_train::agents::AgentChoice;

#[derive(Args, Debug)]
pub struct EngineArgs {
    /// The agent that answers `go`: random, greedy, rollout:<simulations> or checkpoint:<path>.
    #[arg(long, default_value = "rollout:400")]
    pub agent: String,
    /// Seed of the agent and of the hints.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Speak the CodeCup 2011 DVONN protocol instead (one game, then exit).
    #[arg(long)]
    pub codecup: bool,
    /// With --codecup: thinking time for the whole game, in seconds.
    #[arg(long, default_value_t = CODECUP_GAME_TIME.as_secs_f64())]
    pub game_time: f64,
    /// With --codecup: a placement turn's weight beside a movement turn's when the time is
    /// shared out (at least 0; 1 shares evenly, 0.5 gives a placement half a move's share).
    #[arg(long, default_value_t = DEFAULT_PLACEMENT_WEIGHT)]
    pub placement_weight: f64,
}

pub fn run(args: EngineArgs) -> anyhow::Result<()> {
    let source =
        AgentChoice::parse(&args.agent).with_context(|| format!("agent {:?}", args.agent))?;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut output = std::io::stdout().lock();
    if args.codecup {
        anyhow::ensure!(
            args.game_time.is_finite() && args.game_time > 0.0,
            "--game-time {}: expected a number of seconds above 0",
            args.game_time
        );
        anyhow::ensure!(
            args.placement_weight.is_finite() && args.placement_weight >= 0.0,
            "--placement-weight {}: expected a number, at least 0",
            args.placement_weight
        );
        let plan = TimePlan {
            game_time: Duration::from_secs_f64(args.game_time),
            placement_weight: args.placement_weight,
        };
        run_codecup(
            source,
            args.seed,
            plan,
            &mut input,
            &mut output,
            &mut std::io::stderr().lock(),
        )?;
    } else {
        run_engine(source, args.seed, &mut input, &mut output)?;
    }
    Ok(())
}
