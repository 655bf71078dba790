//! `gipfzero export CHECKPOINT OUT`: a checkpoint's network alone, as shipped networks are
//! kept (`models/`, `model:NAME`).
//!
//! A training checkpoint carries the optimiser's moments beside the weights (twice their
//! size again, for Adam) and a sidecar that names its own weights file, so copying its two
//! files under another name breaks it. Export writes a new checkpoint under the new name with
//! the weights only, keeping the training step and config hash it records.
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use gipfzero_games::registry::{GameName, GameSetting, GameVisitor};
use gipfzero_games::Game;
use gipfzero_model::checkpoint::{self, CheckpointInfo, TrainingState};

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The checkpoint to export (its name without extension, or either of its files).
    pub checkpoint: PathBuf,
    /// The checkpoint to write (`OUT.safetensors` and `OUT.json`).
    pub out: PathBuf,
}

pub fn run(args: ExportArgs) -> anyhow::Result<()> {
    let info = checkpoint::read_info(&args.checkpoint)?;
    let game: GameName = info.game.parse().with_context(|| format!("checkpoint {}", args.checkpoint.display()))?;
    let variant = (game == GameName::Zertz).then(|| info.variant.clone());
    let start = GameSetting { game, variant, setup: None, seed: None }.start()?;
    let written = start.visit(Export { args: &args, info: &info })?;
    println!(
        "{} ({} {}, step {}): {} bytes of weights",
        checkpoint::CheckpointPaths::new(&args.out).weights.display(),
        written.game,
        written.variant,
        written.step,
        written.weights.bytes
    );
    Ok(())
}

struct Export<'a> {
    args: &'a ExportArgs,
    info: &'a CheckpointInfo,
}

impl GameVisitor for Export<'_> {
    type Output = anyhow::Result<CheckpointInfo>;
    fn visit<G: Game>(self, start: G) -> Self::Output {
        let loaded = checkpoint::load(&self.args.checkpoint, start.spec(), tch::Device::Cpu)?;
        let folder = checkpoint::CheckpointPaths::new(&self.args.out).weights.parent().map(PathBuf::from);
        if let Some(folder) = folder.filter(|folder| !folder.as_os_str().is_empty()) {
            std::fs::create_dir_all(&folder).with_context(|| format!("cannot create {}", folder.display()))?;
        }
        let state = TrainingState { step: self.info.step, config_hash: self.info.config_hash.clone(), ..TrainingState::default() };
        Ok(checkpoint::save(&self.args.out, &loaded.network, &state)?)
    }
}
