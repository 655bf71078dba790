//! Players that choose whole turns: the baselines and the search-based agent.
//!
//! Why turns: players, records and the match runner exchange turns (`G::Turn`), while the
//! search decides one action at a time. [`MctsAgent`] bridges the two: it searches action by
//! action while the same player keeps deciding (until the next turn start), then looks the
//! action sequence up among the legal turns. The trait is called [`Agent`] so as not to clash
//! with [`gipfzero_games::Player`] (a colour).
//!
//! The baselines are the yardsticks of the Elo ladder: [`RandomAgent`] (uniform legal turn),
//! [`GreedyAgent`] (one ply of the game's own score) and the rollout player (`rollout:<sims>`,
//! plain UCT with random playouts, built by [`rollout_agent`]).
use gipfzero_games::{Action, Game, Outcome, SplitMix64, Status};
use thiserror::Error;

use crate::config::{InvalidSetting, RootPolicy, SearchConfig};
use crate::evaluator::{Evaluator, RolloutEvaluator};
use crate::endgame::EndgameSearch;
use crate::search::{Search, SearchError, SearchResult};

/// Why an agent could not choose a turn.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum AgentError {
    #[error("the game is over: there is no turn to choose")]
    GameOver,
    #[error("agents choose whole turns, but the position is inside a turn")]
    NotTurnStart,
    #[error(transparent)]
    Search(#[from] SearchError),
    #[error("the actions {0} chosen by the search make up no legal turn (engine contract broken)")]
    NoMatchingTurn(String),
    /// An agent resized to a thinking budget had to be built again, and could not be.
    #[error("cannot build the agent for its budget: {0}")]
    Rebuild(String),
}

/// A player of whole turns.
pub trait Agent<G: Game>: Send {
    /// The name in match tables (`random`, `rollout:200`, a network's name, …).
    fn name(&self) -> String;

    /// Chooses a legal turn for the player to move in `position`, which is at a turn start.
    fn choose_turn(&mut self, position: &G) -> Result<G::Turn, AgentError>;

    /// Forgets anything kept from the previous game (trees, counters).
    fn new_game(&mut self) {}

    /// Searches `simulations` per decision from now on, keeping what the agent holds (its
    /// network, its tree), so a time budget can resize every turn without rebuilding it.
    /// False when the agent has no such setting (or refuses the count): build another.
    fn set_simulations(&mut self, _simulations: u32) -> bool {
        false
    }

    /// The share of its last turn's simulation budget that ended in an evaluation (the rest
    /// ended on game ends or proven nodes, at next to no cost, or was never run because the
    /// choice was settled); `None` when it does not search or ran none. A time budget sizes
    /// searches by it ([`SearchResult::evaluated`], [`SearchResult::budget`]).
    fn last_evaluated_share(&self) -> Option<f64> {
        None
    }

    /// Searches `position` (a turn start) once with its setting without choosing anything,
    /// and answers how many of the simulations ended in an evaluation: what a time budget
    /// times to learn the agent's speed before it sizes the turn, instead of playing the turn
    /// itself on a guess. An agent that reuses its tree keeps the work for the turn that
    /// follows. `None` when the agent does not search (the caller then learns its speed from
    /// the turn).
    fn probe(&mut self, _position: &G) -> Result<Option<u32>, AgentError> {
        Ok(None)
    }
}

/// The legal turns of `position`, or why there are none to choose from.
fn turns_to_choose<G: Game>(position: &G, out: &mut Vec<G::Turn>) -> Result<(), AgentError> {
    if position.status().is_over() {
        return Err(AgentError::GameOver);
    }
    if !position.is_turn_start() {
        return Err(AgentError::NotTurnStart);
    }
    position.legal_turns(out);
    if out.is_empty() {
        return Err(AgentError::GameOver);
    }
    Ok(())
}

/// Plays a uniformly random legal turn (not a random action sequence: turns with many
/// action orders are not favoured).
#[derive(Clone, Debug)]
pub struct RandomAgent {
    rng: SplitMix64,
}

impl RandomAgent {
    pub fn new(seed: u64) -> Self {
        RandomAgent {
            rng: SplitMix64::new(seed),
        }
    }
}

impl<G: Game> Agent<G> for RandomAgent {
    fn name(&self) -> String {
        "random".to_string()
    }

    fn choose_turn(&mut self, position: &G) -> Result<G::Turn, AgentError> {
        let mut turns = Vec::new();
        turns_to_choose(position, &mut turns)?;
        let index = self.rng.below(turns.len() as u64) as usize;
        Ok(turns.swap_remove(index))
    }
}

/// One ply of greed: a turn that wins at once if there is one; otherwise the turn that
/// maximises its own [`Game::score`] minus the opponent's after the turn, never a turn that
/// loses at once unless all do. Ties are broken at random (seeded), so it does not play the
/// same game every time. A draw ranks by the score difference, like an ongoing game.
#[derive(Clone, Debug)]
pub struct GreedyAgent {
    rng: SplitMix64,
}

impl GreedyAgent {
    pub fn new(seed: u64) -> Self {
        GreedyAgent {
            rng: SplitMix64::new(seed),
        }
    }
}

impl<G: Game> Agent<G> for GreedyAgent {
    fn name(&self) -> String {
        "greedy".to_string()
    }

    fn choose_turn(&mut self, position: &G) -> Result<G::Turn, AgentError> {
        let mut turns = Vec::new();
        turns_to_choose(position, &mut turns)?;
        let me = position.to_move();
        let rank = |turn: &G::Turn| -> i64 {
            let mut next = position.clone();
            next.play(turn);
            match next.status() {
                Status::Over(Outcome::Win(winner)) if winner == me => i64::MAX,
                Status::Over(Outcome::Win(_)) => i64::MIN,
                _ => {
                    let score = next.score();
                    score[me.index()] as i64 - score[me.other().index()] as i64
                }
            }
        };
        let ranks: Vec<i64> = turns.iter().map(rank).collect();
        let best = ranks.iter().copied().max().unwrap_or(0);
        let tied: Vec<usize> = (0..turns.len()).filter(|&i| ranks[i] == best).collect();
        let index = tied[self.rng.below(tied.len() as u64) as usize];
        Ok(turns.swap_remove(index))
    }
}

/// A search-based player: one search per action of its turn, with any [`Evaluator`].
///
/// With tree reuse it keeps its tree from one turn to the next: it recognises the opponent's
/// turn among the legal turns of the position it left (by position hash) and walks the tree
/// down along it.
pub struct MctsAgent<G: Game, E> {
    name: String,
    evaluator: E,
    config: SearchConfig,
    seed: u64,
    games: u64,
    search: Option<Search<G>>,
    last_results: Vec<SearchResult>,
    /// The exact search tried before each turn's tree search (`endgame_nodes` above 0), its
    /// table kept for the game.
    endgame: EndgameSearch,
    /// The last turn was proven by the exact search, so no tree search ran.
    last_proven: bool,
}

impl<G: Game, E: Evaluator<G>> MctsAgent<G, E> {
    pub fn new(
        name: impl Into<String>,
        evaluator: E,
        config: SearchConfig,
        seed: u64,
    ) -> Result<Self, InvalidSetting> {
        config.validate()?;
        Ok(MctsAgent {
            name: name.into(),
            evaluator,
            config,
            seed,
            games: 0,
            search: None,
            last_results: Vec::new(),
            endgame: EndgameSearch::new(),
            last_proven: false,
        })
    }

    /// The settings every search of this agent runs with.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// The searches of the agent's last turn, one per action.
    pub fn last_results(&self) -> &[SearchResult] {
        &self.last_results
    }

    /// The seed of this game's search tree: the one tree that a probe
    /// ([`Agent::probe`]) grows and the turn after it searches on.
    fn tree_seed(&self) -> u64 {
        self.seed.wrapping_add(self.games)
    }

    /// A search rooted at `position`, reusing the previous tree when `position` follows from
    /// its root by one legal turn (or is its root).
    fn search_at<'a>(
        slot: &'a mut Option<Search<G>>,
        config: &SearchConfig,
        seed: u64,
        position: &G,
    ) -> Result<&'a mut Search<G>, AgentError> {
        let target = position.position_hash();
        let reusable = config.reuse_tree;
        let search = match slot.take() {
            Some(mut search) if reusable => {
                let root = search.position().clone();
                let mut found = root.position_hash() == target;
                if !found && root.is_turn_start() && !root.status().is_over() {
                    let mut turns = Vec::new();
                    root.legal_turns(&mut turns);
                    for turn in &turns {
                        let mut next = root.clone();
                        next.play(turn);
                        if next.position_hash() == target {
                            for action in root.turn_actions(turn) {
                                search.advance(action)?;
                            }
                            found = true;
                            break;
                        }
                    }
                }
                // Hashes may collide: make sure the tree really stands on `position`.
                if found && format!("{:?}", search.position()) != format!("{position:?}") {
                    found = false;
                }
                if !found {
                    let move_number = search.move_number() + 1;
                    search.reset(position.clone());
                    search.set_move_number(move_number);
                }
                search
            }
            Some(mut search) => {
                let move_number = search.move_number();
                search.reset(position.clone());
                search.set_move_number(move_number);
                search
            }
            None => {
                Search::new(position.clone(), config.clone(), seed).map_err(SearchError::from)?
            }
        };
        Ok(slot.insert(search))
    }
}

impl<G: Game, E: Evaluator<G>> Agent<G> for MctsAgent<G, E> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose_turn(&mut self, position: &G) -> Result<G::Turn, AgentError> {
        let mut turns = Vec::new();
        turns_to_choose(position, &mut turns)?;
        self.last_results.clear();
        self.last_proven = false;
        if self.config.endgame_nodes > 0 && turns.len() > 1 {
            let budget = self.config.endgame_nodes as u64 * self.config.simulations as u64;
            if let Some(solved) = self.endgame.solve(position, budget) {
                // A proven win or draw is played; a proven loss goes to the tree search, whose
                // network knows which turn gives the opponent most chances to go wrong.
                if solved.value >= 0 {
                    self.last_proven = true;
                    return Ok(turns.swap_remove(solved.turn));
                }
            }
        }
        let seed = self.tree_seed();
        let search = Self::search_at(&mut self.search, &self.config, seed, position)?;
        let evaluator = &self.evaluator;
        let mut actions: Vec<Action> = Vec::new();
        loop {
            let result = search.run(evaluator)?;
            let action = result.action;
            self.last_results.push(result);
            actions.push(action);
            search.advance(action)?;
            let next = search.position();
            if next.is_turn_start() || next.status().is_over() {
                break;
            }
        }
        match turns
            .iter()
            .position(|turn| position.turn_actions(turn) == actions)
        {
            Some(index) => Ok(turns.swap_remove(index)),
            None => Err(AgentError::NoMatchingTurn(format!("{actions:?}"))),
        }
    }

    fn new_game(&mut self) {
        self.search = None;
        self.endgame.clear();
        self.games += 1;
    }

    fn set_simulations(&mut self, simulations: u32) -> bool {
        let config = SearchConfig { simulations, ..self.config.clone() };
        if config.validate().is_err() {
            return false;
        }
        if let Some(search) = &mut self.search {
            if search.set_simulations(simulations).is_err() {
                return false;
            }
        }
        self.config = config;
        true
    }

    fn probe(&mut self, position: &G) -> Result<Option<u32>, AgentError> {
        turns_to_choose(position, &mut Vec::new())?;
        let seed = self.tree_seed();
        let search = Self::search_at(&mut self.search, &self.config, seed, position)?;
        Ok(Some(search.run(&self.evaluator)?.evaluated))
    }

    fn last_evaluated_share(&self) -> Option<f64> {
        if self.last_proven {
            // The exact search decided: no simulation ran, nothing was evaluated.
            return Some(0.0);
        }
        let budget: u64 = self.last_results.iter().map(|r| r.budget as u64).sum();
        let evaluated: u64 = self.last_results.iter().map(|r| r.evaluated as u64).sum();
        (budget > 0).then(|| evaluated as f64 / budget as f64)
    }
}

/// The `rollout:<sims>` baseline player (see [`rollout_agent`]).
pub type RolloutAgent<G> = MctsAgent<G, RolloutEvaluator>;

/// The `rollout:<sims>` baseline: UCT (UCB1, c = √2 on values in [-1, 1]) with one random
/// playout per leaf, the most visited action, no noise, no tree reuse across turns.
pub fn rollout_agent<G: Game>(simulations: u32, seed: u64) -> Result<RolloutAgent<G>, InvalidSetting> {
    let config = SearchConfig {
        reuse_tree: false,
        skip_forced: false,
        // UCB1 with its default exploration constant √2.
        ..SearchConfig::evaluation(simulations, RootPolicy::Ucb1)
    };
    MctsAgent::new(
        format!("rollout:{simulations}"),
        RolloutEvaluator::new(1, seed),
        config,
        seed,
    )
}

/// A baseline agent spec that could not be read.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum AgentSpecError {
    #[error("unknown agent {0:?}: expected random, greedy or rollout:<simulations>")]
    Unknown(String),
    #[error("bad simulation count in {spec:?}: expected a whole number from 1 to {max}")]
    BadSimulations { spec: String, max: u32 },
}

/// The most simulations `rollout:<sims>` accepts: a guard against typos that would run for days.
pub const MAX_ROLLOUT_SIMULATIONS: u32 = 10_000_000;

/// Builds a baseline agent from its spec: `random`, `greedy` or `rollout:<sims>`.
pub fn parse_agent<G: Game>(spec: &str, seed: u64) -> Result<Box<dyn Agent<G>>, AgentSpecError> {
    let trimmed = spec.trim();
    match trimmed {
        "random" => return Ok(Box::new(RandomAgent::new(seed))),
        "greedy" => return Ok(Box::new(GreedyAgent::new(seed))),
        _ => {}
    }
    let Some(count) = trimmed.strip_prefix("rollout:") else {
        return Err(AgentSpecError::Unknown(spec.to_string()));
    };
    let bad = || AgentSpecError::BadSimulations {
        spec: spec.to_string(),
        max: MAX_ROLLOUT_SIMULATIONS,
    };
    let simulations: u32 = count.parse().map_err(|_| bad())?;
    if !(1..=MAX_ROLLOUT_SIMULATIONS).contains(&simulations) {
        return Err(bad());
    }
    let agent = rollout_agent::<G>(simulations, seed).map_err(|_| bad())?;
    Ok(Box::new(agent))
}
