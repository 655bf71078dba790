//! `gipfzero`: the command-line program. It owns argument parsing, progress display and error
//! reporting, and wires the workspace's crates together; the game logic, the search and the
//! network live in those crates.
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;

/// Self-play reinforcement learning for the GIPF-project games ZÈRTZ, DVONN and LYNGK.
#[derive(Parser, Debug)]
#[command(name = "gipfzero", version, about, propagate_version = true)]
struct Cli {
    /// Worker threads for the CPU work (search, self-play); 0 means one per core.
    #[arg(long, global = true, default_value_t = 0)]
    threads: usize,
    /// libtorch intra-op threads. One keeps OpenMP from fighting the workers on small
    /// machines; raise it for a training process that has the machine to itself.
    #[arg(long, global = true, default_value_t = 1)]
    torch_threads: usize,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Versions, devices and thread settings.
    Info,
    /// The rules engines: legal turns, perft, replays, random games (see shared/rules/cli.md).
    #[command(subcommand)]
    Rules(cmd::rules::RulesCommand),
    /// A match between two agents: results, Elo difference, optional SPRT.
    Evaluate(cmd::evaluate::EvaluateArgs),
    /// Generates games by search: training shards and game records (docs/DATASETS.md).
    Selfplay(cmd::selfplay::SelfplayArgs),
    /// Throughput measurements of the pipeline's pieces.
    #[command(subcommand)]
    Bench(cmd::bench::BenchCommand),
    /// Run (or resume) a training run described by a YAML config.
    Train(cmd::train::TrainArgs),
    /// A self-play worker of a run kept in an object store (`train --run URL`).
    Worker(cmd::worker::WorkerArgs),
    /// A game in the terminal: you against an agent, or agents against each other.
    Play(cmd::play::PlayArgs),
    /// Talks to other programs over stdin/stdout (docs/ENGINE.md; --codecup for DVONN).
    Engine(cmd::engine::EngineArgs),
    /// A refereed DVONN match between two programs that speak the CodeCup 2011 protocol.
    Match(cmd::referee::MatchArgs),
    /// Draws a position as SVG, or a whole game as an HTML page.
    Render(cmd::render::RenderArgs),
    /// Writes a checkpoint's network alone under a new name (as shipped networks are kept).
    Export(cmd::export::ExportArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    end_by_sigpipe_when_stdout_closes();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    if let Err(error) = configure_runtime(&cli) {
        eprintln!("error: {error:#}");
        return ExitCode::FAILURE;
    }
    let result = match cli.command {
        Command::Info => cmd::info::run(),
        Command::Rules(command) => cmd::rules::run(command),
        Command::Evaluate(args) => cmd::evaluate::run(args),
        Command::Selfplay(args) => cmd::selfplay::run(args),
        Command::Bench(command) => cmd::bench::run(command),
        Command::Train(args) => cmd::train::run(args),
        Command::Worker(args) => cmd::worker::run(args),
        Command::Play(args) => cmd::play::run(args),
        Command::Engine(args) => cmd::engine::run(args),
        Command::Match(args) => cmd::referee::run(args),
        Command::Render(args) => cmd::render::run(args),
        Command::Export(args) => cmd::export::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(cmd::exit_code(&error))
        }
    }
}

/// When whoever reads stdout goes away (`gipfzero rules … | head`), the program ends as Unix
/// tools do, killed by SIGPIPE, whatever the command. Rust ignores SIGPIPE, so the next
/// `println!` panics on the broken pipe instead; this hook turns that panic, and only that
/// one, into the signal. SIGPIPE itself stays ignored: a command that writes into another
/// program's pipe (an engine opponent, the referee's players) must see that program's death
/// as a write error it reports, not die of it.
fn end_by_sigpipe_when_stdout_closes() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload.downcast_ref::<String>().map(String::as_str).or_else(|| payload.downcast_ref::<&str>().copied()).unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            // SAFETY: SIG_DFL is always a valid disposition; raise only signals this process.
            unsafe {
                libc::signal(libc::SIGPIPE, libc::SIG_DFL);
                libc::raise(libc::SIGPIPE);
            }
        }
        default(info);
    }));
}

fn configure_runtime(cli: &Cli) -> anyhow::Result<()> {
    // First, while this is the only thread: malloc's settings are read by every thread after.
    gipfzero_model::tune_allocator();
    gipfzero_model::ThreadSettings { intra_op: cli.torch_threads, inter_op: 1 }.apply();
    rayon::ThreadPoolBuilder::new().num_threads(cli.threads).build_global()?;
    Ok(())
}
