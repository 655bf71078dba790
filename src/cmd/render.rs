//! `gipfzero render`: a position as an SVG drawing (optionally with an agent's move
//! probabilities over it), or a whole game as an HTML page that steps through the turns.
//! The drawings live in `gipfzero_games::render`.
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use gipfzero_games::record;
use gipfzero_games::registry::{AnyGame, GameSetting};
use gipfzero_games::render::{render_html, render_svg, Drawable};
use gipfzero_play::AgentSource;

use gipfzero_train::agents::AgentChoice;
use super::rules::{located, read_record, PositionArgs};

#[derive(Args, Debug)]
pub struct RenderArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    /// A game record to play after --moves (`-` for standard input).
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Draw the whole game as an HTML page instead of the last position as SVG.
    #[arg(long)]
    pub html: bool,
    /// Draw this agent's move probabilities over the position (visit shares of its search;
    /// random, greedy, rollout:<simulations> or checkpoint:<path>).
    #[arg(long)]
    pub overlay: Option<String>,
    /// Simulations of the overlay's search.
    #[arg(long, default_value_t = gipfzero_play::think::DEFAULT_HINT_SIMULATIONS)]
    pub overlay_simulations: u32,
    /// Write here instead of standard output.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

pub fn run(args: RenderArgs) -> anyhow::Result<()> {
    let p = &args.position;
    let setting = GameSetting {
        game: p.game,
        variant: p.variant.clone(),
        setup: p.setup.clone(),
        seed: p.seed,
    };
    // The drawings need `Drawable`, which the registry's visitor does not promise: dispatch here.
    let text = match setting.start()? {
        AnyGame::Zertz(start) => draw(&args, start)?,
        AnyGame::Dvonn(start) => draw(&args, start)?,
        AnyGame::Lyngk(start) => draw(&args, start)?,
    };
    match &args.output {
        Some(path) => {
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
        }
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

fn draw<G: Drawable>(args: &RenderArgs, start: G) -> anyhow::Result<String> {
    let mut game = record::replay(&start, args.position.moves.as_deref().unwrap_or_default())?;
    if let Some(file) = &args.record {
        let text = read_record(file)?;
        let more = record::replay(&game.position, &text).map_err(|error| located(error, file))?;
        game.turns.extend(more.turns);
        game.position = more.position;
    }
    if args.html {
        let title = format!("{} ({} turns)", start.spec().game, game.turns.len());
        return Ok(render_html(&title, &start, &game.turns));
    }
    let overlay = match &args.overlay {
        None => Vec::new(),
        Some(spec) => {
            let source = AgentChoice::parse(spec).with_context(|| format!("agent {spec:?}"))?;
            let seed = args.position.seed.unwrap_or(0);
            source
                .hints(&game.position, args.overlay_simulations, seed)
                ?
        }
    };
    Ok(render_svg(&game.position, &overlay))
}
