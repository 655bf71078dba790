//! Checkpoint files: the weights as safetensors, described by a JSON sidecar.
//!
//! A checkpoint named `dir/NAME` is two files:
//! - `dir/NAME.safetensors`: every parameter under its stable name (see [`crate::network`]),
//!   `f32`, plus any extra training tensors under `extra.` (see below). Readable from Python
//!   with `safetensors.torch.load_file`.
//! - `dir/NAME.json`: a [`CheckpointInfo`]: format version, game and variant, the network's
//!   shape (the variant's numbers and the [`NetConfig`]), the training step, the hash of the
//!   training configuration, and the weights file's name, size and FNV-1a hash.
//!
//! Crash safety: each file is written through [`gipfzero_store`] (a temporary file in the same
//! directory, flushed to disk, renamed over its final name, the directory synced). The weights
//! go first and the sidecar last, so a sidecar always describes weights that were completely
//! written. Overwriting a checkpoint of the same name can still be interrupted between the two
//! renames; the old sidecar then disagrees with the new weights' size or hash and loading
//! fails with [`CheckpointError::Damaged`] instead of returning mismatched weights.
//!
//! Loading checks everything it can before trusting the weights (game, variant, observation
//! and action shape, weights size and hash, every tensor's name and shape) and answers with a
//! typed [`CheckpointError`]; a damaged file is an error, never a panic.
//!
//! The seam for training state: tch's optimisers keep their moments inside libtorch where they
//! cannot be saved, so a trainer that wants exact resumption keeps what it needs (optimiser
//! moments, RNG state, counters) as its own tensors and JSON values and passes them in
//! [`TrainingState`]: `tensors` are stored in the same safetensors file as `extra.NAME`, and
//! `metadata` is stored verbatim in the sidecar's `extra` field. [`load`] gives both back.
use std::fs;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use gipfzero_games::Spec;
use gipfzero_store::{replace_with, write_atomically};
use serde::{Deserialize, Serialize};
use tch::{Device, Kind, Tensor};
use thiserror::Error;

use crate::network::{NetConfig, Network};

/// The version of the checkpoint format this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// The prefix of extra training tensors in the weights file.
pub const EXTRA_PREFIX: &str = "extra.";

/// The two files of a checkpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointPaths {
    pub weights: PathBuf,
    pub sidecar: PathBuf,
}

impl CheckpointPaths {
    /// The files of the checkpoint named `name` (`dir/NAME`); a `.json` or `.safetensors`
    /// extension is ignored, so either file's path names the checkpoint too.
    pub fn new(name: impl AsRef<Path>) -> CheckpointPaths {
        let name = name.as_ref();
        let stem = match name.extension().and_then(|e| e.to_str()) {
            Some("json") | Some("safetensors") => name.with_extension(""),
            _ => name.to_path_buf(),
        };
        let with = |extension: &str| {
            let mut path = stem.clone().into_os_string();
            path.push(extension);
            PathBuf::from(path)
        };
        CheckpointPaths { weights: with(".safetensors"), sidecar: with(".json") }
    }
}

/// The sidecar: what the weights are and where they came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointInfo {
    pub format_version: u32,
    pub game: String,
    pub variant: String,
    pub shape: NetworkShape,
    /// Training steps taken when the checkpoint was written.
    pub step: u64,
    /// The caller's hash of the training configuration (opaque here).
    pub config_hash: String,
    pub weights: WeightsFile,
    /// Names of the extra training tensors (without the `extra.` prefix).
    pub extra_tensors: Vec<String>,
    /// The trainer's own metadata, stored verbatim.
    pub extra: serde_json::Value,
}

/// The network's shape as stored in the sidecar. Its own record, so that the file format stays
/// fixed even if [`NetConfig`] changes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkShape {
    pub planes: usize,
    pub height: usize,
    pub width: usize,
    pub action_count: usize,
    pub blocks: usize,
    pub channels: usize,
    pub global_pool_channels: usize,
    pub policy_channels: usize,
    pub value_channels: usize,
    pub value_hidden: usize,
    pub norm_groups: usize,
}

impl NetworkShape {
    pub fn new(spec: &Spec, config: &NetConfig) -> NetworkShape {
        NetworkShape {
            planes: spec.planes,
            height: spec.height,
            width: spec.width,
            action_count: spec.action_count,
            blocks: config.blocks,
            channels: config.channels,
            global_pool_channels: config.global_pool_channels,
            policy_channels: config.policy_channels,
            value_channels: config.value_channels,
            value_hidden: config.value_hidden,
            norm_groups: config.norm_groups,
        }
    }

    pub fn net_config(&self) -> NetConfig {
        NetConfig {
            blocks: self.blocks,
            channels: self.channels,
            global_pool_channels: self.global_pool_channels,
            policy_channels: self.policy_channels,
            value_channels: self.value_channels,
            value_hidden: self.value_hidden,
            norm_groups: self.norm_groups,
        }
    }

    fn spec_numbers(&self) -> [usize; 4] {
        [self.planes, self.height, self.width, self.action_count]
    }
}

/// The weights file a sidecar describes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WeightsFile {
    /// File name, in the sidecar's directory.
    pub file: String,
    pub bytes: u64,
    /// FNV-1a 64-bit hash of the whole file, 16 hexadecimal digits (a string, because JSON
    /// readers in Python and JavaScript lose precision on integers above 2^53).
    pub fnv1a64: String,
}

/// Training state stored beside the weights (see the module docs).
#[derive(Debug, Default)]
pub struct TrainingState {
    pub step: u64,
    pub config_hash: String,
    /// Named tensors (optimiser moments, …), stored as `extra.NAME`; given back on the CPU.
    pub tensors: Vec<(String, Tensor)>,
    /// Anything else, stored verbatim in the sidecar.
    pub metadata: serde_json::Value,
}

/// A loaded checkpoint.
#[derive(Debug)]
pub struct Checkpoint {
    pub network: Network,
    pub info: CheckpointInfo,
    pub training: TrainingState,
}

/// Why a checkpoint could not be written or read.
#[derive(Debug, Error)]
pub enum CheckpointError {
    #[error("checkpoint file {path} does not exist")]
    Missing { path: PathBuf },
    #[error("cannot read {path}")]
    Read { path: PathBuf, source: io::Error },
    #[error("cannot write {path}")]
    Write { path: PathBuf, source: io::Error },
    #[error("checkpoint sidecar {path} is not valid: {message}")]
    Sidecar { path: PathBuf, message: String },
    #[error(
        "checkpoint {path} has format version {found}; this build reads version {FORMAT_VERSION}"
    )]
    Version { path: PathBuf, found: u32 },
    #[error("checkpoint {path} is for {found_game} variant {found_variant}, expected {expected_game} variant {expected_variant}")]
    WrongGame {
        path: PathBuf,
        found_game: String,
        found_variant: String,
        expected_game: String,
        expected_variant: String,
    },
    #[error("checkpoint {path} has planes × height × width / actions {found:?}, the variant has {expected:?}")]
    WrongShape { path: PathBuf, found: [usize; 4], expected: [usize; 4] },
    #[error("checkpoint weights {path} are damaged: {message}")]
    Damaged { path: PathBuf, message: String },
}

/// Writes `network` and `training` as the checkpoint `name` (see the module docs for the
/// files and the crash-safety protocol). Returns the sidecar written.
pub fn save(
    name: impl AsRef<Path>,
    network: &Network,
    training: &TrainingState,
) -> Result<CheckpointInfo, CheckpointError> {
    let paths = CheckpointPaths::new(name);
    let write_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CheckpointError::Write { path, source }
    };

    let mut tensors: Vec<(String, Tensor)> = network
        .var_store()
        .variables()
        .into_iter()
        .map(|(name, tensor)| (name, tensor.detach().to_device(Device::Cpu).to_kind(Kind::Float)))
        .collect();
    for (name, tensor) in &training.tensors {
        tensors.push((
            format!("{EXTRA_PREFIX}{name}"),
            tensor.detach().to_device(Device::Cpu).contiguous(),
        ));
    }
    tensors.sort_by(|a, b| a.0.cmp(&b.0));

    replace_with(&paths.weights, |temporary| {
        Tensor::write_safetensors(&tensors, temporary).map_err(|error| io::Error::other(error.to_string()))
    })
    .map_err(write_error(&paths.weights))?;
    let bytes = fs::read(&paths.weights).map_err(write_error(&paths.weights))?;

    let info = CheckpointInfo {
        format_version: FORMAT_VERSION,
        game: network.spec().game.to_string(),
        variant: network.spec().variant.to_string(),
        shape: NetworkShape::new(network.spec(), network.config()),
        step: training.step,
        config_hash: training.config_hash.clone(),
        weights: WeightsFile {
            file: file_name(&paths.weights),
            bytes: bytes.len() as u64,
            fnv1a64: format!("{:016x}", fnv1a64(&bytes)),
        },
        extra_tensors: training.tensors.iter().map(|(name, _)| name.clone()).collect(),
        extra: training.metadata.clone(),
    };
    let json = serde_json::to_vec_pretty(&info).expect("a checkpoint info always serialises");
    // Also syncs the directory, which makes the weights' rename durable too.
    write_atomically(&paths.sidecar, &json).map_err(write_error(&paths.sidecar))?;
    Ok(info)
}

/// Reads and checks the sidecar of checkpoint `name`, without the weights.
pub fn read_info(name: impl AsRef<Path>) -> Result<CheckpointInfo, CheckpointError> {
    let path = CheckpointPaths::new(name).sidecar;
    let text = read_file(&path)?;
    let info: CheckpointInfo = serde_json::from_slice(&text).map_err(|error| {
        CheckpointError::Sidecar { path: path.clone(), message: error.to_string() }
    })?;
    if info.format_version != FORMAT_VERSION {
        return Err(CheckpointError::Version { path, found: info.format_version });
    }
    Ok(info)
}

/// Loads checkpoint `name` for the variant `spec`, with the network on `device`.
pub fn load(
    name: impl AsRef<Path>,
    spec: &Spec,
    device: Device,
) -> Result<Checkpoint, CheckpointError> {
    let paths = CheckpointPaths::new(name);
    let info = read_info(&paths.sidecar)?;
    let sidecar = paths.sidecar.clone();
    if info.game != spec.game || info.variant != spec.variant {
        return Err(CheckpointError::WrongGame {
            path: sidecar,
            found_game: info.game,
            found_variant: info.variant,
            expected_game: spec.game.to_string(),
            expected_variant: spec.variant.to_string(),
        });
    }
    let expected = [spec.planes, spec.height, spec.width, spec.action_count];
    if info.shape.spec_numbers() != expected {
        return Err(CheckpointError::WrongShape {
            path: sidecar,
            found: info.shape.spec_numbers(),
            expected,
        });
    }
    let mut network = Network::new(spec, &info.shape.net_config(), device).map_err(|error| {
        CheckpointError::Sidecar { path: sidecar.clone(), message: error.to_string() }
    })?;

    // The weights file is the one the sidecar names, next to it.
    let weights_path = sidecar.with_file_name(&info.weights.file);
    let damaged =
        |message: String| CheckpointError::Damaged { path: weights_path.clone(), message };
    let bytes = read_file(&weights_path)?;
    if bytes.len() as u64 != info.weights.bytes {
        return Err(damaged(format!(
            "{} bytes, the sidecar says {}",
            bytes.len(),
            info.weights.bytes
        )));
    }
    let hash = format!("{:016x}", fnv1a64(&bytes));
    if hash != info.weights.fnv1a64 {
        return Err(damaged(format!(
            "FNV-1a hash {hash}, the sidecar says {}",
            info.weights.fnv1a64
        )));
    }
    drop(bytes);
    let mut tensors = read_safetensors(&weights_path).map_err(damaged)?;
    copy_parameters(&mut network, &mut tensors).map_err(damaged)?;

    let mut extra = Vec::with_capacity(info.extra_tensors.len());
    for name in &info.extra_tensors {
        let tensor = tensors
            .remove(&format!("{EXTRA_PREFIX}{name}"))
            .ok_or_else(|| damaged(format!("extra tensor {name} is missing")))?;
        extra.push((name.clone(), tensor));
    }
    if let Some(name) = tensors.keys().next() {
        return Err(damaged(format!("unexpected tensor {name}")));
    }
    let training = TrainingState {
        step: info.step,
        config_hash: info.config_hash.clone(),
        tensors: extra,
        metadata: info.extra.clone(),
    };
    Ok(Checkpoint { network, info, training })
}

/// Parses a safetensors file; tch returns errors for malformed headers, and the parse runs
/// under `catch_unwind` in case a libtorch call on odd data panics instead.
fn read_safetensors(path: &Path) -> Result<std::collections::HashMap<String, Tensor>, String> {
    match panic::catch_unwind(AssertUnwindSafe(|| Tensor::read_safetensors(path))) {
        Ok(Ok(tensors)) => Ok(tensors.into_iter().collect()),
        Ok(Err(error)) => Err(error.to_string()),
        Err(_) => Err("libtorch could not decode the file".to_string()),
    }
}

/// Copies every parameter of `network` from `tensors` (removing them), checking names, shapes
/// and element types: libtorch's `copy_` would broadcast a wrongly shaped tensor silently.
fn copy_parameters(
    network: &mut Network,
    tensors: &mut std::collections::HashMap<String, Tensor>,
) -> Result<(), String> {
    let mut variables: Vec<_> = network.var_store().variables().into_iter().collect();
    variables.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, mut variable) in variables {
        let source = tensors.remove(&name).ok_or_else(|| format!("tensor {name} is missing"))?;
        if source.size() != variable.size() {
            return Err(format!(
                "tensor {name} has shape {:?}, expected {:?}",
                source.size(),
                variable.size()
            ));
        }
        if source.kind() != Kind::Float {
            return Err(format!("tensor {name} holds {:?}, expected Float", source.kind()));
        }
        tch::no_grad(|| variable.f_copy_(&source))
            .map_err(|error| format!("tensor {name}: {error}"))?;
    }
    Ok(())
}

fn read_file(path: &Path) -> Result<Vec<u8>, CheckpointError> {
    fs::read(path).map_err(|source| match source.kind() {
        io::ErrorKind::NotFound => CheckpointError::Missing { path: path.to_path_buf() },
        _ => CheckpointError::Read { path: path.to_path_buf(), source },
    })
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default()
}

/// FNV-1a, 64 bits: enough to detect a truncated or altered file, with no dependency.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ byte as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
