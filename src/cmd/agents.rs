//! Where the command line's agents come from: a baseline spec (`random`, `greedy`,
//! `rollout:<simulations>`) or a network checkpoint (`checkpoint:<path>`), searched with PUCT.
//! Both are [`AgentSource`]s, so `play`, `engine` and `render` take either.
use std::path::PathBuf;

use gipfzero_games::Game;
use gipfzero_mcts::{
    Agent, AgentError, GumbelConfig, MctsAgent, MixedEvaluator, RootPolicy, SearchConfig,
};
use gipfzero_model::{checkpoint, DeviceChoice, InferenceServer, NetworkEvaluator, ServerConfig};
use gipfzero_play::{turn_shares, AgentSource, Baseline};

use crate::training::leaf_evaluator;

/// Simulations of a checkpoint's search when no budget says otherwise.
pub const CHECKPOINT_SIMULATIONS: u32 = 400;

/// An agent spec from the command line.
#[derive(Clone, Debug)]
pub enum AgentChoice {
    Baseline(Baseline),
    Checkpoint(PathBuf),
}

impl AgentChoice {
    /// Reads `checkpoint:<path>` or a baseline spec.
    pub fn parse(spec: &str) -> anyhow::Result<AgentChoice> {
        match spec.strip_prefix("checkpoint:") {
            Some(path) if !path.is_empty() => Ok(AgentChoice::Checkpoint(PathBuf::from(path))),
            Some(_) => {
                anyhow::bail!("checkpoint: needs a path, e.g. checkpoint:runs/a/checkpoints/000010")
            }
            None => {
                Ok(AgentChoice::Baseline(Baseline::new(spec).map_err(|e| {
                    anyhow::anyhow!("{e} (or checkpoint:<path>)")
                })?))
            }
        }
    }

    /// The checkpoint's network behind an inference server, as the search's evaluator.
    fn network<G: Game>(
        path: &PathBuf,
        position: &G,
    ) -> Result<(NetworkEvaluator, InferenceServer), String> {
        let server = Self::serve(path, position)?;
        let evaluator = NetworkEvaluator::new(server.handle(), position.spec()).map_err(|e| e.to_string())?;
        Ok((evaluator, server))
    }

    /// Loads the checkpoint at `path` for `position`'s variant and starts a server for it.
    fn serve<G: Game>(path: &PathBuf, position: &G) -> Result<InferenceServer, String> {
        let loaded = checkpoint::load(path, position.spec(), DeviceChoice::Auto.resolve())
            .map_err(|e| format!("checkpoint {}: {e}", path.display()))?;
        let config = ServerConfig {
            device: DeviceChoice::Auto,
            // Games send whole search steps; whatever is queued when the network is free
            // forms the next batch, so waiting would only add latency.
            max_wait: std::time::Duration::ZERO,
            ..ServerConfig::default()
        };
        InferenceServer::spawn(&loaded.network, config).map_err(|e| e.to_string())
    }

    /// The search of a checkpoint agent with `simulations` (the default when `None`): PUCT, or
    /// a Gumbel root (sequential halving over the prior's top actions, no noise).
    fn search_config(simulations: Option<u32>, gumbel: bool) -> SearchConfig {
        let root = if gumbel { RootPolicy::Gumbel(GumbelConfig::default()) } else { RootPolicy::Puct };
        SearchConfig::evaluation(simulations.unwrap_or(CHECKPOINT_SIMULATIONS), root)
    }
}

/// How a match's checkpoint agents search.
#[derive(Clone, Copy, Debug, Default)]
pub struct CheckpointSearch {
    /// Simulations per decision; [`CHECKPOINT_SIMULATIONS`] when `None`.
    pub simulations: Option<u32>,
    /// A Gumbel root instead of PUCT.
    pub gumbel: bool,
    /// The weight of one random playout's result in each leaf's value (0: the network's
    /// value alone; see [`MixedEvaluator`]).
    pub rollout_mix: f32,
}

/// Makes the agents of one side of a match, one per game: a checkpoint is loaded once and
/// served by one inference server that all its games share, so the positions of games
/// played at the same time (`--threads`) are evaluated in common batches.
pub struct AgentFactory {
    choice: AgentChoice,
    server: Option<InferenceServer>,
    search: CheckpointSearch,
}

impl AgentFactory {
    /// Loads `choice` (a checkpoint is checked against `position`'s variant); a checkpoint's
    /// agents search as `search` says, baselines as their spec says.
    pub fn new<G: Game>(choice: AgentChoice, position: &G, search: CheckpointSearch) -> Result<AgentFactory, String> {
        MixedEvaluator::<NetworkEvaluator>::check_weight(search.rollout_mix).map_err(|e| e.0)?;
        let server = match &choice {
            AgentChoice::Checkpoint(path) => {
                // Refused here, before any game, rather than when the first agent is built.
                AgentChoice::search_config(search.simulations, search.gumbel).validate().map_err(|e| e.to_string())?;
                Some(AgentChoice::serve(path, position)?)
            }
            AgentChoice::Baseline(_) => None,
        };
        Ok(AgentFactory { choice, server, search })
    }

    /// A fresh agent for one game, seeded with `seed`.
    pub fn agent<G: Game>(&self, position: &G, seed: u64) -> Result<Box<dyn Agent<G>>, String> {
        let search = self.search;
        match (&self.choice, &self.server) {
            (AgentChoice::Checkpoint(_), Some(server)) => {
                let network =
                    NetworkEvaluator::new(server.handle(), position.spec()).map_err(|e| e.to_string())?;
                let evaluator = leaf_evaluator(network, search.rollout_mix, seed)?;
                let config = AgentChoice::search_config(search.simulations, search.gumbel);
                Ok(Box::new(MctsAgent::new(self.choice.name(), evaluator, config, seed).map_err(|e| e.to_string())?))
            }
            // A baseline plays as its spec says: `--simulations` is the checkpoints' budget,
            // and `rollout:1000` must stay rollout:1000 beside a checkpoint searching 200.
            (choice, _) => choice.agent(position, None, seed),
        }
    }
}

/// A search agent over a network, owning the server its evaluator talks to.
struct NetworkAgent<G: Game> {
    agent: MctsAgent<G, NetworkEvaluator>,
    _server: InferenceServer,
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
}

impl AgentSource for AgentChoice {
    fn name(&self) -> String {
        match self {
            AgentChoice::Baseline(baseline) => baseline.name(),
            AgentChoice::Checkpoint(path) => format!("checkpoint:{}", path.display()),
        }
    }

    fn searches(&self) -> bool {
        match self {
            AgentChoice::Baseline(baseline) => baseline.searches(),
            AgentChoice::Checkpoint(_) => true,
        }
    }

    fn agent<G: Game>(
        &self,
        position: &G,
        simulations: Option<u32>,
        seed: u64,
    ) -> Result<Box<dyn Agent<G>>, String> {
        match self {
            AgentChoice::Baseline(baseline) => baseline.agent(position, simulations, seed),
            AgentChoice::Checkpoint(path) => {
                let (evaluator, server) = Self::network(path, position)?;
                let agent = MctsAgent::new(self.name(), evaluator, Self::search_config(simulations, false), seed)
                    .map_err(|e| e.to_string())?;
                Ok(Box::new(NetworkAgent {
                    agent,
                    _server: server,
                }))
            }
        }
    }

    fn hints<G: Game>(
        &self,
        position: &G,
        simulations: u32,
        seed: u64,
    ) -> Result<Vec<(G::Turn, f32)>, String> {
        match self {
            AgentChoice::Baseline(baseline) => baseline.hints(position, simulations, seed),
            AgentChoice::Checkpoint(path) => {
                let (evaluator, _server) = Self::network(path, position)?;
                let config = SearchConfig {
                    reuse_tree: false,
                    ..SearchConfig::evaluation(simulations.max(1), RootPolicy::Puct)
                };
                turn_shares(position, &evaluator, &config, seed).map_err(|e| e.to_string())
            }
        }
    }
}
