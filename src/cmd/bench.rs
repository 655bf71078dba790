//! `gipfzero bench …`: throughput of the pipeline's pieces, printed for people and recorded
//! in docs/PERFORMANCE.md. Timed loops on one thread (per-core figures) unless stated.
use std::time::{Duration, Instant};

use clap::Subcommand;
use gipfzero_games::registry::{GameName, GameSetting, GameVisitor};
use gipfzero_games::zertz::Variant;
use gipfzero_games::{record, Game, SplitMix64};

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
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
    },
    /// Self-play with a fresh network: positions/s and the batch size reached, next to the
    /// bare forward pass at that batch size.
    Selfplay(crate::cmd::selfplay::BenchSelfplayArgs),
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
        BenchCommand::Selfplay(args) => crate::cmd::selfplay::bench(args),
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
