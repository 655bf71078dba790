//! `gipfzero match`: two external programs that speak the CodeCup 2011 DVONN protocol play a
//! match, refereed by gipfzero's rules (`gipfzero_play::referee`: faults, clocks), with the
//! colours alternated; the result is reported as `gipfzero evaluate` reports its matches
//! (wins/draws/losses, Elo with its interval: `gipfzero_train::stats`), plus the margins, the
//! forfeits with their reasons and each program's time. `gipfzero engine --codecup` is such a
//! program, so the project's players can meet others (PrimaDvonna: `scripts/primadvonna.sh`).
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use gipfzero_games::{Game, Player};
use gipfzero_play::referee::{referee_game, ProgramSpec, RefereeSettings, RefereedGame};
use gipfzero_train::evaluate::MatchGame;
use gipfzero_train::metrics::write_json_lines;
use gipfzero_train::stats::MatchResults;
use serde::Serialize;

use super::evaluate::even_games;

#[derive(Args, Debug)]
pub struct MatchArgs {
    /// The first program: a shell command line (run as `sh -c "exec COMMAND"`) that speaks the
    /// CodeCup 2011 DVONN protocol, e.g. "gipfzero engine --codecup --agent model:dvonn
    /// --seed {seed}". `{seed}` becomes the game's seed (--seed plus the game's index).
    #[arg(long)]
    pub player1: String,
    /// The second program, likewise.
    #[arg(long)]
    pub player2: String,
    /// The first program's name in the report (default: its command).
    #[arg(long)]
    pub name1: Option<String>,
    /// The second program's name in the report (default: its command).
    #[arg(long)]
    pub name2: Option<String>,
    /// Number of games (even: the first program plays White in games 1, 3, 5, …).
    #[arg(long, default_value_t = 10, value_parser = even_games)]
    pub games: u32,
    /// Thinking time of each program for a whole game, in seconds (CodeCup: 5); a program
    /// that runs out loses.
    #[arg(long, default_value_t = 5.0)]
    pub game_time: f64,
    /// Seconds the programs get to start before White is sent `Start` (not counted; a
    /// program still starting when its first line comes spends its own time).
    #[arg(long, default_value_t = RefereeSettings::default().start_delay.as_secs_f64())]
    pub start_delay: f64,
    /// Seed of game 1 (`{seed}` in the commands); game k gets SEED + k - 1.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write every game to FILE, one JSON object per line: the fields of `gipfzero evaluate
    /// --records` (turns in record notation, every placement included), the commands, the
    /// forfeit and its reason, each colour's thinking and CPU seconds.
    #[arg(long, value_name = "FILE")]
    pub records: Option<PathBuf>,
    /// Keep each program's standard error of each game in DIR (`game-NNN-player1.log`).
    #[arg(long, value_name = "DIR")]
    pub logs: Option<PathBuf>,
}

/// A line of `--records`.
#[derive(Serialize)]
struct Record {
    #[serde(flatten)]
    game: MatchGame,
    /// The commands as run (seed filled in), the first program's first.
    commands: [String; 2],
    seed: u64,
    /// Which program forfeited (1 or 2) and why; `null` when the game was played out.
    forfeit: Option<ForfeitRecord>,
    /// Seconds each colour spent to move, White first.
    thinking_s: [f64; 2],
    /// CPU seconds of each colour's program over the game, White first (`null` where unknown).
    cpu_s: [Option<f64>; 2],
}

#[derive(Serialize)]
struct ForfeitRecord {
    program: u8,
    reason: String,
}

fn seconds(name: &str, value: f64) -> anyhow::Result<Duration> {
    anyhow::ensure!(value.is_finite() && value >= 0.0, "{name} {value}: expected a number of seconds, at least 0");
    Ok(Duration::from_secs_f64(value))
}

pub fn run(args: MatchArgs) -> anyhow::Result<()> {
    let settings = RefereeSettings {
        game_time: seconds("--game-time", args.game_time)?,
        start_delay: seconds("--start-delay", args.start_delay)?,
        ..RefereeSettings::default()
    };
    anyhow::ensure!(!settings.game_time.is_zero(), "--game-time 0: a game needs some time");
    if let Some(dir) = &args.logs {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let names = [
        args.name1.clone().unwrap_or_else(|| args.player1.clone()),
        args.name2.clone().unwrap_or_else(|| args.player2.clone()),
    ];
    println!(
        "{} vs {} (DVONN, CodeCup 2011 protocol, {:.1} s per game each, {} games)",
        names[0],
        names[1],
        settings.game_time.as_secs_f64(),
        args.games
    );
    let mut results = MatchResults::default();
    let mut records = Vec::new();
    let mut margins = Vec::new();
    let mut thinking: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let mut cpu: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let mut forfeits: [u32; 2] = [0, 0];
    for index in 0..args.games {
        let seed = args.seed.wrapping_add(index as u64);
        // The first program plays White in even games (as `gipfzero evaluate` alternates).
        let first_colour = if index % 2 == 0 { Player::One } else { Player::Two };
        let program = |number: usize, command: &str| ProgramSpec {
            command: command.replace("{seed}", &seed.to_string()),
            stderr: args.logs.as_ref().map(|dir| dir.join(format!("game-{:03}-player{number}.log", index + 1))),
        };
        let specs = [program(1, &args.player1), program(2, &args.player2)];
        // By colour, White first.
        let (white, black) = if first_colour == Player::One { (0, 1) } else { (1, 0) };
        let game = referee_game([&specs[white], &specs[black]], &settings)
            .with_context(|| format!("game {}", index + 1))?;
        let outcome = game.outcome();
        let first_value = outcome.value_for(first_colour);
        if first_value > 0.0 {
            results.wins += 1;
        } else if first_value < 0.0 {
            results.losses += 1;
        } else {
            results.draws += 1;
        }
        let score = game.position.score();
        let margin = score[first_colour.index()] as i64 - score[first_colour.other().index()] as i64;
        if game.forfeit.is_none() {
            margins.push(margin);
        }
        // By program: the first program's colour is `first_colour`.
        let by_program = |values: [f64; 2]| [values[first_colour.index()], values[first_colour.other().index()]];
        let think = by_program(game.thinking.map(|t| t.as_secs_f64()));
        for (p, value) in think.iter().enumerate() {
            thinking[p].push(*value);
        }
        if let [Some(white_cpu), Some(black_cpu)] = game.cpu {
            for (p, value) in by_program([white_cpu.as_secs_f64(), black_cpu.as_secs_f64()]).iter().enumerate() {
                cpu[p].push(*value);
            }
        }
        let loser_program = game.forfeit.as_ref().map(|f| if f.player == first_colour { 1u8 } else { 2 });
        if let Some(p) = loser_program {
            forfeits[p as usize - 1] += 1;
        }
        println!(
            "game {:>3}: {} plays {}; {}; {} {} {}; time {:.2} s / {:.2} s{}",
            index + 1,
            names[0],
            if first_colour == Player::One { "white" } else { "black" },
            game.result_text(),
            names[0],
            if first_value > 0.0 { "wins" } else if first_value < 0.0 { "loses" } else { "draws" },
            if game.forfeit.is_some() { "by forfeit".to_string() } else { format!("by {margin:+}") },
            think[0],
            think[1],
            match game.cpu {
                [Some(w), Some(b)] => {
                    let c = by_program([w.as_secs_f64(), b.as_secs_f64()]);
                    format!(", CPU {:.2} s / {:.2} s", c[0], c[1])
                }
                _ => String::new(),
            }
        );
        records.push(record(index, first_colour, seed, &specs, game));
        if let Some(path) = &args.records {
            write_json_lines(path, &records).with_context(|| format!("cannot write the records to {}", path.display()))?;
        }
    }
    print_summary(&names, &results, &margins, &forfeits, &thinking, &cpu);
    if let Some(path) = &args.records {
        println!("records: {} ({} games)", path.display(), records.len());
    }
    Ok(())
}

fn record(
    index: u32,
    first_colour: Player,
    seed: u64,
    specs: &[ProgramSpec; 2],
    game: RefereedGame,
) -> Record {
    let outcome = game.outcome();
    Record {
        game: MatchGame {
            game: index,
            first_agent_plays: first_colour.index() as u8 + 1,
            setup: game.position.setup_text(),
            opening_turns: 0,
            result: game.result_text(),
            score: game.position.score(),
            outcome: Some(outcome.value_for(Player::One) as i8),
            turns: game.turns,
        },
        commands: [specs[0].command.clone(), specs[1].command.clone()],
        seed,
        forfeit: game.forfeit.map(|forfeit| ForfeitRecord {
            program: if forfeit.player == first_colour { 1 } else { 2 },
            reason: forfeit.fault.to_string(),
        }),
        thinking_s: game.thinking.map(|t| t.as_secs_f64()),
        cpu_s: game.cpu.map(|t| t.map(|t| t.as_secs_f64())),
    }
}

fn print_summary(
    names: &[String; 2],
    results: &MatchResults,
    margins: &[i64],
    forfeits: &[u32; 2],
    thinking: &[Vec<f64>; 2],
    cpu: &[Vec<f64>; 2],
) {
    println!(
        "{}: {} wins, {} draws, {} losses, score {:.3}",
        names[0],
        results.wins,
        results.draws,
        results.losses,
        results.score()
    );
    let elo = results.elo(0.95);
    println!("Elo difference: {:+.1} (95% interval {:+.1} to {:+.1})", elo.elo, elo.lower, elo.upper);
    if let (Some(low), Some(high)) = (margins.iter().min(), margins.iter().max()) {
        let mean = margins.iter().sum::<i64>() as f64 / margins.len() as f64;
        println!(
            "margin ({}'s pieces minus {}'s, {} games played out): mean {:+.1}, from {:+} to {:+}",
            names[0],
            names[1],
            margins.len(),
            mean,
            low,
            high
        );
    }
    println!("forfeits: {} {}, {} {}", names[0], forfeits[0], names[1], forfeits[1]);
    for (label, values) in [("thinking", thinking), ("CPU", cpu)] {
        if values.iter().all(|v| !v.is_empty()) {
            let stats = |v: &Vec<f64>| {
                let mean = v.iter().sum::<f64>() / v.len() as f64;
                let max = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                format!("mean {mean:.2} s, max {max:.2} s")
            };
            println!(
                "{label} per game: {} {}; {} {}",
                names[0],
                stats(&values[0]),
                names[1],
                stats(&values[1])
            );
        }
    }
}
