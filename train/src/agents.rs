//! Where agents come from, for every command: the one factory from a network to a searching
//! agent (as KataGo's `program/setup` is for its commands).
//!
//! A network — a checkpoint on disk, or the one a run is training — becomes a
//! [`ServedNetwork`]: an inference server with the settings every caller wants (on a CPU each
//! searching thread runs its whole steps as passes on a replica of its own; on a GPU a server
//! thread gathers the searchers' steps into one pass). The served network hands out the search's evaluator (the network's
//! values, optionally blended with random playouts, [`MixedEvaluator`]) and searching agents.
//! Baselines (`random`, `greedy`, `rollout:N`) come from their spec. Training (self-play and
//! evaluation matches), `evaluate`, `selfplay`, `play`, `engine` and `render` all build their
//! agents here, so a default changed here changes for all of them.
use std::path::{Path, PathBuf};
use std::time::Duration;

use gipfzero_games::{Game, Spec};
use gipfzero_mcts::{
    Agent, AgentError, AgentSpecError, EvalError, InvalidSetting, MctsAgent,
    MixedEvaluator, RolloutEvaluator, RootPolicy, SearchConfig, SearchError,
};
use gipfzero_model::checkpoint::{self, CheckpointError};
use gipfzero_model::{DeviceChoice, InferenceError, InferenceServer, Network, NetworkEvaluator, Precision, ServerConfig};
use gipfzero_play::{turn_shares, AgentSource, Baseline, BaselineError};
use thiserror::Error;

/// Simulations of a checkpoint's search when no budget says otherwise.
pub const CHECKPOINT_SIMULATIONS: u32 = 400;

/// The environment variable that points `model:NAME` at another folder of networks.
pub const MODELS_ENV: &str = "GIPFZERO_MODELS";

/// Leaves a network agent collects per forward pass (kept apart by virtual loss) when it
/// plays under a time budget. A pass of 8 positions costs a CPU about 3 times a pass of one
/// (`gipfzero bench model`, the shipped networks' shape), so at equal time the search runs 2 to 3 times the simulations,
/// each a little less informed. Chosen by matches at 100 ms a turn against `rollout:1000` given the same
/// time (fourteenth session, 60 games each, docs/RESULTS.md): 1, 4, 8 and 16 leaves scored
/// 50.0, 55.8, 67.5 and 50.8 % in LYNGK and 52.5, 66.7, 70.0 and 68.3 % in ZÈRTZ. A search
/// with a fixed number of simulations keeps one leaf: the sequential algorithm exactly.
pub const TIMED_LEAVES_PER_TREE: u32 = 8;

/// Positions an exact endgame search may make per simulation before a timed network turn's
/// tree search (`SearchConfig::endgame_nodes`): 64 cost about a tenth of the turn when it
/// proves nothing (the search makes about 6.4 million DVONN positions a second, `cargo bench
/// -p gipfzero-mcts --bench endgame`; a simulation of the shipped DVONN network under a time
/// takes about 100 µs; twenty-eighth session, AMD EPYC; the PrimaDvonna matches of
/// docs/RESULTS.md saw 15 % fewer simulations a turn), and a proven win or draw is then
/// played in milliseconds.
pub const TIMED_ENDGAME_NODES: u32 = 64;

/// The folder of the shipped networks: `$GIPFZERO_MODELS` when set, else `models/` of the
/// source tree this binary was built from (a binary copied to another machine takes the
/// variable).
pub fn models_dir() -> PathBuf {
    match std::env::var_os(MODELS_ENV) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("models"),
    }
}

/// The checkpoint of the shipped network `name` (`model:NAME`: `<models_dir>/NAME`), checked
/// to exist; the error lists the networks that do.
pub fn model_checkpoint(name: &str) -> Result<PathBuf, AgentsError> {
    let dir = models_dir();
    let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    let path = dir.join(name);
    if valid && checkpoint::CheckpointPaths::new(&path).sidecar.is_file() {
        return Ok(path);
    }
    let mut available: Vec<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
                .filter_map(|file| file.strip_suffix(".safetensors").map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    available.sort();
    Err(AgentsError::UnknownModel { name: name.to_string(), dir, available: available.join(", ") })
}

/// Why an agent could not be made.
#[derive(Debug, Error)]
pub enum AgentsError {
    #[error("checkpoint {}", path.display())]
    Checkpoint {
        path: PathBuf,
        #[source]
        source: CheckpointError,
    },
    #[error("cannot start the inference server")]
    Server(#[source] InferenceError),
    #[error("the network does not fit the game")]
    Network(#[source] InferenceError),
    #[error(transparent)]
    Setting(#[from] InvalidSetting),
    #[error(transparent)]
    Spec(#[from] AgentSpecError),
    #[error("{0} (or checkpoint:<path>)")]
    UnknownAgent(AgentSpecError),
    #[error(transparent)]
    Baseline(#[from] BaselineError),
    #[error(transparent)]
    RolloutMix(#[from] EvalError),
    #[error("checkpoint: needs a path, e.g. checkpoint:runs/a/checkpoints/iter-000010")]
    EmptyCheckpointPath,
    #[error("no shipped network model:{name} in {} (there: {available}; set {MODELS_ENV} to use another folder)", dir.display())]
    UnknownModel { name: String, dir: PathBuf, available: String },
    #[error("the search failed")]
    Search(#[from] SearchError),
}

/// The evaluator of leaves: the network's value with `rollout_mix` of one random playout's
/// outcome blended in (0 plays no playouts and leaves the values alone).
pub type LeafEvaluator = MixedEvaluator<NetworkEvaluator>;

/// A network behind an inference server, for the searches of one or many games at once.
pub struct ServedNetwork {
    server: InferenceServer,
    spec: &'static Spec,
}

/// Where and how a served network computes: the device, the number format, and on a GPU the
/// server threads and how long a batch waits for the searchers' requests.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Serving {
    pub device: DeviceChoice,
    pub precision: Precision,
    /// Server threads on a GPU, each with its own copy of the weights, launching passes at
    /// once; 0 = [`DEFAULT_GPU_REPLICAS`]. Ignored on a CPU (a replica per searcher there).
    pub gpu_replicas: usize,
    /// On a GPU, how long a batch waits for the rest of the searchers' requests after its
    /// first (it closes as soon as every searcher has one in); zero takes what is queued.
    /// Ignored on a CPU, where each searcher's requests go to a replica of its own.
    pub gpu_wait: Duration,
    /// On a GPU, passes in fixed-size buckets replayed as CUDA graphs
    /// (`gipfzero_model::cuda_graph`). Ignored on a CPU.
    pub cuda_graphs: bool,
    /// On a CPU, the passes run on server threads of their own, a searcher's request handed
    /// over to one, instead of on the searching threads themselves (the default, see
    /// [`ServedNetwork::serve`]); kept to measure the one against the other (`bench selfplay
    /// --server-threads`). Ignored on a GPU, whose server threads gather several searchers'
    /// requests.
    pub cpu_server_threads: bool,
}

impl Serving {
    /// On `device` in f32, with the default server threads and wait.
    pub fn on(device: DeviceChoice) -> Serving {
        Serving { device, precision: Precision::F32, gpu_replicas: 0, gpu_wait: DEFAULT_GPU_WAIT, cuda_graphs: false, cpu_server_threads: false }
    }

    /// The same, for searchers that keep no request in while they wait: a match's games (and
    /// a league opponent's), which alternate between two agents. A GPU batch takes what is
    /// queued instead of waiting for requests that will not come while the other side moves.
    pub fn for_matches(self) -> Serving {
        Serving { gpu_wait: Duration::ZERO, ..self }
    }

    /// The network's replicas for `searchers` searching threads: on a CPU one per searcher up to
    /// one per core (one forward pass runs on one core, so the searchers' passes run side by
    /// side); on a GPU `gpu_replicas` (or the default), never more than the searchers (each
    /// has at most one request waiting).
    pub fn replicas(&self, searchers: usize) -> usize {
        if self.device.resolve() == tch::Device::Cpu {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            searchers.clamp(1, cores)
        } else {
            let wanted = if self.gpu_replicas == 0 { DEFAULT_GPU_REPLICAS } else { self.gpu_replicas };
            wanted.clamp(1, searchers.max(1))
        }
    }

    /// Whether the servers' passes run as CUDA graphs: asked for, and on a GPU (`cuda_graphs`
    /// is ignored on a CPU).
    pub fn graphs_on_device(&self) -> bool {
        self.cuda_graphs && self.device.resolve() != tch::Device::Cpu
    }
}

/// Server threads on a GPU unless configured: one. Measured on an H200 (docs/PERFORMANCE.md,
/// "GPU"): a pass of the 6 × 64 network costs about 1.7 ms at any batch from 8 to 512, and 2,
/// 4 or 8 threads passing at once add nothing (the passes take turns), while the searchers'
/// requests split into smaller batches: self-play at 512 games in flight ran at 62, 53, 43 and
/// 24 thousand positions a second on 1, 2, 4 and 8 threads.
pub const DEFAULT_GPU_REPLICAS: usize = 1;

/// How long a GPU batch waits for the rest of the searchers' requests unless configured: a
/// little more than one pass of a self-play network on an H200 (about 1.7 ms), so that a
/// pass holds every searcher's leaves and the generation's tail, where searchers have stopped,
/// loses at most that per pass.
pub const DEFAULT_GPU_WAIT: Duration = Duration::from_millis(2);

/// Whether `milliseconds` is a GPU batch's wait that can be configured
/// (`threads.gpu_wait_ms`, `bench selfplay --gpu-wait-ms`): finite, from 0 to 1000.
pub fn valid_gpu_wait_ms(milliseconds: f64) -> bool {
    milliseconds.is_finite() && (0.0..=1000.0).contains(&milliseconds)
}

impl ServedNetwork {
    /// Serves `network` (of `spec`'s variant) on `device` to `searchers` threads that search
    /// at once, sending at most `max_batch` positions among them (the games in flight: more
    /// never come at once), in f32 with the default replicas ([`Serving::replicas`]). On a
    /// CPU each searching thread runs its passes itself, on a replica it keeps while no other
    /// thread holds it (`ServerConfig::on_callers`: no hand-over to a server thread), unless
    /// [`Serving::cpu_server_threads`]; on a GPU a replica's batch
    /// waits (up to [`Serving::gpu_wait`]) for a request from each of its share of the
    /// searchers, up to `max_batch` positions: a pass costs about the same at any size there.
    /// `searchers` must be threads that each keep a request in while they search (self-play's
    /// workers); callers whose threads do not (a match's games, which alternate between two
    /// networks) serve with a zero `gpu_wait`.
    pub fn serve(network: &Network, spec: &'static Spec, device: DeviceChoice, max_batch: usize, searchers: usize) -> Result<ServedNetwork, AgentsError> {
        Self::serve_in(network, spec, Serving::on(device), max_batch, searchers)
    }

    /// [`ServedNetwork::serve`] as `serving` says.
    pub fn serve_in(network: &Network, spec: &'static Spec, serving: Serving, max_batch: usize, searchers: usize) -> Result<ServedNetwork, AgentsError> {
        let replicas = serving.replicas(searchers);
        let on_cpu = serving.device.resolve() == tch::Device::Cpu;
        let (max_batch, max_wait, requesters) = if on_cpu {
            // Searches send whole steps to replicas of their own: waiting for more requests
            // would only add latency.
            (max_batch.div_ceil(replicas), Duration::ZERO, 0)
        } else {
            // A pass costs about the same at any size: the batch waits for every searcher
            // (module docs of `gipfzero_model::inference`), and no more searchers send than
            // there are games in flight (a worker without games sends nothing).
            (max_batch, serving.gpu_wait, searchers.min(max_batch).div_ceil(replicas).max(1))
        };
        let config = ServerConfig {
            max_batch: max_batch.max(1),
            max_wait,
            requesters,
            device: serving.device,
            precision: serving.precision,
            replicas,
            cuda_graphs: serving.graphs_on_device(),
            on_callers: on_cpu && !serving.cpu_server_threads,
            ..ServerConfig::default()
        };
        let server = InferenceServer::spawn(network, config).map_err(AgentsError::Server)?;
        Ok(ServedNetwork { server, spec })
    }

    /// Loads the checkpoint at `path`, checked against `spec`'s variant, and serves it (as
    /// [`ServedNetwork::serve_in`]).
    pub fn load(path: &Path, spec: &'static Spec, serving: Serving, max_batch: usize, searchers: usize) -> Result<ServedNetwork, AgentsError> {
        let loaded = checkpoint::load(path, spec, serving.device.resolve())
            .map_err(|source| AgentsError::Checkpoint { path: path.to_path_buf(), source })?;
        Self::serve_in(&loaded.network, spec, serving, max_batch, searchers)
    }

    /// The threads serving requests (see [`ServedNetwork::serve`]).
    pub fn replicas(&self) -> usize {
        self.server.replicas()
    }

    /// Whether the passes run on the searching threads (see [`ServedNetwork::serve`]).
    pub fn passes_on_searchers(&self) -> bool {
        self.server.on_callers()
    }

    /// The forward passes so far by size (see [`InferenceHandle::pass_sizes`]).
    ///
    /// [`InferenceHandle::pass_sizes`]: gipfzero_model::inference::InferenceHandle::pass_sizes
    pub fn pass_sizes(&self) -> Vec<(usize, u64)> {
        self.server.handle().pass_sizes()
    }

    /// The search's evaluator on this network, with `rollout_mix` of a playout blended in
    /// (seeded by `seed`).
    pub fn evaluator(&self, rollout_mix: f32, seed: u64) -> Result<LeafEvaluator, AgentsError> {
        let network = NetworkEvaluator::new(self.server.handle(), self.spec).map_err(AgentsError::Network)?;
        Ok(MixedEvaluator::new(network, RolloutEvaluator::new(1, seed), rollout_mix)?)
    }

    /// A searching agent named `name` over this network, its leaves valued with the search's
    /// [`SearchConfig::rollout_mix`].
    pub fn agent<G: Game>(&self, name: impl Into<String>, search: &SearchConfig, seed: u64) -> Result<MctsAgent<G, LeafEvaluator>, AgentsError> {
        Ok(MctsAgent::new(name, self.evaluator(search.rollout_mix, seed)?, search.clone(), seed)?)
    }
}

/// An agent spec from the command line.
#[derive(Clone, Debug)]
pub enum AgentChoice {
    Baseline(Baseline),
    Checkpoint(PathBuf),
    /// A shipped network, `model:NAME`, and its checkpoint.
    Model { name: String, path: PathBuf },
}

impl AgentChoice {
    /// Reads `checkpoint:<path>`, `model:<name>` or a baseline spec.
    pub fn parse(spec: &str) -> Result<AgentChoice, AgentsError> {
        if let Some(name) = spec.strip_prefix("model:") {
            return Ok(AgentChoice::Model { name: name.to_string(), path: model_checkpoint(name)? });
        }
        match spec.strip_prefix("checkpoint:") {
            Some(path) if !path.is_empty() => Ok(AgentChoice::Checkpoint(PathBuf::from(path))),
            Some(_) => Err(AgentsError::EmptyCheckpointPath),
            None => Ok(AgentChoice::Baseline(Baseline::new(spec).map_err(AgentsError::UnknownAgent)?)),
        }
    }

    /// The network's checkpoint, for a network agent.
    pub fn checkpoint(&self) -> Option<&Path> {
        match self {
            AgentChoice::Baseline(_) => None,
            AgentChoice::Checkpoint(path) | AgentChoice::Model { path, .. } => Some(path),
        }
    }

    /// The checkpoint's network served on the best device there is to `searchers` threads
    /// searching at once, for matches ([`Serving::for_matches`]).
    fn serve<G: Game>(path: &Path, position: &G, searchers: usize) -> Result<ServedNetwork, AgentsError> {
        let serving = Serving::on(DeviceChoice::Auto).for_matches();
        ServedNetwork::load(path, position.spec(), serving, ServerConfig::default().max_batch, searchers)
    }

    /// A search over the checkpoint at `path` (this choice's network), owning its server.
    fn network_agent<G: Game>(&self, path: &Path, position: &G, search: &SearchConfig, seed: u64) -> Result<Box<dyn Agent<G>>, AgentsError> {
        let network = Self::serve(path, position, 1)?;
        let agent = network.agent(self.name(), search, seed)?;
        Ok(Box::new(NetworkAgent { agent, _network: network }))
    }
}

/// How a checkpoint agent searches.
#[derive(Clone, Copy, Debug, Default)]
pub struct CheckpointSearch {
    /// Simulations per decision; [`CHECKPOINT_SIMULATIONS`] when `None`.
    pub simulations: Option<u32>,
    /// A Gumbel root (sequential halving over the prior's top actions, no noise) instead of
    /// PUCT.
    pub gumbel: bool,
    /// The weight of one random playout's result in each leaf's value (0: the network's
    /// value alone; see [`MixedEvaluator`]).
    pub rollout_mix: f32,
}

impl CheckpointSearch {
    /// The search these settings describe (evaluation play: no noise, the best action).
    pub fn config(&self) -> SearchConfig {
        let root = if self.gumbel { RootPolicy::Gumbel } else { RootPolicy::Puct };
        SearchConfig {
            rollout_mix: self.rollout_mix,
            ..SearchConfig::evaluation(self.simulations.unwrap_or(CHECKPOINT_SIMULATIONS), root)
        }
    }
}

/// Makes the agents of one side of a match, one per game: a checkpoint is loaded once and
/// served by one inference server that all its games share (the match's games run on rayon's
/// threads, so the server has a replica for each on a CPU, and gathers their positions into
/// common batches on a GPU).
pub struct AgentFactory {
    choice: AgentChoice,
    network: Option<ServedNetwork>,
    search: CheckpointSearch,
}

impl AgentFactory {
    /// Loads `choice` (a checkpoint is checked against `position`'s variant); a checkpoint's
    /// agents search as `search` says, baselines as their spec says.
    pub fn new<G: Game>(choice: AgentChoice, position: &G, search: CheckpointSearch) -> Result<AgentFactory, AgentsError> {
        MixedEvaluator::<NetworkEvaluator>::check_weight(search.rollout_mix)?;
        let network = match choice.checkpoint() {
            Some(path) => {
                // Refused here, before any game, rather than when the first agent is built.
                search.config().validate()?;
                Some(AgentChoice::serve(path, position, rayon::current_num_threads())?)
            }
            None => None,
        };
        Ok(AgentFactory { choice, network, search })
    }

    /// A fresh agent for one game, seeded with `seed`.
    pub fn agent<G: Game>(&self, position: &G, seed: u64) -> Result<Box<dyn Agent<G>>, AgentsError> {
        match &self.network {
            Some(network) => {
                Ok(Box::new(network.agent(self.choice.name(), &self.search.config(), seed)?))
            }
            // A baseline plays as its spec says: `--simulations` is the checkpoints' budget,
            // and `rollout:1000` must stay rollout:1000 beside a checkpoint searching 200.
            None => self.choice.agent(position, None, seed),
        }
    }
}

/// A search agent over a network, owning the server its evaluator talks to.
struct NetworkAgent<G: Game> {
    agent: MctsAgent<G, LeafEvaluator>,
    _network: ServedNetwork,
}

impl<G: Game> Agent<G> for NetworkAgent<G> {
    fn name(&self) -> String {
        self.agent.name()
    }

    fn choose_turn(&mut self, position: &G) -> Result<G::Turn, AgentError> {
        self.agent.choose_turn(position)
    }

    fn new_game(&mut self) {
        self.agent.new_game()
    }

    fn set_simulations(&mut self, simulations: u32) -> bool {
        self.agent.set_simulations(simulations)
    }

    fn last_evaluated_share(&self) -> Option<f64> {
        self.agent.last_evaluated_share()
    }

    fn probe(&mut self, position: &G) -> Result<Option<u32>, AgentError> {
        self.agent.probe(position)
    }
}

impl AgentSource for AgentChoice {
    type Error = AgentsError;

    fn name(&self) -> String {
        match self {
            AgentChoice::Baseline(baseline) => baseline.name(),
            AgentChoice::Checkpoint(path) => format!("checkpoint:{}", path.display()),
            AgentChoice::Model { name, .. } => format!("model:{name}"),
        }
    }

    fn searches(&self) -> bool {
        match self {
            AgentChoice::Baseline(baseline) => baseline.searches(),
            AgentChoice::Checkpoint(_) | AgentChoice::Model { .. } => true,
        }
    }

    fn agent<G: Game>(&self, position: &G, simulations: Option<u32>, seed: u64) -> Result<Box<dyn Agent<G>>, AgentsError> {
        match self {
            AgentChoice::Baseline(baseline) => Ok(baseline.agent(position, simulations, seed)?),
            AgentChoice::Checkpoint(path) | AgentChoice::Model { path, .. } => {
                let search = CheckpointSearch { simulations, ..CheckpointSearch::default() };
                self.network_agent(path, position, &search.config(), seed)
            }
        }
    }

    /// A network under a time budget collects [`TIMED_LEAVES_PER_TREE`] leaves per forward
    /// pass (kept apart by virtual loss) and tries an exact endgame search first
    /// ([`TIMED_ENDGAME_NODES`]); a baseline is its own agent.
    fn timed_agent<G: Game>(&self, position: &G, simulations: u32, seed: u64) -> Result<Box<dyn Agent<G>>, AgentsError> {
        match self {
            AgentChoice::Baseline(_) => self.agent(position, Some(simulations), seed),
            AgentChoice::Checkpoint(path) | AgentChoice::Model { path, .. } => {
                let search = CheckpointSearch { simulations: Some(simulations), ..CheckpointSearch::default() };
                let config = SearchConfig {
                    leaves_per_tree: TIMED_LEAVES_PER_TREE,
                    stop_when_decided: true,
                    endgame_nodes: TIMED_ENDGAME_NODES,
                    ..search.config()
                };
                self.network_agent(path, position, &config, seed)
            }
        }
    }

    fn hints<G: Game>(&self, position: &G, simulations: u32, seed: u64) -> Result<Vec<(G::Turn, f32)>, AgentsError> {
        match self {
            AgentChoice::Baseline(baseline) => Ok(baseline.hints(position, simulations, seed)?),
            AgentChoice::Checkpoint(path) | AgentChoice::Model { path, .. } => {
                let network = Self::serve(path, position, 1)?;
                let config = SearchConfig {
                    reuse_tree: false,
                    ..SearchConfig::evaluation(simulations.max(1), RootPolicy::Puct)
                };
                Ok(turn_shares(position, &network.evaluator(0.0, seed)?, &config, seed)?)
            }
        }
    }
}
