//! A run at a URL: one trainer and any number of self-play workers, on any machines, sharing
//! nothing but an object store (S3 and S3-compatible stores, Google Cloud Storage, Azure
//! Blob, or a folder; [`gipfzero_store::object`]). docs/DISTRIBUTED.md is the user's guide;
//! this is the design.
//!
//! **The trainer is the ordinary loop** ([`crate::pipeline`]) on a local working directory,
//! with two parts swapped:
//! - its self-play ([`StoreSelfPlay`]) publishes the network that is to play generation `g`
//!   and then *gathers* the generation instead of playing it: it lists `shards/`, reads the
//!   shards no earlier generation took, and returns once they hold `self_play.games` games.
//!   The shards it took (and those it rejected, with the reason) go into the generation's
//!   record `generations/GGGGGG.json`, which is how a restarted trainer rebuilds its replay
//!   window and knows which shards are spoken for.
//! - after each commit point, [`StoreMirror`] copies the working directory (config,
//!   checkpoints, restart copies, metrics, plots: the files of a local run) to the store, the
//!   commit point `resume.json` last, then deletes what the commit made obsolete. The store's
//!   `resume.json` is the one that counts: a trainer starting (on this machine or another)
//!   empties its working directory and copies the run back from the store.
//!
//! **One trainer per run.** Before each commit the trainer checks that the store's
//! `resume.json` is still the one it restored or last wrote; if another trainer has committed
//! meanwhile (two started on one run by mistake), it stops with an error naming the run. That
//! finds the mistake within an iteration on every kind of store; it is a check, not a lock.
//!
//! **Exactly once.** A shard is consumed when a generation record names it and the store's
//! commit point covers that generation (`resume.json`'s `iteration` is past it). A trainer
//! killed before its commit redoes the generation from the previous commit: the shards it had
//! taken are not in any committed record, so the redone generation takes them again, with
//! whatever arrived since, once. A commit covers the records before it, so a shard is never
//! taken twice. No watermark over key order is needed (keys from many machines do not arrive
//! in key order).
//!
//! **Workers** ([`work`]) hold no state: they read `config.yaml` and `player.json` (the
//! network to play, replaced by the trainer for each generation), play `games_per_shard` games
//! with the whole-machine self-play, and upload them as one shard under a name of their own,
//! `shards/w-GGGGGG-WORKER-SEQ.npz` (`GGGGGG` the generation whose network played, `WORKER` a
//! random 64-bit id drawn at start, `SEQ` a counter), the game records (`.jsonl`) first, the
//! `.npz` last, both create-only. An object is visible only whole, so a killed worker leaves
//! nothing half-written and loses only its games in flight. Between two uploads a worker
//! fetches a newer network if `player.json` names one; it stops once the run is finished.
//!
//! What a lagging worker costs: its shards name the generation that played them; a shard more
//! than `distributed.max_lag` generations older than the one being gathered is stale and
//! rejected (recorded, never deleted, never retried). A generation of more than
//! `self_play.games` games (fast workers, or a trainer busy evaluating) gets proportionally
//! more SGD steps, up to `distributed.max_step_scale` times `training.steps_per_iteration`,
//! so that the steps per new position stay as configured; beyond the cap the trainer trains
//! less per position rather than fall further behind.
//!
//! What is not reproducible, unlike a local run: which games a generation holds depends on
//! which workers delivered first. Each game is still a function of its worker's seed and its
//! network; the trainer's resume is exact given the shards its records name.
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use gipfzero_games::registry::GameVisitor;
use gipfzero_games::{Game, SplitMix64};
use gipfzero_model::checkpoint::{self, CheckpointError};
use gipfzero_model::Network;
use gipfzero_selfplay::generator::{Generator, GeneratorConfig, RECORDS_FILE};
use gipfzero_selfplay::shard::{parse_shard, read_shard, shard_bytes, ShardData, ShardError};
use gipfzero_store::object::{ObjectError, RunStore, Traffic};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::agents::{AgentsError, ServedNetwork};
use crate::config::{ConfigError, RunConfig};
use crate::evaluate::NetworkArena;
use crate::generation::{league_opponents, GenerationError};
use crate::config::Opponent;
use crate::evaluate::ArenaError;
use crate::metrics::{EvaluationMetrics, IterationMetrics};
use crate::pipeline::{fixed_network, on_the_configs_game, run_publishing, Arena, BoxedError, Generation, PipelineError, Publish, SelfPlay};
use crate::replay::Samples;
use crate::run::{ResumeState, RunDir};

/// The run's config (the trainer's working directory's `config.yaml`).
pub const CONFIG_KEY: &str = "config.yaml";
/// The trainer's commit point (the working directory's `resume.json`).
pub const RESUME_KEY: &str = "resume.json";
/// The network the workers are to play: a [`PlayerRecord`], replaced for each generation.
pub const PLAYER_KEY: &str = "player.json";
/// The workers' uploads.
pub const SHARDS: &str = "shards";
/// The trainer's generation records ([`GenerationRecord`]).
pub const GENERATIONS: &str = "generations";
/// The networks `player.json` names, each written once under a name of its own.
pub const PLAYERS: &str = "players";
/// The evaluation workers' ratings ([`EvaluationRecord`]).
pub const EVALUATIONS: &str = "evaluations";
/// The file that marks a trainer's working directory as its own (it is emptied when a trainer
/// starts; a folder without it that holds anything is refused).
const CACHE_MARK: &str = ".gipfzero-trainer";

/// What went wrong in a trainer or a worker of a run at a URL.
#[derive(Debug, Error)]
pub enum DistributedError {
    #[error(transparent)]
    Store(#[from] ObjectError),
    #[error(transparent)]
    Pipeline(Box<PipelineError>),
    #[error("{}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{url}: {message}")]
    Corrupt { url: String, message: String },
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error(transparent)]
    Generation(#[from] GenerationError),
    #[error(transparent)]
    Agents(#[from] AgentsError),
    #[error(transparent)]
    SelfPlay(#[from] gipfzero_selfplay::SelfPlayError),
    #[error(transparent)]
    Shard(#[from] ShardError),
    #[error("evaluation of checkpoint {iteration} against {opponent}")]
    Evaluation {
        iteration: u32,
        opponent: String,
        #[source]
        source: ArenaError,
    },
    #[error("{url} was written by another trainer since this one's last commit (two trainers on one run?); this one stops: start one trainer, which continues from the store's commit point")]
    AnotherTrainer { url: String },
    #[error("{url} changed during each of {attempts} copies of the run: another trainer is committing to it; start one trainer")]
    Unsettled { url: String, attempts: u32 },
    #[error("{url} holds a run with another configuration (it differs in {keys}): give its config, or none (`gipfzero train --run URL` continues the stored run), or another URL")]
    ConfigChanged { url: String, keys: String },
    #[error("{path} is not a trainer's working directory (it holds files and no {CACHE_MARK}); give an empty or new folder")]
    NotACache { path: PathBuf },
}

impl From<PipelineError> for DistributedError {
    fn from(error: PipelineError) -> Self {
        DistributedError::Pipeline(Box::new(error))
    }
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> DistributedError + '_ {
    move |source| DistributedError::Io { path: path.to_path_buf(), source }
}

/// `player.json`: the network the workers are to play.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerRecord {
    /// The generation it was published for (the `GGGGGG` of the shards it plays).
    pub generation: u64,
    /// The checkpoint's key without extension (`players/gen-GGGGGG-NONCE`).
    pub checkpoint: String,
}

/// `generations/GGGGGG.json`: the shards a generation took and rejected.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GenerationRecord {
    pub generation: u64,
    /// In the order their positions were concatenated.
    pub shards: Vec<ShardEntry>,
    pub rejected: Vec<RejectedObject>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardEntry {
    pub key: String,
    pub games: u64,
    pub positions: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RejectedObject {
    pub key: String,
    pub reason: String,
}

/// The key of generation `generation`'s record.
pub fn generation_key(generation: u64) -> String {
    format!("{GENERATIONS}/{generation:06}.json")
}

/// The key stem (no extension) of a worker's upload.
pub fn shard_stem(generation: u64, worker: u64, sequence: u64) -> String {
    format!("{SHARDS}/w-{generation:06}-{worker:016x}-{sequence:06}")
}

/// The generation in a shard key of [`shard_stem`]'s form with `.npz`; `None` for any other
/// name.
pub fn shard_generation(key: &str) -> Option<u64> {
    let name = key.strip_prefix(SHARDS)?.strip_prefix('/')?.strip_suffix(".npz")?;
    let mut parts = name.strip_prefix("w-")?.split('-');
    let (generation, worker, sequence) = (parts.next()?, parts.next()?, parts.next()?);
    let ok = parts.next().is_none()
        && generation.len() == 6
        && worker.len() == 16
        && sequence.len() >= 6
        && u64::from_str_radix(worker, 16).is_ok()
        && sequence.bytes().all(|b| b.is_ascii_digit());
    if !ok {
        return None;
    }
    generation.parse().ok()
}

/// Reads a JSON object of the store, naming it when it is not what was expected.
fn get_json<T: for<'de> Deserialize<'de>>(store: &RunStore, key: &str) -> Result<T, DistributedError> {
    let bytes = store.get(key)?;
    serde_json::from_slice(&bytes).map_err(|error| DistributedError::Corrupt {
        url: object_url(store, key),
        message: format!("not a gipfzero {key} ({error})"),
    })
}

/// An object's full URL, as messages name it.
pub fn object_url(store: &RunStore, key: &str) -> String {
    format!("{}/{key}", store.url().trim_end_matches('/'))
}

/// Reads `key`, waiting (every `poll`) while it does not exist.
fn wait_for(store: &RunStore, key: &str, poll: Duration) -> Result<Vec<u8>, DistributedError> {
    loop {
        match store.get(key) {
            Ok(bytes) => return Ok(bytes),
            Err(error) if error.is_not_found() => thread::sleep(poll),
            Err(error) => return Err(error.into()),
        }
    }
}

/// The run's config as the store holds it; `None` when there is no run there.
pub fn stored_config(store: &RunStore) -> Result<Option<RunConfig>, DistributedError> {
    match store.get(CONFIG_KEY) {
        Ok(bytes) => Ok(Some(parse_config(store, &bytes)?)),
        Err(error) if error.is_not_found() => Ok(None),
        Err(error) => Err(error.into()),
    }
}

fn parse_config(store: &RunStore, bytes: &[u8]) -> Result<RunConfig, DistributedError> {
    let text = std::str::from_utf8(bytes).map_err(|_| DistributedError::Corrupt {
        url: object_url(store, CONFIG_KEY),
        message: "not UTF-8 text".into(),
    })?;
    Ok(RunConfig::from_run_yaml(text, &object_url(store, CONFIG_KEY))?)
}

/// Whether the run's commit point says it is finished.
fn finished(store: &RunStore, config: &RunConfig) -> Result<bool, DistributedError> {
    match get_json::<ResumeState>(store, RESUME_KEY) {
        Ok(state) => Ok(state.iteration >= config.iterations),
        Err(DistributedError::Store(error)) if error.is_not_found() => Ok(false),
        Err(error) => Err(error),
    }
}

/// Whether a working-directory file is copied to the store (not the trainer's mark, nor
/// temporary files of interrupted writes, nor the local `shards/` folder, which a run at a
/// URL leaves empty).
fn mirrored(relative: &Path) -> bool {
    let mut components = relative.components();
    let first = components.next().map(|c| c.as_os_str().to_string_lossy().into_owned()).unwrap_or_default();
    if first == SHARDS || first == GENERATIONS || first == PLAYERS || first == PLAYER_KEY || first == EVALUATIONS {
        return false;
    }
    relative
        .iter()
        .all(|part| !part.to_string_lossy().starts_with('.'))
}

/// The files under `root` that the store mirrors, by key.
fn local_files(root: &Path) -> Result<BTreeMap<String, PathBuf>, DistributedError> {
    let mut found = BTreeMap::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in fs::read_dir(&folder).map_err(io_error(&folder))? {
            let path = entry.map_err(io_error(&folder))?.path();
            let relative = path.strip_prefix(root).expect("under the root").to_path_buf();
            if !mirrored(&relative) {
                continue;
            }
            if path.is_dir() {
                folders.push(path);
            } else {
                let key = relative.iter().map(|part| part.to_string_lossy()).collect::<Vec<_>>().join("/");
                found.insert(key, path);
            }
        }
    }
    Ok(found)
}

/// Copies the trainer's working directory to the store after each commit point (see the
/// module docs): changed files, then `resume.json`, then deletions.
pub struct StoreMirror {
    store: RunStore,
    /// What the store holds of the mirrored files: key → FNV-1a of the bytes.
    stored: HashMap<String, u64>,
}

impl StoreMirror {
    /// Empties `root` (a trainer's working directory, or a new folder) and copies the run's
    /// mirrored files from the store into it: the state the store's commit point describes.
    ///
    /// A copy is a list, then one read per object: if another trainer commits meanwhile (two
    /// started on one run by mistake), an object listed may be gone when it is read, or the
    /// files may belong to two commits. So the copy counts only if the commit point is the
    /// same before and after it and every object listed was read; otherwise it is made
    /// again, up to [`RESTORE_ATTEMPTS`] times. The two trainers then meet at the first
    /// commit of either, where one stops with [`DistributedError::AnotherTrainer`].
    pub fn restore(store: RunStore, root: &Path) -> Result<StoreMirror, DistributedError> {
        if root.exists() {
            let empty = fs::read_dir(root).map_err(io_error(root))?.next().is_none();
            if !empty && !root.join(CACHE_MARK).is_file() {
                return Err(DistributedError::NotACache { path: root.to_path_buf() });
            }
        }
        for attempt in 1..=RESTORE_ATTEMPTS {
            if let Some(stored) = Self::copy_back(&store, root)? {
                return Ok(StoreMirror { store, stored });
            }
            thread::sleep(Duration::from_millis(50 * attempt as u64));
        }
        Err(DistributedError::Unsettled { url: object_url(&store, RESUME_KEY), attempts: RESTORE_ATTEMPTS })
    }

    /// One attempt of [`StoreMirror::restore`]: the hashes of what it copied, or `None` when
    /// the store's commit point moved under it.
    fn copy_back(store: &RunStore, root: &Path) -> Result<Option<HashMap<String, u64>>, DistributedError> {
        if root.exists() {
            fs::remove_dir_all(root).map_err(io_error(root))?;
        }
        fs::create_dir_all(root).map_err(io_error(root))?;
        let mark = root.join(CACHE_MARK);
        fs::write(&mark, format!("the working directory of the trainer of {}\n", store.url())).map_err(io_error(&mark))?;
        let before = commit_point(store)?;
        let mut stored = HashMap::new();
        for object in store.list("")? {
            if !mirrored(Path::new(&object.key)) {
                continue;
            }
            let bytes = match store.get(&object.key) {
                Ok(bytes) => bytes,
                Err(error) if error.is_not_found() => return Ok(None),
                Err(error) => return Err(error.into()),
            };
            let path = object.key.split('/').fold(root.to_path_buf(), |path, part| path.join(part));
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).map_err(io_error(parent))?;
            }
            fs::write(&path, &bytes).map_err(io_error(&path))?;
            stored.insert(object.key, checkpoint::fnv1a64(&bytes));
        }
        let settled = before == commit_point(store)? && before == stored.get(RESUME_KEY).copied();
        Ok(settled.then_some(stored))
    }

    /// The requests and bytes of the copies so far.
    pub fn traffic(&self) -> Traffic {
        self.store.traffic()
    }

    fn copy(&mut self, root: &Path) -> Result<(), DistributedError> {
        // The store's commit point must still be the one this trainer restored or last wrote:
        // anything else is another trainer's commit (two trainers started on one run by
        // mistake), and this one stops before it interleaves its commits with the other's.
        // A check then a write, not a conditional write: it finds the mistake within an
        // iteration on every kind of store, it does not make two trainers safe.
        if commit_point(&self.store)? != self.stored.get(RESUME_KEY).copied() {
            return Err(DistributedError::AnotherTrainer { url: object_url(&self.store, RESUME_KEY) });
        }
        let files = local_files(root)?;
        let mut commit = None;
        for (key, path) in &files {
            let bytes = fs::read(path).map_err(io_error(path))?;
            if key == RESUME_KEY {
                commit = Some(bytes);
                continue;
            }
            let hash = checkpoint::fnv1a64(&bytes);
            if self.stored.get(key) != Some(&hash) {
                self.store.put(key, bytes)?;
                self.stored.insert(key.clone(), hash);
            }
        }
        if let Some(bytes) = commit {
            let hash = checkpoint::fnv1a64(&bytes);
            self.store.put(RESUME_KEY, bytes)?;
            self.stored.insert(RESUME_KEY.to_string(), hash);
        }
        let obsolete: Vec<String> = self.stored.keys().filter(|key| !files.contains_key(*key)).cloned().collect();
        for key in obsolete {
            self.store.delete(&key)?;
            self.stored.remove(&key);
        }
        Ok(())
    }
}

/// How many times [`StoreMirror::restore`] copies a run whose commit point keeps moving.
pub const RESTORE_ATTEMPTS: u32 = 8;

/// The hash of the store's commit point (`resume.json`), `None` before the first commit.
fn commit_point(store: &RunStore) -> Result<Option<u64>, DistributedError> {
    match store.get(RESUME_KEY) {
        Ok(bytes) => Ok(Some(checkpoint::fnv1a64(&bytes))),
        Err(error) if error.is_not_found() => Ok(None),
        Err(error) => Err(error.into()),
    }
}

impl Publish for StoreMirror {
    fn committed(&mut self, run: &RunDir) -> Result<(), BoxedError> {
        self.copy(run.root()).map_err(|error| Box::new(error) as BoxedError)
    }
}

/// A message for the person running the trainer or worker (a shard rejected, a wait).
pub type Notice = Arc<dyn Fn(&str) + Send + Sync>;

/// The trainer's self-play: generations gathered from the workers' shards (see the module
/// docs).
pub struct StoreSelfPlay<G: Game> {
    start: G,
    config: RunConfig,
    store: RunStore,
    /// Shards (and rejected objects) of the generations before the one being gathered.
    taken: HashSet<String>,
    /// Shards read and accepted, not yet in a generation: key → positions.
    pending: BTreeMap<String, (Samples, u64)>,
    /// Objects rejected while gathering the current generation.
    rejected: BTreeMap<String, String>,
    scratch: PathBuf,
    nonce: u64,
    /// Whether the store holds the run's config (written by the first publication).
    config_published: bool,
    notice: Notice,
}

impl<G: Game> StoreSelfPlay<G> {
    /// The self-play of a trainer whose store commit point has `committed` iterations: the
    /// shards of generations `0..committed` are taken.
    pub fn new(start: G, config: &RunConfig, store: RunStore, committed: u32, notice: Notice) -> Result<Self, DistributedError> {
        let mut taken = HashSet::new();
        for generation in 0..committed as u64 {
            // Every committed generation has its record (written before its commit).
            let record: GenerationRecord = get_json(&store, &generation_key(generation))?;
            taken.extend(record.shards.into_iter().map(|shard| shard.key));
            taken.extend(record.rejected.into_iter().map(|object| object.key));
        }
        let scratch = config.run_dir.join(format!("{CACHE_MARK}-scratch"));
        fs::create_dir_all(&scratch).map_err(io_error(&scratch))?;
        let nonce = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64) ^ std::process::id() as u64;
        Ok(StoreSelfPlay {
            start,
            config: config.clone(),
            store,
            taken,
            pending: BTreeMap::new(),
            rejected: BTreeMap::new(),
            scratch,
            nonce: SplitMix64::new(nonce).next_u64(),
            config_published: false,
            notice,
        })
    }

    /// Writes `network` as the player of `generation`: the checkpoint under a name of its
    /// own, then `player.json` naming it. Also writes the run's config the first time (once
    /// per trainer process), so that workers can start before the first commit.
    fn publish(&mut self, network: &Network, generation: u64) -> Result<(), DistributedError> {
        if !self.config_published {
            let config_path = RunDir::new(&self.config.run_dir).config_path();
            let config = fs::read(&config_path).map_err(io_error(&config_path))?;
            match self.store.put_create_only(CONFIG_KEY, config) {
                Err(error) if !error.is_already_exists() => return Err(error.into()),
                _ => self.config_published = true,
            }
        }
        // Saved under the key's own name, which the sidecar records for its weights file.
        let name = format!("gen-{generation:06}-{:016x}", self.nonce);
        let local = self.scratch.join(&name);
        checkpoint::save(&local, network, &Default::default())?;
        let files = checkpoint::CheckpointPaths::new(&local);
        let key = format!("{PLAYERS}/{name}");
        for (path, extension) in [(&files.weights, "safetensors"), (&files.sidecar, "json")] {
            let bytes = fs::read(path).map_err(io_error(path))?;
            self.store.put(&format!("{key}.{extension}"), bytes)?;
            let _ = fs::remove_file(path);
        }
        let record = PlayerRecord { generation, checkpoint: key };
        self.store.put(PLAYER_KEY, serde_json::to_vec_pretty(&record).expect("serialisable"))?;
        // Players of generations no shard may come from any more.
        let oldest = generation.saturating_sub(self.config.distributed.max_lag as u64 + 1);
        for object in self.store.list(PLAYERS)? {
            let old = object
                .key
                .strip_prefix("players/gen-")
                .and_then(|rest| rest.get(..6))
                .and_then(|number| number.parse::<u64>().ok())
                .is_some_and(|g| g < oldest);
            if old {
                self.store.delete(&object.key)?;
            }
        }
        Ok(())
    }

    /// Reads a shard of the store: its positions and games, or why it cannot be used.
    fn read(&self, key: &str) -> Result<Result<(Samples, u64), String>, DistributedError> {
        let bytes = self.store.get(key)?;
        let url = object_url(&self.store, key);
        let shard = match parse_shard(Path::new(&url), &bytes) {
            Ok(shard) => shard,
            Err(error) => {
                let why = error_chain(&error);
                let why = why.strip_prefix(url.as_str()).map_or(why.as_str(), |rest| rest.trim_start_matches([':', ' ']));
                return Ok(Err(format!("not a readable shard: {why}")));
            }
        };
        let spec = self.start.spec();
        if (shard.samples.observation_len, shard.samples.action_count) != (spec.observation_len(), spec.action_count) {
            return Ok(Err(format!("positions of {} {}, the run plays {}", shard.info.game, shard.info.variant, spec.variant)));
        }
        let games = shard.samples.game_id.iter().collect::<BTreeSet<_>>().len() as u64;
        Ok(Ok((shard.samples, games)))
    }

    /// Why a shard played by the network of generation `played` is not taken into
    /// `generation`.
    fn stale(&self, played: u64, generation: u64) -> String {
        let max_lag = self.config.distributed.max_lag;
        format!("stale: played by the network of generation {played}, more than distributed.max_lag = {max_lag} before generation {generation}")
    }

    fn reject(&mut self, key: &str, reason: String) {
        (self.notice)(&format!("{}: rejected: {reason}", object_url(&self.store, key)));
        self.rejected.insert(key.to_string(), reason);
    }

    /// Lists `shards/` and reads what is new.
    fn look(&mut self, generation: u64) -> Result<(), DistributedError> {
        let oldest = generation.saturating_sub(self.config.distributed.max_lag as u64);
        for object in self.store.list(SHARDS)? {
            let key = object.key;
            if self.taken.contains(&key) || self.pending.contains_key(&key) || self.rejected.contains_key(&key) {
                continue;
            }
            if key.ends_with(".jsonl") && shard_generation(&format!("{}.npz", key.trim_end_matches(".jsonl"))).is_some() {
                continue; // a shard's game records: they go with its .npz
            }
            match shard_generation(&key) {
                None => self.reject(&key, "not a shard's name (shards/w-GGGGGG-WORKER-SEQ.npz)".into()),
                Some(played) if played < oldest => {
                    let reason = self.stale(played, generation);
                    self.reject(&key, reason)
                }
                Some(_) => match self.read(&key)? {
                    Ok(read) => {
                        self.pending.insert(key, read);
                    }
                    Err(reason) => self.reject(&key, reason),
                },
            }
        }
        // Pending shards that went stale while the generation before was trained.
        let stale: Vec<String> = self.pending.keys().filter(|key| shard_generation(key).is_some_and(|g| g < oldest)).cloned().collect();
        for key in stale {
            self.pending.remove(&key);
            let reason = self.stale(shard_generation(&key).expect("a shard's name"), generation);
            self.reject(&key, reason);
        }
        Ok(())
    }

    fn gather(&mut self, network: &Network, generation: u64) -> Result<Generation, DistributedError> {
        self.publish(network, generation)?;
        let wanted = self.config.self_play.games;
        let poll = Duration::from_millis(self.config.distributed.poll_ms);
        let began = Instant::now();
        let mut told = Instant::now();
        loop {
            self.look(generation)?;
            let games: u64 = self.pending.values().map(|(_, games)| games).sum();
            if games >= wanted {
                break;
            }
            if told.elapsed() >= Duration::from_secs(60) {
                (self.notice)(&format!(
                    "generation {generation}: {games} of {wanted} games after {:.0} s; waiting for workers (gipfzero worker {})",
                    began.elapsed().as_secs_f64(),
                    self.store.url()
                ));
                told = Instant::now();
            }
            thread::sleep(poll);
        }
        let mut record = GenerationRecord { generation, ..Default::default() };
        let mut samples = Samples::new(self.start.spec());
        let mut games = 0;
        for (key, (shard, shard_games)) in std::mem::take(&mut self.pending) {
            samples.extend_from(&shard);
            games += shard_games;
            record.shards.push(ShardEntry { key, games: shard_games, positions: shard.len() as u64 });
        }
        record.rejected = std::mem::take(&mut self.rejected).into_iter().map(|(key, reason)| RejectedObject { key, reason }).collect();
        self.store.put(&generation_key(generation), serde_json::to_vec_pretty(&record).expect("serialisable"))?;
        self.taken.extend(record.shards.iter().map(|shard| shard.key.clone()));
        self.taken.extend(record.rejected.iter().map(|object| object.key.clone()));
        let positions = samples.len() as u64;
        Ok(Generation {
            samples,
            games: games as u32,
            actions: positions,
            positions_played: positions,
            league: Vec::new(),
            step_scale: (games as f64 / wanted.max(1) as f64).min(self.config.distributed.max_step_scale),
        })
    }

    fn reload(&mut self, generation: u64) -> Result<Samples, DistributedError> {
        let record: GenerationRecord = get_json(&self.store, &generation_key(generation))?;
        let mut samples = Samples::new(self.start.spec());
        for shard in &record.shards {
            match self.read(&shard.key)? {
                Ok((positions, _)) => samples.extend_from(&positions),
                Err(reason) => {
                    return Err(DistributedError::Corrupt { url: object_url(&self.store, &shard.key), message: reason });
                }
            }
        }
        Ok(samples)
    }
}

fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

impl<G: Game> SelfPlay<G> for StoreSelfPlay<G> {
    type Error = DistributedError;

    fn generate(&mut self, _run: &RunDir, network: &Network, generation: u64, _seed: u64) -> Result<Generation, DistributedError> {
        self.gather(network, generation)
    }

    fn load(&mut self, _run: &RunDir, generation: u64) -> Result<Samples, DistributedError> {
        self.reload(generation)
    }
}

/// Runs (or resumes) the trainer of the run at `url`: `config` is the run's (its `run_dir`
/// is the trainer's working directory, emptied and filled from the store first). `progress`
/// sees each iteration's metrics once the store holds its commit point. Returns the
/// requests and bytes this trainer exchanged with the store.
pub fn train_at(
    url: &str,
    config: &RunConfig,
    notice: Notice,
    progress: impl FnMut(&IterationMetrics) + Send,
) -> Result<Traffic, DistributedError> {
    let store = RunStore::open(url)?;
    // The run the store holds must be this config's (only `iterations` may differ, which
    // extends it, and the working directory); said here with the URL, before anything moves.
    if let Some(stored) = stored_config(&store)? {
        let comparable = RunConfig { iterations: config.iterations, run_dir: config.run_dir.clone(), ..stored };
        if comparable != *config {
            let keys = crate::run::differing_keys(&comparable, config).join(", ");
            return Err(DistributedError::ConfigChanged { url: object_url(&store, CONFIG_KEY), keys });
        }
    }
    let mut mirror = StoreMirror::restore(store, &config.run_dir)?;
    let committed = RunDir::new(&config.run_dir).read_resume().map_err(PipelineError::from)?.map_or(0, |state| state.iteration);
    let self_play_store = RunStore::open(url)?;
    struct Trainer<'a, P> {
        config: &'a RunConfig,
        store: RunStore,
        committed: u32,
        mirror: &'a mut StoreMirror,
        notice: Notice,
        progress: P,
    }
    impl<P: FnMut(&IterationMetrics) + Send> GameVisitor for Trainer<'_, P> {
        type Output = Result<Traffic, PipelineError>;
        fn visit<G: Game>(self, start: G) -> Self::Output {
            let boxed = |error: DistributedError| PipelineError::SelfPlay { generation: self.committed as u64, source: Box::new(error) };
            let mut self_play = StoreSelfPlay::new(start.clone(), self.config, self.store, self.committed, self.notice).map_err(boxed)?;
            let mut arena = NetworkArena::new(start.clone(), self.config);
            run_publishing(self.config, &start, &mut self_play, &mut arena, self.mirror, self.progress)?;
            Ok(self_play.store.traffic())
        }
    }
    let trainer = Trainer { config, store: self_play_store, committed, mirror: &mut mirror, notice, progress };
    let gathering = on_the_configs_game(config, trainer)?;
    Ok(gathering + mirror.traffic())
}

/// How a worker runs.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// Self-play threads (0 = one per core).
    pub threads: usize,
    /// The folder for the games in play and the network (emptied of a previous worker's).
    pub work_dir: PathBuf,
    /// Stop after this many uploads (`None`: when the run is finished).
    pub max_shards: Option<u64>,
    /// The device, overriding the run config's (a worker's machine need not be the
    /// trainer's).
    pub device: Option<String>,
}

/// What a worker did.
#[derive(Clone, Debug, Default)]
pub struct WorkerSummary {
    pub shards: u64,
    pub games: u64,
    pub positions: u64,
    pub traffic: Traffic,
}

/// The run's config as a worker runs it: read from the store (waiting for the trainer to
/// write it), with the worker's device and threads.
fn worker_config(store: &RunStore, options: &WorkerOptions) -> Result<RunConfig, DistributedError> {
    let mut config = parse_config(store, &wait_for(store, CONFIG_KEY, Duration::from_millis(1000))?)?;
    if let Some(device) = &options.device {
        config.device = device.clone();
        config.validate().map_err(|invalid| DistributedError::Corrupt {
            url: object_url(store, CONFIG_KEY),
            message: format!("{}: {}", invalid.path, invalid.message),
        })?;
    }
    config.threads.workers = options.threads;
    Ok(config)
}

/// What a worker process does with the run's game: play and upload, or rate.
trait WorkerRole {
    type Summary: Send;
    fn run<G: Game>(start: G, store: &RunStore, config: &RunConfig, options: &WorkerOptions, notice: &Notice) -> Result<Self::Summary, DistributedError>;
}

struct SelfPlayRole;
struct EvaluationRole;

impl WorkerRole for SelfPlayRole {
    type Summary = WorkerSummary;
    fn run<G: Game>(start: G, store: &RunStore, config: &RunConfig, options: &WorkerOptions, notice: &Notice) -> Result<WorkerSummary, DistributedError> {
        play_and_upload(start, store, config, options, notice)
    }
}

impl WorkerRole for EvaluationRole {
    type Summary = EvaluatorSummary;
    fn run<G: Game>(start: G, store: &RunStore, config: &RunConfig, options: &WorkerOptions, notice: &Notice) -> Result<EvaluatorSummary, DistributedError> {
        rate_checkpoints(start, store, config, options, notice)
    }
}

/// Opens the run at `url`, waits for its config, and runs role `R` on its game with the
/// worker's threads.
fn run_role<R: WorkerRole>(url: &str, options: &WorkerOptions, notice: Notice) -> Result<R::Summary, DistributedError> {
    let store = RunStore::open(url)?;
    let config = worker_config(&store, options)?;
    // A fresh work folder: what an earlier worker left there is of no use.
    let root = &options.work_dir;
    if root.exists() {
        fs::remove_dir_all(root).map_err(io_error(root))?;
    }
    fs::create_dir_all(root).map_err(io_error(root))?;
    struct Visitor<'a, R> {
        store: RunStore,
        config: RunConfig,
        options: &'a WorkerOptions,
        notice: Notice,
        role: std::marker::PhantomData<fn() -> R>,
    }
    impl<R: WorkerRole> GameVisitor for Visitor<'_, R> {
        type Output = Result<Result<R::Summary, DistributedError>, PipelineError>;
        fn visit<G: Game>(self, start: G) -> Self::Output {
            Ok(R::run(start, &self.store, &self.config, self.options, &self.notice))
        }
    }
    let visitor = Visitor::<R> { store, config: config.clone(), options, notice, role: std::marker::PhantomData };
    on_the_configs_game(&config, visitor)?
}

/// Runs a self-play worker of the run at `url` (see the module docs) until the run is
/// finished or `options.max_shards` uploads are made.
pub fn work(url: &str, options: &WorkerOptions, notice: Notice) -> Result<WorkerSummary, DistributedError> {
    run_role::<SelfPlayRole>(url, options, notice)
}

fn play_and_upload<G: Game>(
    start: G,
    store: &RunStore,
    config: &RunConfig,
    options: &WorkerOptions,
    notice: &Notice,
) -> Result<WorkerSummary, DistributedError> {
    let root = &options.work_dir;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let mut seeds = SplitMix64::new(now ^ ((std::process::id() as u64) << 32));
    let worker = seeds.next_u64();
    let poll = Duration::from_millis(config.distributed.poll_ms);
    let spec = start.spec();
    let device = config.device_choice();
    let workers = config.worker_threads();
    let games = match config.distributed.games_per_shard {
        0 => config.self_play.games_in_flight as u64,
        n => n,
    };
    let mut summary = WorkerSummary::default();
    let mut loaded: Option<(PlayerRecord, Network)> = None;
    notice(&format!("worker {worker:016x} of {}: {games} games per shard, {workers} threads", store.url()));
    loop {
        if finished(store, config)? || options.max_shards.is_some_and(|max| summary.shards >= max) {
            break;
        }
        let player: PlayerRecord = match serde_json::from_slice(&wait_for(store, PLAYER_KEY, poll)?) {
            Ok(player) => player,
            Err(error) => {
                return Err(DistributedError::Corrupt { url: object_url(store, PLAYER_KEY), message: format!("not a gipfzero player.json ({error})") })
            }
        };
        if loaded.as_ref().is_none_or(|(current, _)| *current != player) {
            // Replaced and pruned since player.json was read: read that again.
            let Some(network) = fetch_network(store, &player.checkpoint, &root.join("player"), spec, device.resolve())? else {
                continue;
            };
            loaded = Some((player.clone(), network));
        }
        let (player, network) = loaded.as_ref().expect("loaded above");
        let round = root.join(format!("round-{:06}", summary.shards));
        let generator_config = GeneratorConfig {
            games,
            seed: seeds.next_u64(),
            workers,
            checkpoint: Some(player.checkpoint.clone()),
            ..config.self_play.clone()
        };
        let served = ServedNetwork::serve_in(network, spec, config.serving(), generator_config.games_in_flight, workers)?;
        let evaluator = served.evaluator(config.self_play.search.rollout_mix, generator_config.seed)?;
        let opponents = league_opponents(&start, config, workers)?;
        Generator::new(start.clone(), generator_config, &round)?.with_opponents(opponents).run(&evaluator, &mut ())?;
        drop(served);
        let (shard, records) = merge_round(&round)?;
        let stem = shard_stem(player.generation, worker, summary.shards);
        store.put_create_only(&format!("{stem}.jsonl"), records)?;
        store.put_create_only(&format!("{stem}.npz"), shard_bytes(&shard)?)?;
        fs::remove_dir_all(&round).map_err(io_error(&round))?;
        summary.shards += 1;
        summary.games += games;
        summary.positions += shard.len() as u64;
        notice(&format!("{stem}.npz: {games} games, {} positions, network of generation {}", shard.len(), player.generation));
    }
    summary.traffic = store.traffic();
    Ok(summary)
}

/// The network of the checkpoint `stem` (its key without extension) in the store, through
/// local copies in the folder `local` (under the stem's own name, which its sidecar names);
/// `None` when the store does not hold it (any more).
fn fetch_network(store: &RunStore, stem: &str, local: &Path, spec: &'static gipfzero_games::Spec, device: tch::Device) -> Result<Option<Network>, DistributedError> {
    fs::create_dir_all(local).map_err(io_error(local))?;
    let local = &local.join(stem.rsplit('/').next().unwrap_or(stem));
    let files = checkpoint::CheckpointPaths::new(local);
    for (path, extension) in [(&files.weights, "safetensors"), (&files.sidecar, "json")] {
        match store.get(&format!("{stem}.{extension}")) {
            Ok(bytes) => fs::write(path, bytes).map_err(io_error(path))?,
            Err(error) if error.is_not_found() => return Ok(None),
            Err(error) => return Err(error.into()),
        }
    }
    Ok(Some(checkpoint::load(local, spec, device)?.network))
}

/// `evaluations/iter-NNNNNN.json`: an evaluation worker's ratings of one checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvaluationRecord {
    pub iteration: u32,
    /// One match per opponent of `evaluation.opponents` that could be played.
    pub results: Vec<EvaluationMetrics>,
    /// The opponents that could not (`previous` of the first checkpoint, `best` without
    /// gating), with why.
    pub skipped: Vec<RejectedObject>,
}

/// The key of checkpoint `iteration`'s ratings.
pub fn evaluation_key(iteration: u32) -> String {
    format!("{EVALUATIONS}/iter-{iteration:06}.json")
}

/// The numbered checkpoints among `keys` (both files present), by iteration.
fn numbered_checkpoints<'a>(keys: impl Iterator<Item = &'a str>) -> BTreeSet<u32> {
    let keys: BTreeSet<&str> = keys.collect();
    keys.iter()
        .filter_map(|key| key.strip_prefix("checkpoints/iter-")?.strip_suffix(".safetensors")?.parse::<u32>().ok())
        .filter(|iteration| keys.contains(format!("checkpoints/iter-{iteration:06}.json").as_str()))
        .collect()
}

/// What an evaluation worker did.
#[derive(Clone, Debug, Default)]
pub struct EvaluatorSummary {
    /// The checkpoints it rated (others may have been rated by other evaluation workers).
    pub rated: Vec<u32>,
    pub traffic: Traffic,
}

/// Runs an evaluation worker of the run at `url` (see docs/DISTRIBUTED.md): rates every
/// numbered checkpoint not yet rated against the config's evaluation opponents, writing
/// [`EvaluationRecord`]s create-only, until the run is finished and every checkpoint rated.
pub fn evaluate_checkpoints(url: &str, options: &WorkerOptions, notice: Notice) -> Result<EvaluatorSummary, DistributedError> {
    run_role::<EvaluationRole>(url, options, notice)
}

fn rate_checkpoints<G: Game>(
    start: G,
    store: &RunStore,
    config: &RunConfig,
    options: &WorkerOptions,
    notice: &Notice,
) -> Result<EvaluatorSummary, DistributedError> {
    let root = &options.work_dir;
    let spec = start.spec();
    let device = config.device_choice().resolve();
    let poll = Duration::from_millis(config.distributed.poll_ms);
    let mut arena = crate::evaluate::NetworkArena::new(start.clone(), config);
    let mut summary = EvaluatorSummary::default();
    loop {
        // Whether the run is finished, read before the listing: a run finished then has all
        // its checkpoints in that listing.
        let finished = finished(store, config)?;
        let checkpoints = store.list("checkpoints")?;
        let numbered = numbered_checkpoints(checkpoints.iter().map(|object| object.key.as_str()));
        let rated: BTreeSet<String> = store.list(EVALUATIONS)?.into_iter().map(|object| object.key).collect();
        let todo: Vec<u32> = numbered.iter().copied().filter(|n| !rated.contains(&evaluation_key(*n))).collect();
        if todo.is_empty() {
            if finished {
                break;
            }
            thread::sleep(poll);
            continue;
        }
        for iteration in todo {
            let stem = format!("checkpoints/iter-{iteration:06}");
            // Pruned (`checkpoints.keep`) since the listing: nothing to rate.
            let Some(network) = fetch_network(store, &stem, &root.join("rated"), spec, device)? else { continue };
            let mut record = EvaluationRecord { iteration, results: Vec::new(), skipped: Vec::new() };
            let mut seeds = SplitMix64::new(config.seed ^ 0xE7A1 ^ ((iteration as u64) << 20));
            for opponent in &config.evaluation.opponents {
                let name = opponent.to_string();
                let opponent_network = match opponent {
                    Opponent::Previous => match numbered.range(..iteration).next_back() {
                        Some(previous) => fetch_network(store, &format!("checkpoints/iter-{previous:06}"), &root.join("opponent"), spec, device)?,
                        None => None,
                    },
                    Opponent::Best => fetch_network(store, "checkpoints/best", &root.join("opponent"), spec, device)?,
                    _ => fixed_network(opponent, spec, device).map_err(DistributedError::from)?,
                };
                let needs_network = matches!(opponent, Opponent::Previous | Opponent::Best | Opponent::Checkpoint(_) | Opponent::Model(_));
                if needs_network && opponent_network.is_none() {
                    let reason = match opponent {
                        Opponent::Previous => "no numbered checkpoint before this one in the store",
                        _ => "no champion in the store (the run does not gate)",
                    };
                    record.skipped.push(RejectedObject { key: name, reason: reason.into() });
                    continue;
                }
                let report = arena
                    .play(&network, opponent, opponent_network.as_ref(), config.evaluation.games, seeds.next_u64())
                    .map_err(|source| DistributedError::Evaluation { iteration, opponent: name.clone(), source })?;
                record.results.push(EvaluationMetrics::new(&name, &report));
            }
            let bytes = serde_json::to_vec_pretty(&record).expect("serialisable");
            match store.put_create_only(&evaluation_key(iteration), bytes) {
                Ok(()) => {
                    let scores: Vec<String> = record.results.iter().map(|r| format!("{} {:.0}%", r.opponent, 100.0 * r.score)).collect();
                    notice(&format!("checkpoint {iteration}: {}", scores.join(", ")));
                    summary.rated.push(iteration);
                }
                // Another evaluation worker rated it meanwhile: its record stands.
                Err(error) if error.is_already_exists() => {}
                Err(error) => return Err(error.into()),
            }
        }
    }
    summary.traffic = store.traffic();
    Ok(summary)
}

/// A round's shards as one, and its game records.
fn merge_round(round: &Path) -> Result<(ShardData, Vec<u8>), DistributedError> {
    let mut paths: Vec<PathBuf> = fs::read_dir(round)
        .map_err(io_error(round))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "npz"))
        .collect();
    paths.sort();
    let mut merged: Option<ShardData> = None;
    for path in paths {
        let shard = read_shard(&path)?;
        match &mut merged {
            None => merged = Some(shard),
            Some(all) => all.samples.extend_from(&shard.samples),
        }
    }
    let records_path = round.join(RECORDS_FILE);
    let records = fs::read(&records_path).map_err(io_error(&records_path))?;
    let shard = merged.ok_or_else(|| DistributedError::Io {
        path: round.to_path_buf(),
        source: std::io::Error::other("the round wrote no shard"),
    })?;
    Ok((shard, records))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_names_carry_their_generation() {
        let stem = shard_stem(12, 0xdead_beef, 3);
        assert_eq!(stem, "shards/w-000012-00000000deadbeef-000003");
        assert_eq!(shard_generation(&format!("{stem}.npz")), Some(12));
        for foreign in [
            format!("{stem}.jsonl"),
            "shards/notes.txt".to_string(),
            "shards/w-12-00000000deadbeef-000003.npz".to_string(),
            "shards/w-000012-xyz-000003.npz".to_string(),
            "shards/w-000012-00000000deadbeef-000003-extra.npz".to_string(),
            "other/w-000012-00000000deadbeef-000003.npz".to_string(),
        ] {
            assert_eq!(shard_generation(&foreign), None, "{foreign}");
        }
    }

    #[test]
    fn numbered_checkpoints_need_both_files() {
        let keys = [
            "checkpoints/iter-000000.json",
            "checkpoints/iter-000000.safetensors",
            "checkpoints/iter-000001.safetensors",
            "checkpoints/iter-000002.json",
            "checkpoints/iter-000002.safetensors",
            "checkpoints/latest.json",
            "checkpoints/latest.safetensors",
        ];
        assert_eq!(numbered_checkpoints(keys.into_iter()), BTreeSet::from([0, 2]));
    }

    #[test]
    fn a_restore_during_another_trainers_commits_copies_one_commit() {
        // A writer commits the way StoreMirror does (new file, then resume.json, then the old
        // file deleted) every few milliseconds while the run is restored again and again:
        // each restore must hold one commit point with its file, never fail on an object
        // deleted under it. A hundred files listed before the checkpoints make each copy
        // slow enough for commits to land inside it.
        let dir = std::env::temp_dir().join(format!("gipfzero-restore-race-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let url = format!("file://{}", dir.join("run").display());
        let store = RunStore::open(&url).unwrap();
        for k in 0..100 {
            store.put(&format!("archive/{k:03}.txt"), vec![b'x'; 4096]).unwrap();
        }
        let file = |n: u64| format!("checkpoints/iter-{n:06}.json");
        store.put(&file(0), b"0".to_vec()).unwrap();
        store.put(RESUME_KEY, b"0".to_vec()).unwrap();
        const COMMITS: u64 = 40;
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let writer = {
            let (store, done) = (RunStore::open(&url).unwrap(), Arc::clone(&done));
            thread::spawn(move || {
                for n in 1..=COMMITS {
                    store.put(&file(n), n.to_string().into_bytes()).unwrap();
                    store.put(RESUME_KEY, n.to_string().into_bytes()).unwrap();
                    store.delete(&file(n - 1)).unwrap();
                    thread::sleep(Duration::from_millis(4));
                }
                done.store(true, std::sync::atomic::Ordering::SeqCst);
            })
        };
        let root = dir.join("work");
        let mut restores = 0;
        loop {
            // The writer's state before the restore: once done, this is the last round.
            let last = done.load(std::sync::atomic::Ordering::SeqCst);
            let mirror = StoreMirror::restore(RunStore::open(&url).unwrap(), &root).unwrap();
            restores += 1;
            let commit: u64 = fs::read_to_string(root.join(RESUME_KEY)).unwrap().parse().unwrap();
            let mut files: Vec<String> = fs::read_dir(root.join("checkpoints")).unwrap().map(|entry| format!("checkpoints/{}", entry.unwrap().file_name().to_string_lossy())).collect();
            files.sort();
            // The commit's file, and at most the next commit's, written before its resume.json.
            assert!(files == [file(commit)] || files == [file(commit), file(commit + 1)], "commit {commit}: {files:?}");
            assert_eq!(fs::read_dir(root.join("archive")).unwrap().count(), 100);
            assert_eq!(mirror.stored.get(RESUME_KEY), Some(&checkpoint::fnv1a64(commit.to_string().as_bytes())));
            if last {
                assert_eq!(commit, COMMITS);
                break;
            }
        }
        writer.join().unwrap();
        assert!(restores >= 2, "no restore ran while the writer committed");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_mirror_leaves_out_the_stores_own_objects_and_temporary_files() {
        for (path, expected) in [
            ("config.yaml", true),
            ("resume.json", true),
            ("checkpoints/iter-000001.json", true),
            ("plots/loss.svg", true),
            ("shards/w-000000-0000000000000001-000000.npz", false),
            ("generations/000000.json", false),
            ("players/gen-000000-01.json", false),
            ("player.json", false),
            ("evaluations/iter-000001.json", false),
            (".gipfzero-trainer", false),
            ("resume/.trainer-000001.json.tmp-42", false),
        ] {
            assert_eq!(mirrored(Path::new(path)), expected, "{path}");
        }
    }
}
