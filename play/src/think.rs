//! Agents with a thinking budget: simulations, or wall-clock time turned into simulations.
//!
//! Why simulations stand in for time: the search is driven by a simulation count, and a
//! search stopped half way would have no result. A [`Thinker`] measures how many simulations
//! per second its agent manages on this machine and this game (a running estimate, started
//! by a small probe search before the first turn) and sizes each search to fit the time it
//! is given. A [`GameClock`] shares a whole game's time (CodeCup's 5 seconds) out over the
//! turns to come.
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gipfzero_games::Game;
use gipfzero_mcts::{
    parse_agent, Agent, AgentError, AgentSpecError, RolloutEvaluator, RootPolicy, SearchConfig,
    SearchError,
};

use crate::hint::turn_shares;

/// How much one turn may think.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Budget {
    /// The agent's own setting.
    Default,
    /// Simulations per search decision.
    Simulations(u32),
    /// Wall-clock time for the whole turn.
    Time(Duration),
}

/// Builds agents of one kind (a baseline, a checkpoint) for whichever game is being played.
pub trait AgentSource {
    /// Why an agent or hints could not be had (hints search, hence `From<SearchError>`).
    type Error: std::error::Error + Send + Sync + From<SearchError> + 'static;

    /// The name shown to people (`rollout:200`, a checkpoint's file name).
    fn name(&self) -> String;

    /// Whether the agent searches, so that a budget changes how it plays (`random` and
    /// `greedy` do not).
    fn searches(&self) -> bool;

    /// An agent for games of `position`'s game and variant (a checkpoint reads the
    /// variant's spec from it) that runs `simulations` per search decision (`None`: its own
    /// setting).
    fn agent<G: Game>(
        &self,
        position: &G,
        simulations: Option<u32>,
        seed: u64,
    ) -> Result<Box<dyn Agent<G>>, Self::Error>;

    /// An agent for turns under a time budget, running `simulations` per search decision (the
    /// count the [`Thinker`] sized to fit the time). Where time, not a count, is what is fixed,
    /// a source may search another way that gets more out of the time: a network collects
    /// several leaves per forward pass, which costs it little more than one. By default the
    /// agent of [`AgentSource::agent`].
    fn timed_agent<G: Game>(
        &self,
        position: &G,
        simulations: u32,
        seed: u64,
    ) -> Result<Box<dyn Agent<G>>, Self::Error> {
        self.agent(position, Some(simulations), seed)
    }

    /// The turns the agent's search prefers in `position`, with their visit shares, best
    /// first. Sources without a search of their own answer with plain UCT and random playouts.
    fn hints<G: Game>(
        &self,
        position: &G,
        simulations: u32,
        seed: u64,
    ) -> Result<Vec<(G::Turn, f32)>, Self::Error> {
        let config = SearchConfig {
            reuse_tree: false,
            ..SearchConfig::evaluation(
                simulations.max(1),
                RootPolicy::Ucb1,
            )
        };
        Ok(turn_shares(position, &RolloutEvaluator::new(1, seed), &config, seed)?)
    }
}

/// Simulations a hint runs when neither the user nor the agent says otherwise.
pub const DEFAULT_HINT_SIMULATIONS: u32 = 400;

/// The baseline agents by their spec: `random`, `greedy`, `rollout:<simulations>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Baseline {
    spec: String,
}

impl Baseline {
    /// Checks the spec (it reads the same for every game, so one game stands in for all).
    pub fn new(spec: &str) -> Result<Baseline, AgentSpecError> {
        parse_agent::<gipfzero_games::dvonn::Dvonn>(spec, 0)?;
        Ok(Baseline {
            spec: spec.trim().to_string(),
        })
    }

    /// The simulations of a `rollout:<n>` spec.
    fn rollout_simulations(&self) -> Option<u32> {
        self.spec
            .strip_prefix("rollout:")
            .and_then(|n| n.parse().ok())
    }
}

/// Why a baseline could not play or hint.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error(transparent)]
    Spec(#[from] AgentSpecError),
    #[error(transparent)]
    Search(#[from] SearchError),
}

impl AgentSource for Baseline {
    type Error = BaselineError;

    fn name(&self) -> String {
        self.spec.clone()
    }

    fn searches(&self) -> bool {
        self.rollout_simulations().is_some()
    }

    fn agent<G: Game>(
        &self,
        _position: &G,
        simulations: Option<u32>,
        seed: u64,
    ) -> Result<Box<dyn Agent<G>>, BaselineError> {
        let spec = match (simulations, self.searches()) {
            (Some(n), true) => format!("rollout:{n}"),
            _ => self.spec.clone(),
        };
        Ok(parse_agent::<G>(&spec, seed)?)
    }
}

/// Simulations of the probe search that measures the speed before the first timed turn (or
/// of that turn itself, for an agent that cannot probe).
const PROBE_SIMULATIONS: u32 = 16;
/// Bounds of a timed search.
const MIN_SIMULATIONS: u32 = 2;
const MAX_TIMED_SIMULATIONS: u32 = 1_000_000;

/// An agent source with the agent it last built and a measured speed, choosing turns under a
/// [`Budget`]. When the simulation setting changes (under a time budget, nearly every turn)
/// the agent is resized in place ([`Agent::set_simulations`]: a network is not loaded again,
/// the tree is kept) or, where it cannot be, rebuilt.
pub struct Thinker<G: Game, S> {
    source: S,
    seed: u64,
    /// The agent and the setting it was built with.
    agent: Option<(Setting, Box<dyn Agent<G>>)>,
    /// Simulations per second of a whole turn (a turn may hold several decisions), as a
    /// running mean of the timed turns, counting the simulations that ended in an evaluation.
    rate: Option<f64>,
    /// The simulation setting of the last turn chosen.
    last_simulations: Option<u32>,
}

impl<G: Game, S: AgentSource> Thinker<G, S> {
    pub fn new(source: S, seed: u64) -> Self {
        Thinker {
            source,
            seed,
            agent: None,
            rate: None,
            last_simulations: None,
        }
    }

    pub fn source(&self) -> &S {
        &self.source
    }

    /// The agent's setting for `budget`.
    fn setting(&self, budget: Budget) -> Setting {
        Setting { simulations: self.simulations(budget), timed: matches!(budget, Budget::Time(_)) }
    }

    /// The simulation setting for `budget`.
    fn simulations(&self, budget: Budget) -> Option<u32> {
        match budget {
            Budget::Default => None,
            Budget::Simulations(n) => Some(n.max(1)),
            Budget::Time(time) if self.source.searches() => Some(match self.rate {
                None => PROBE_SIMULATIONS,
                Some(rate) => (rate * time.as_secs_f64())
                    .clamp(MIN_SIMULATIONS as f64, MAX_TIMED_SIMULATIONS as f64)
                    as u32,
            }),
            Budget::Time(_) => None,
        }
    }

    /// Has the agent ready for a turn at `position` under `budget`: resized, or built when
    /// there is none or it cannot be resized. [`Thinker::choose`] does it first; calling it
    /// ahead lets a caller refuse a bad agent before a game starts.
    pub fn prepare(&mut self, position: &G, budget: Budget) -> Result<(), ThinkError> {
        let setting = self.setting(budget);
        if let (Some((built, agent)), Some(n)) = (self.agent.as_mut(), setting.simulations) {
            // Resized in place only within its kind: a timed agent may search another way.
            if *built != setting && built.timed == setting.timed && agent.set_simulations(n) {
                *built = setting;
            }
        }
        if self.agent.as_ref().is_none_or(|(built, _)| *built != setting) {
            let agent = match setting {
                Setting { simulations: Some(n), timed: true } => {
                    self.source.timed_agent::<G>(position, n, self.seed)
                }
                Setting { simulations, .. } => self.source.agent::<G>(position, simulations, self.seed),
            }
            .map_err(|error| ThinkError::Agent(Box::new(error)))?;
            self.agent = Some((setting, agent));
        }
        Ok(())
    }

    /// Under a time budget with no speed measured yet, a probe search of `position`
    /// ([`Agent::probe`], kept in the agent's tree) measures it, and the turn gets the time
    /// the probe left: so the first timed turn of a game is sized like the others, not a
    /// probe of a few simulations played in milliseconds out of a second. The budget is
    /// returned as it came otherwise, and when the agent cannot probe or the probe ended on
    /// proven positions only (the turn is then the probe, as it costs nothing).
    fn probe(&mut self, position: &G, budget: Budget) -> Result<Budget, ThinkError> {
        let Budget::Time(time) = budget else { return Ok(budget) };
        if self.rate.is_some() || !self.source.searches() {
            return Ok(budget);
        }
        self.prepare(position, budget)?;
        let (_, agent) = self.agent.as_mut().expect("prepared above");
        // Twice, timing the second: a fresh network's first search is several times slower
        // than the next (libtorch allocating as it goes: 19 ms against 7 for 16 simulations
        // of the ZÈRTZ network). The first probe's work stays in a reused tree too.
        let started = Instant::now();
        agent.probe(position)?;
        let warm = started.elapsed();
        let evaluated = agent.probe(position)?;
        let took = started.elapsed() - warm;
        match evaluated {
            Some(evaluated) if evaluated > 0 => {
                // The probe timed one search, and the speed is counted per turn: a turn
                // searches once per action (ZÈRTZ's placement and ring removal are two), so
                // the probe's speed is shared out over the most actions a turn here has.
                let mut turns = Vec::new();
                position.legal_turns(&mut turns);
                let actions = turns.iter().map(|turn| position.turn_actions(turn).len()).max().unwrap_or(1);
                self.rate = Some(evaluated as f64 / took.as_secs_f64().max(1e-4) / actions.max(1) as f64);
                Ok(Budget::Time(time.saturating_sub(warm + took)))
            }
            _ => Ok(budget),
        }
    }

    /// Chooses a turn for the player to move in `position` (at a turn start) within `budget`.
    pub fn choose(&mut self, position: &G, budget: Budget) -> Result<G::Turn, ThinkError> {
        let budget = self.probe(position, budget)?;
        self.prepare(position, budget)?;
        let simulations = self.simulations(budget);
        self.last_simulations = simulations;
        let (_, agent) = self.agent.as_mut().expect("prepared above");
        let started = Instant::now();
        let turn = agent.choose_turn(position)?;
        if let (Budget::Time(_), Some(n)) = (budget, simulations) {
            let seconds = started.elapsed().as_secs_f64().max(1e-4);
            // Only the simulations that ended in an evaluation cost time: a turn on positions
            // the solver has proven runs its simulations in microseconds. Counted whole, such
            // a turn would make the speed look thousands of times higher and size the next
            // unproven turn to the million-simulation cap (minutes of a network's time: seen
            // in a 30-game match at 1 s a turn, where the network's turns averaged 2.6 s).
            // Nor do the simulations a search never ran because its choice was settled.
            let share = agent.last_evaluated_share().unwrap_or(1.0);
            if share > 0.0 {
                let measured = n as f64 * share / seconds;
                self.rate = Some(self.rate.map_or(measured, |old| 0.5 * old + 0.5 * measured));
            }
        }
        Ok(turn)
    }

    /// The simulation setting of the last turn chosen (`None`: the agent's own, or no turn
    /// yet).
    pub fn last_simulations(&self) -> Option<u32> {
        self.last_simulations
    }

    /// The share of the last turn's simulation budget that ended in an evaluation, as its agent
    /// reports it ([`Agent::last_evaluated_share`]).
    pub fn last_share(&self) -> Option<f64> {
        self.agent.as_ref().and_then(|(_, agent)| agent.last_evaluated_share())
    }

    /// Starts a new game: the agent forgets its tree.
    pub fn new_game(&mut self) {
        if let Some((_, agent)) = &mut self.agent {
            agent.new_game();
        }
    }
}

/// What an agent of a [`Thinker`] was built for: a simulation setting, and whether for turns
/// under a time budget ([`AgentSource::timed_agent`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Setting {
    simulations: Option<u32>,
    timed: bool,
}

/// An agent that thinks the same wall-clock time per turn on average, through a
/// [`Thinker`]: how `gipfzero evaluate --move-time` gives two agents equal time whatever
/// their speed. A search does not stop at a time, so a turn takes what the speed estimate
/// predicted (or less: a network's search stops once its choice is settled), and estimates
/// err (turns of one decision and of several, the probe, the solver, a tree reused, a search
/// stopped early): each turn's budget gives back or takes what the game's turns so
/// far were under or over their time (from a quarter to twice the time), and is scaled by
/// how the time taken compared with the time asked for on the sized turns so far (half to
/// twice), so the mean stays on target.
pub struct TimedAgent<G: Game, S> {
    thinker: Thinker<G, S>,
    time: Duration,
    tally: Option<Arc<TimeTally>>,
    /// Turns and thinking time of this game.
    turns: u32,
    used: Duration,
    /// Time asked for and taken on the turns sized from a speed measured on earlier turns
    /// (not the first, sized from the probe alone).
    asked: Duration,
    taken: Duration,
}

impl<G: Game, S: AgentSource> TimedAgent<G, S> {
    /// An agent of `source` that thinks `time` per turn in games like `position` (its agent
    /// is built here, so a bad one is refused before any game).
    pub fn new(source: S, seed: u64, time: Duration, position: &G) -> Result<Self, ThinkError> {
        let mut thinker = Thinker::new(source, seed);
        thinker.prepare(position, Budget::Time(time))?;
        Ok(TimedAgent { thinker, time, tally: None, turns: 0, used: Duration::ZERO, asked: Duration::ZERO, taken: Duration::ZERO })
    }

    /// Adds the time of every turn to `tally` (shared by the agents of one side of a match).
    pub fn with_tally(self, tally: Arc<TimeTally>) -> Self {
        TimedAgent { tally: Some(tally), ..self }
    }
}

/// The turns and thinking time of agents that share it: what a timed match reports, so that
/// "equal time" is measured, not assumed.
#[derive(Debug, Default)]
pub struct TimeTally {
    nanos: AtomicU64,
    turns: AtomicU64,
}

impl TimeTally {
    fn add(&self, time: Duration) {
        self.nanos.fetch_add(time.as_nanos() as u64, Ordering::Relaxed);
        self.turns.fetch_add(1, Ordering::Relaxed);
    }

    /// Turns played so far.
    pub fn turns(&self) -> u64 {
        self.turns.load(Ordering::Relaxed)
    }

    /// The mean time of a turn, once one was played.
    pub fn mean(&self) -> Option<Duration> {
        let turns = self.turns();
        (turns > 0).then(|| Duration::from_nanos(self.nanos.load(Ordering::Relaxed) / turns))
    }
}

impl<G: Game, S: AgentSource + Send> Agent<G> for TimedAgent<G, S> {
    fn name(&self) -> String {
        format!("{} ({} ms per turn)", self.thinker.source().name(), self.time.as_millis())
    }

    fn choose_turn(&mut self, position: &G) -> Result<G::Turn, AgentError> {
        let owed = (self.time * (self.turns + 1)).saturating_sub(self.used);
        let scale = match self.taken.is_zero() {
            true => 1.0,
            false => (self.asked.as_secs_f64() / self.taken.as_secs_f64()).clamp(0.5, 2.0),
        };
        let budget = owed.clamp(self.time / 4, self.time * 2).mul_f64(scale);
        let sized = self.thinker.rate.is_some();
        let started = Instant::now();
        let turn = self.thinker.choose(position, Budget::Time(budget)).map_err(|error| match error {
            ThinkError::Choose(error) => error,
            ThinkError::Agent(error) => AgentError::Rebuild(error_text(error.as_ref())),
        })?;
        let took = started.elapsed();
        self.turns += 1;
        self.used += took;
        if sized {
            // A turn whose simulations partly ended on proven nodes, or that stopped once
            // its choice was settled, was asked for the time of its evaluated share only.
            self.asked += budget.mul_f64(self.thinker.last_share().unwrap_or(1.0));
            self.taken += took;
        }
        if let Some(tally) = &self.tally {
            tally.add(took);
        }
        Ok(turn)
    }

    fn new_game(&mut self) {
        self.thinker.new_game();
        self.turns = 0;
        self.used = Duration::ZERO;
        self.asked = Duration::ZERO;
        self.taken = Duration::ZERO;
    }
}

/// Why a thinker could not choose a turn.
#[derive(Debug, thiserror::Error)]
pub enum ThinkError {
    #[error("cannot build the agent")]
    Agent(#[source] Box<dyn std::error::Error + Send + Sync>),
    #[error(transparent)]
    Choose(#[from] AgentError),
}

/// A whole game's thinking time, shared out over the turns still to come.
#[derive(Clone, Debug)]
pub struct GameClock {
    total: Duration,
    used: Duration,
}

/// Part of a game's time kept back for reading and writing, a last turn that runs over its
/// budget, and the process itself. The network's engine in the CodeCup matches
/// (docs/RESULTS.md, "PrimaDvonna") used 0.35 s of CPU per game beyond its thinking (the
/// start, libtorch, its server thread), so a tenth of 5 s keeps its CPU time under the
/// game's time too; 15 % left 0.25 s more unused.
const RESERVE: f64 = 0.10;

impl GameClock {
    pub fn new(total: Duration) -> Self {
        GameClock {
            total,
            used: Duration::ZERO,
        }
    }

    /// Time still available, the reserve excluded.
    pub fn left(&self) -> Duration {
        self.total.mul_f64(1.0 - RESERVE).saturating_sub(self.used)
    }

    /// The budget of a turn that gets `share` (0 to 1) of the time left.
    pub fn budget(&self, share: f64) -> Budget {
        Budget::Time(self.left().mul_f64(share.clamp(0.0, 1.0)))
    }

    /// Books time spent thinking.
    pub fn spend(&mut self, time: Duration) {
        self.used += time;
    }

    pub fn used(&self) -> Duration {
        self.used
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gipfzero_games::dvonn::Dvonn;
    use gipfzero_games::zertz::{Variant, Zertz};

    #[test]
    fn baseline_specs_are_checked_and_budgets_resize_rollouts() {
        assert!(Baseline::new("random").is_ok());
        assert!(Baseline::new("rollout:0").is_err());
        assert!(Baseline::new("alphazero").is_err());
        let rollout = Baseline::new("rollout:50").unwrap();
        assert!(rollout.searches() && !Baseline::new("greedy").unwrap().searches());
        assert_eq!(
            rollout.agent(&Dvonn::new(), Some(7), 1).unwrap().name(),
            "rollout:7"
        );
        assert_eq!(
            rollout.agent(&Dvonn::new(), None, 1).unwrap().name(),
            "rollout:50"
        );
        assert_eq!(
            Baseline::new("greedy")
                .unwrap()
                .agent(&Dvonn::new(), Some(7), 1)
                .unwrap()
                .name(),
            "greedy"
        );
    }

    #[test]
    fn a_timed_thinker_probes_then_sizes_its_searches() {
        let mut thinker: Thinker<Dvonn, _> = Thinker::new(Baseline::new("rollout:10").unwrap(), 3);
        let budget = Budget::Time(Duration::from_millis(30));
        assert_eq!(thinker.simulations(budget), Some(PROBE_SIMULATIONS));
        let position = Dvonn::new();
        // The probe measured the speed before the turn, which was sized from it (its 16
        // playouts take a small part of the 200 ms, even in a debug build).
        thinker.choose(&position, Budget::Time(Duration::from_millis(200))).unwrap();
        let rate = thinker.rate.expect("measured");
        assert!(rate > 0.0);
        assert!(thinker.last_simulations() > Some(PROBE_SIMULATIONS), "{:?}", thinker.last_simulations());
        let sized = thinker.simulations(budget).unwrap();
        assert_eq!(
            sized,
            ((rate * 0.03) as u32).clamp(MIN_SIMULATIONS, MAX_TIMED_SIMULATIONS)
        );
        assert_eq!(thinker.simulations(Budget::Simulations(0)), Some(1));
        assert_eq!(thinker.simulations(Budget::Default), None);
    }

    /// A baseline source that counts the agents it builds.
    struct Counting {
        inner: Baseline,
        built: std::cell::Cell<u32>,
        /// Of those, the agents built for a time budget.
        timed: std::cell::Cell<u32>,
    }

    impl AgentSource for Counting {
        type Error = BaselineError;
        fn name(&self) -> String {
            self.inner.name()
        }
        fn searches(&self) -> bool {
            self.inner.searches()
        }
        fn agent<G: Game>(&self, position: &G, simulations: Option<u32>, seed: u64) -> Result<Box<dyn Agent<G>>, BaselineError> {
            self.built.set(self.built.get() + 1);
            self.inner.agent(position, simulations, seed)
        }
        fn timed_agent<G: Game>(&self, position: &G, simulations: u32, seed: u64) -> Result<Box<dyn Agent<G>>, BaselineError> {
            self.timed.set(self.timed.get() + 1);
            self.agent(position, Some(simulations), seed)
        }
    }

    #[test]
    fn a_timed_thinker_resizes_its_agent_instead_of_building_another() {
        let source = Counting { inner: Baseline::new("rollout:10").unwrap(), built: Default::default(), timed: Default::default() };
        let mut thinker: Thinker<Dvonn, _> = Thinker::new(source, 5);
        let mut position = Dvonn::new();
        for millis in [5, 20, 10] {
            let budget = Budget::Time(Duration::from_millis(millis));
            let wanted = thinker.setting(budget);
            assert!(wanted.timed && wanted.simulations.is_some());
            let turn = thinker.choose(&position, budget).unwrap();
            // Sized to the turn's simulations (the first after the probe, from what it left).
            let turned = Setting { simulations: thinker.last_simulations(), timed: true };
            assert_eq!(thinker.agent.as_ref().map(|(built, _)| *built), Some(turned));
            position.play(&turn);
        }
        // One agent, built for time (the source's timed agent), resized since.
        assert_eq!((thinker.source().built.get(), thinker.source().timed.get()), (1, 1));
        // A budget without simulations (the agent's own setting) needs an agent built so.
        thinker.choose(&position, Budget::Default).unwrap();
        assert_eq!((thinker.source().built.get(), thinker.source().timed.get()), (2, 1));
        // A count of simulations after a time: a plain agent, not the timed one resized (a
        // timed agent may search another way).
        thinker.choose(&position, Budget::Time(Duration::from_millis(5))).unwrap();
        assert_eq!((thinker.source().built.get(), thinker.source().timed.get()), (3, 2));
        thinker.choose(&position, Budget::Simulations(7)).unwrap();
        assert_eq!((thinker.source().built.get(), thinker.source().timed.get()), (4, 2));
        assert_eq!(thinker.agent.as_ref().map(|(built, _)| *built), Some(Setting { simulations: Some(7), timed: false }));
    }

    #[test]
    fn a_timed_agent_plays_whole_games_and_refuses_a_bad_agent_up_front() {
        let position = Dvonn::new();
        let time = Duration::from_millis(2);
        let tally = Arc::new(TimeTally::default());
        let mut agent = TimedAgent::new(Baseline::new("rollout:10").unwrap(), 1, time, &position)
            .unwrap()
            .with_tally(tally.clone());
        assert_eq!(agent.name(), "rollout:10 (2 ms per turn)");
        let played = gipfzero_mcts::play_game(
            &position,
            [&mut agent as &mut dyn Agent<Dvonn>, &mut gipfzero_mcts::RandomAgent::new(2)],
            1000,
            0,
        )
        .unwrap();
        assert!(played.outcome.is_some());
        // The timed agent made White's turns (two in a row after the placements).
        let mut replay = position.clone();
        let mut white = 0;
        for turn in &played.turns {
            white += (replay.to_move() == gipfzero_games::Player::One) as u64;
            replay.play(turn);
        }
        assert_eq!(tally.turns(), white);
        assert!(tally.mean().is_some());
        // Each turn after the first was sized from the measured speed, not the probe.
        assert!(agent.thinker.rate.is_some());
        let bad = TimedAgent::new(Failing, 1, time, &position);
        assert!(matches!(bad, Err(ThinkError::Agent(_))));
    }

    /// A source whose agents cannot be built.
    struct Failing;

    impl AgentSource for Failing {
        type Error = BaselineError;
        fn name(&self) -> String {
            "failing".into()
        }
        fn searches(&self) -> bool {
            true
        }
        fn agent<G: Game>(&self, _: &G, _: Option<u32>, _: u64) -> Result<Box<dyn Agent<G>>, BaselineError> {
            Err(BaselineError::Spec(Baseline::new("nonsense").unwrap_err()))
        }
    }

    /// An agent whose turns take 20 µs a simulation that ends in an evaluation; `proven` of
    /// every 4 simulations end on proven nodes, at no cost (as a search of a position the
    /// solver has proven does).
    struct Sleepy {
        simulations: u32,
        proven: Arc<std::sync::atomic::AtomicU32>,
    }

    impl Sleepy {
        fn share(&self) -> f64 {
            1.0 - self.proven.load(Ordering::Relaxed) as f64 / 4.0
        }
    }

    impl<G: Game> Agent<G> for Sleepy {
        fn name(&self) -> String {
            "sleepy".into()
        }
        fn choose_turn(&mut self, position: &G) -> Result<G::Turn, AgentError> {
            std::thread::sleep((Duration::from_micros(20) * self.simulations).mul_f64(self.share()));
            let mut turns = Vec::new();
            position.legal_turns(&mut turns);
            Ok(turns.swap_remove(0))
        }
        fn set_simulations(&mut self, simulations: u32) -> bool {
            self.simulations = simulations;
            true
        }
        fn last_evaluated_share(&self) -> Option<f64> {
            Some(self.share())
        }
        fn probe(&mut self, _: &G) -> Result<Option<u32>, AgentError> {
            std::thread::sleep((Duration::from_micros(20) * self.simulations).mul_f64(self.share()));
            Ok(Some((self.simulations as f64 * self.share()) as u32))
        }
    }

    struct SleepySource(Arc<std::sync::atomic::AtomicU32>);

    impl AgentSource for SleepySource {
        type Error = BaselineError;
        fn name(&self) -> String {
            "sleepy".into()
        }
        fn searches(&self) -> bool {
            true
        }
        fn agent<G: Game>(&self, _: &G, simulations: Option<u32>, _: u64) -> Result<Box<dyn Agent<G>>, BaselineError> {
            Ok(Box::new(Sleepy { simulations: simulations.unwrap_or(1), proven: self.0.clone() }))
        }
    }

    #[test]
    fn turns_on_proven_positions_leave_the_speed_alone() {
        let proven = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let mut thinker: Thinker<Dvonn, _> = Thinker::new(SleepySource(proven.clone()), 1);
        let budget = Budget::Time(Duration::from_millis(40));
        let mut position = Dvonn::new();
        let mut turn = |thinker: &mut Thinker<Dvonn, _>| {
            let turn = thinker.choose(&position, budget).unwrap();
            position.play(&turn);
        };
        for _ in 0..3 {
            turn(&mut thinker);
        }
        // At most 50,000 simulations a second (sleeps overshoot, never undershoot).
        let rate = thinker.rate.unwrap();
        assert!(rate > 1_000.0 && rate <= 50_000.0, "{rate}");
        // Every simulation on proven nodes: the turn takes microseconds and says nothing of
        // the speed. Counted, it would size the next turn to the million-simulation cap.
        proven.store(4, Ordering::Relaxed);
        turn(&mut thinker);
        assert_eq!((thinker.rate, thinker.last_share()), (Some(rate), Some(0.0)));
        assert!(thinker.simulations(budget).unwrap() <= 2_000);
        // Half of them proven: half the time for the same simulations, the same speed.
        proven.store(2, Ordering::Relaxed);
        turn(&mut thinker);
        let half = thinker.rate.unwrap();
        assert!(half > rate / 2.0 && half < rate * 1.5, "{rate} then {half}");
    }

    #[test]
    fn the_probe_sizes_the_first_turn_per_action_of_a_turn() {
        let proven = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let time = Duration::from_millis(20);
        // A ZÈRTZ placement is two searched actions (the marble, the ring removed), so the
        // speed per turn is half the probe's speed per search (at most 50,000 simulations a
        // second: sleeps overshoot, never undershoot); a DVONN turn is one action.
        let mut zertz: Thinker<Zertz, _> = Thinker::new(SleepySource(proven.clone()), 1);
        let left = zertz.probe(&Zertz::new(Variant::Standard), Budget::Time(time)).unwrap();
        let per_turn = zertz.rate.unwrap();
        assert!(per_turn <= 25_000.0, "{per_turn}");
        let mut dvonn: Thinker<Dvonn, _> = Thinker::new(SleepySource(proven.clone()), 1);
        dvonn.probe(&Dvonn::new(), Budget::Time(time)).unwrap();
        assert!(dvonn.rate.unwrap() <= 50_000.0);
        // The turn gets what the probe's two searches (2 × 16 × 20 µs at least) left, and is
        // sized from it.
        let Budget::Time(left) = left else { panic!("a time budget stays one") };
        assert!(left <= time - Duration::from_micros(640), "{left:?}");
        zertz.choose(&Zertz::new(Variant::Standard), Budget::Time(time)).unwrap();
        assert!(zertz.last_simulations() > Some(PROBE_SIMULATIONS));
        // Every probe simulation on proven nodes: no speed to learn, the turn is the probe.
        proven.store(4, Ordering::Relaxed);
        let mut done: Thinker<Dvonn, _> = Thinker::new(SleepySource(proven), 1);
        assert_eq!(done.probe(&Dvonn::new(), Budget::Time(time)).unwrap(), Budget::Time(time));
        done.choose(&Dvonn::new(), Budget::Time(time)).unwrap();
        assert_eq!((done.rate, done.last_simulations()), (None, Some(PROBE_SIMULATIONS)));
    }

    #[test]
    fn the_clock_shares_out_what_is_left() {
        let mut clock = GameClock::new(Duration::from_secs(10));
        assert_eq!(clock.left(), Duration::from_millis(9000));
        assert_eq!(clock.budget(0.1), Budget::Time(Duration::from_millis(900)));
        clock.spend(Duration::from_secs(8));
        assert_eq!(clock.budget(1.0), Budget::Time(Duration::from_millis(1000)));
        assert_eq!(clock.budget(2.0), clock.budget(1.0));
        clock.spend(Duration::from_secs(8));
        assert_eq!(clock.left(), Duration::ZERO);
    }
}

/// An error and its causes on one line, `outer: cause: …`: how the protocols and the terminal
/// show an error whose causes are kept as sources.
pub fn error_text(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        cause = inner.source();
    }
    text
}
