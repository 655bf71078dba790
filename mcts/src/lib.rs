//! Monte Carlo tree search for the gipfzero games, generic over [`gipfzero_games::Game`], and
//! the baseline players.
//!
//! Why this crate looks the way it does:
//! - **Actions, not turns.** The search decides one action at a time (the network's action
//!   space) and asks [`Game::to_move`](gipfzero_games::Game::to_move) at every node: values are
//!   backed up relative to the player to move, never by alternating signs, because a ZÈRTZ or
//!   LYNGK turn is several actions by one player and DVONN's White moves twice at the phase
//!   change. Agents ([`agent`]) turn action decisions back into whole turns.
//! - **No network here.** The search talks to an [`Evaluator`]; the network crate implements it
//!   (tch stays out of this crate). [`UniformEvaluator`] and [`RolloutEvaluator`] need nothing.
//! - **Batches for throughput.** A [`Search`] is driven step by step; [`SearchPool`] (or
//!   [`run_lockstep`]) runs many trees in lockstep and makes one evaluator call per step for
//!   all their leaves, optionally descending the trees on rayon's threads.
//! - **Modern root search.** PUCT with the AlphaZero growth term, first-play urgency and
//!   Dirichlet noise, or Gumbel AlphaZero (Gumbel-top-k, sequential halving, completed Q,
//!   improved policy targets); playout-cap randomisation; tree reuse; temperature schedules.
//!   All settings are in [`SearchConfig`].
//! - **Exact endgames beside the tree.** [`endgame`] proves a position's result by
//!   alpha-beta over whole turns with a transposition table, within a budget of positions; a
//!   timed agent tries it before its tree search ([`SearchConfig::endgame_nodes`]), where a
//!   network's value is least reliable: near the end.
//! - **Small nodes.** The tree is two arenas indexed by `u32`: a node takes [`NODE_BYTES`]
//!   (32) bytes and each of its legal actions an edge of [`EDGE_BYTES`] (20) bytes, created
//!   when the node is evaluated; positions are not stored but replayed from the root.
//! - **Reproducible.** Every random draw (noise, temperature, playout cap, baselines) comes
//!   from [`gipfzero_games::SplitMix64`] streams seeded by the caller.
//!
//! Typical use, one decision:
//! ```
//! use gipfzero_mcts::{Search, SearchConfig, UniformEvaluator};
//! use gipfzero_mcts::testing::{Nim, NimRules};
//!
//! let config = SearchConfig { simulations: 200, ..SearchConfig::default() };
//! let mut search = Search::new(Nim::new(6, NimRules::CLASSIC), config, 7)?;
//! let result = search.run(&UniformEvaluator)?;
//! assert!(result.actions.contains(&result.action));
//! search.advance(result.action)?; // keeps the subtree for the next decision
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Many games at once: push one [`Search`] per game into a [`SearchPool`], call
//! [`SearchPool::run`] with the evaluator, then [`Search::advance`] each one on its result.
//!
//! Matches between agents: [`parse_agent`] (`random`, `greedy`, `rollout:<sims>`),
//! [`MctsAgent`] for a search with any evaluator, and [`play_game`] (one refereed game; whole
//! matches are `gipfzero_train::evaluate::run_match`).
pub mod agent;
pub mod arena;
pub mod config;
pub mod endgame;
pub mod evaluator;
pub mod noise;
pub mod pool;
pub mod search;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
mod tree;

pub use agent::{
    parse_agent, rollout_agent, Agent, AgentError, AgentSpecError, GreedyAgent, MctsAgent,
    RandomAgent, RolloutAgent,
};
pub use arena::{play_game, MatchError, PlayedGame};
pub use config::{
    DirichletNoise, GumbelConfig, InvalidSetting, PlayoutCap, RootPolicy, SearchConfig, Ucb1Config,
    TemperatureStep,
};
pub use endgame::{EndgameSearch, Solved};
pub use evaluator::{LeafBatch, EvalError, Evaluator, MixedEvaluator, RolloutEvaluator, UniformEvaluator};
pub use pool::{run_lockstep, SearchPool, StepBuffers};
pub use search::{Search, SearchError, SearchResult};
pub use tree::{EDGE_BYTES, NODE_BYTES};
