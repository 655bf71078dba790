//! Evaluation matches: two agents play a number of games with colours alternated, games in
//! parallel on rayon's threads, and the result is summarised as wins/draws/losses, an Elo
//! difference with a confidence interval and, optionally, an SPRT decision that stops the
//! match early once the answer is clear.
//!
//! Games come in pairs that share a start position (for LYNGK, the same set-up) with the
//! colours swapped, so neither agent profits from a lucky set-up or from moving first.
//!
//! [`run_match`] is the one match runner of the workspace (`gipfzero evaluate`, the training
//! loop's evaluations and gating, the tests); [`NetworkArena`] is the loop's [`Arena`]: the
//! network being trained against baselines or other networks, its agents built by the one
//! factory ([`crate::agents::ServedNetwork`]).
use gipfzero_games::record::{random_game, turn_texts};
use gipfzero_games::{Game, Outcome, Player};
use gipfzero_mcts::{parse_agent, play_game, Agent, MatchError, SearchConfig};
use gipfzero_model::Network;
use rayon::prelude::*;
use serde::Serialize;
use thiserror::Error;

use crate::agents::{AgentsError, ServedNetwork};
use crate::config::{Opponent, RunConfig};
use crate::pipeline::Arena;
use crate::stats::{EloEstimate, MatchResults, Sprt, SprtDecision};

/// How a match is played.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchSettings {
    /// Number of games (rounded up to an even number: games come in colour-swapped pairs;
    /// the CLI and the run config refuse an odd one).
    pub games: u32,
    /// Games longer than this many turns stop and count as draws.
    pub max_turns: usize,
    /// Confidence of the reported Elo interval.
    pub confidence: f64,
    /// Stop early when this test decides.
    pub sprt: Option<Sprt>,
}

/// Whether `games` can be played as colour-swapped pairs (even, at least 2): the CLI and the
/// run config accept no other count.
pub fn is_even_game_count(games: u32) -> bool {
    games >= 2 && games % 2 == 0
}

impl Default for MatchSettings {
    fn default() -> Self {
        MatchSettings { games: 20, max_turns: 1000, confidence: 0.95, sprt: None }
    }
}

/// Where a pair of games starts: a set-up and the random turns played from it.
#[derive(Clone, Debug, PartialEq)]
pub struct Opening<G> {
    /// The position the agents play from.
    pub position: G,
    /// The set-up the turns start from ([`Game::setup_text`]; LYNGK), else `None`.
    pub setup: Option<String>,
    /// The opening turns in record notation (none for [`Opening::at`]).
    pub turns: Vec<String>,
}

impl<G: Game> Opening<G> {
    /// Games that start at `position` itself: no set-up text, no opening turns (so a match
    /// record starts there, not at the game's start).
    pub fn at(position: G) -> Self {
        Opening { position, setup: None, turns: Vec::new() }
    }
}

/// The start of game pair `pair`: `start.seeded_start(seed)` (a LYNGK set-up) followed by
/// `opening_turns` uniformly random turns, all drawn from `seed`. Searches without noise are
/// deterministic, so from one fixed start every pair would replay the same two games; random
/// opening turns make the pairs differ while each pair stays fair (both colours play it).
pub fn opening<G: Game>(start: &G, opening_turns: usize, seed: u64) -> Opening<G> {
    let seeded = start.seeded_start(seed);
    let replay = random_game(&seeded, seed, opening_turns);
    Opening { turns: turn_texts(&seeded, &replay.turns), setup: seeded.setup_text(), position: replay.position }
}

/// One game of a match as played: a line of `gipfzero evaluate --records`. `turns` (the
/// opening's, then the agents') replay from the set-up with `gipfzero rules replay`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatchGame {
    /// The game's index in the match (pairs are games 2k and 2k + 1).
    pub game: u32,
    /// The colour of the match's first agent: 1 or 2.
    pub first_agent_plays: u8,
    /// The set-up ([`Game::setup_text`]; LYNGK), else `null`.
    pub setup: Option<String>,
    /// How many of `turns` are the random opening.
    pub opening_turns: usize,
    pub turns: Vec<String>,
    /// The game's own result text, or that the turn limit stopped it.
    pub result: String,
    /// [`Game::score`] of the final position, player 1 first.
    pub score: [u32; 2],
    /// From player 1's view: 1 win, 0 draw, -1 loss; `null` when the turn limit stopped it.
    pub outcome: Option<i8>,
}

/// The result of a match from the first agent's point of view.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchReport {
    pub results: MatchResults,
    /// Games stopped at the turn limit (counted among the draws).
    pub unfinished: u32,
    pub elo: EloEstimate,
    /// The SPRT's log-likelihood ratio and decision, when one was asked for.
    pub sprt: Option<(f64, SprtDecision)>,
    /// The games in the order of their index.
    pub games: Vec<MatchGame>,
}

/// Which of the two agents of a match.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Side {
    First,
    Second,
}

/// Plays a match. `start(pair)` gives the opening of game pair `pair`;
/// `make_agent(side, game)` builds a fresh agent for one game (seed it from `game` so the
/// match is reproducible whatever the thread count); `progress` is called after every batch
/// of games with the results so far.
pub fn run_match<G, S, A>(
    start: S,
    make_agent: A,
    settings: &MatchSettings,
    progress: impl Fn(&MatchResults) + Sync,
) -> Result<MatchReport, MatchError>
where
    G: Game,
    S: Fn(u32) -> Opening<G> + Sync,
    A: Fn(Side, u32) -> Box<dyn Agent<G>> + Sync,
{
    let pairs = settings.games.div_ceil(2);
    let mut results = MatchResults::default();
    let mut unfinished = 0;
    let mut decision = None;
    let mut games = Vec::new();
    // Pairs are played in batches of one per thread, so an SPRT can stop between batches.
    let batch = rayon::current_num_threads().max(1) as u32;
    let mut next_pair = 0;
    while next_pair < pairs {
        let end = (next_pair + batch).min(pairs);
        let played: Vec<Result<(MatchGame, Option<Outcome>, Player), MatchError>> = (next_pair * 2..end * 2)
            .into_par_iter()
            .map(|game| {
                let opening = start(game / 2);
                let mut first = make_agent(Side::First, game);
                let mut second = make_agent(Side::Second, game);
                // The first agent plays player one in even games, player two in odd ones.
                let (first_colour, agents): (Player, [&mut dyn Agent<G>; 2]) = if game % 2 == 0 {
                    (Player::One, [first.as_mut(), second.as_mut()])
                } else {
                    (Player::Two, [second.as_mut(), first.as_mut()])
                };
                let played = play_game(&opening.position, agents, settings.max_turns, game)?;
                let result = match played.outcome {
                    Some(_) => played.position.result_text(),
                    None => format!("stopped after {} turns", played.turns.len()),
                };
                let agents_turns = turn_texts(&opening.position, &played.turns);
                let opening_turns = opening.turns.len();
                let mut turns = opening.turns;
                turns.extend(agents_turns);
                let record = MatchGame {
                    game,
                    first_agent_plays: first_colour.index() as u8 + 1,
                    setup: opening.setup,
                    opening_turns,
                    turns,
                    result,
                    score: played.position.score(),
                    outcome: played.outcome.map(|o| o.value_for(Player::One) as i8),
                };
                Ok((record, played.outcome, first_colour))
            })
            .collect();
        for game in played {
            let (record, outcome, first_colour) = game?;
            match outcome {
                Some(Outcome::Win(winner)) if winner == first_colour => results.wins += 1,
                Some(Outcome::Win(_)) => results.losses += 1,
                Some(Outcome::Draw) => results.draws += 1,
                None => {
                    results.draws += 1;
                    unfinished += 1;
                }
            }
            games.push(record);
        }
        progress(&results);
        next_pair = end;
        if let Some(sprt) = &settings.sprt {
            let verdict = sprt.decide(&results);
            decision = Some((sprt.llr(&results), verdict));
            if verdict != SprtDecision::Continue {
                break;
            }
        }
    }
    Ok(MatchReport { results, unfinished, elo: results.elo(settings.confidence), sprt: decision, games })
}

/// Random turns opening each pair of evaluation games (see [`opening`]).
const OPENING_TURNS: usize = 2;

/// Why an evaluation match of the training loop could not be played.
#[derive(Debug, Error)]
pub enum ArenaError {
    #[error("cannot start the evaluation threads")]
    Threads(#[source] rayon::ThreadPoolBuildError),
    #[error(transparent)]
    Agents(#[from] AgentsError),
    #[error(transparent)]
    Match(#[from] MatchError),
    #[error("no network given for opponent {0}")]
    MissingNetwork(String),
}

/// Evaluation matches of the network with the run's evaluation search.
pub struct NetworkArena<G: Game> {
    start: G,
    config: RunConfig,
}

impl<G: Game> NetworkArena<G> {
    pub fn new(start: G, config: &RunConfig) -> Self {
        NetworkArena { start, config: config.clone() }
    }
}

/// A side's agent for one game: built up front by the caller, so that the match itself
/// cannot fail on building one (the factory's checks ran when the first agent was made).
fn network_agent<G: Game>(
    name: &str,
    network: &ServedNetwork,
    search: &SearchConfig,
    seed: u64,
) -> Box<dyn Agent<G>> {
    Box::new(
        network
            .agent::<G>(name, search, seed)
            .expect("the evaluation search and rollout mix were validated with the config, and the server serves this game"),
    )
}

impl<G: Game> Arena<G> for NetworkArena<G> {
    type Error = ArenaError;

    fn play(
        &mut self,
        network: &Network,
        opponent: &Opponent,
        opponent_network: Option<&Network>,
        games: u32,
        seed: u64,
    ) -> Result<MatchReport, ArenaError> {
        let evaluation = &self.config.evaluation;
        let search = evaluation.search.for_evaluation();
        // The match's own threads, one per game in flight: the games mostly wait on the
        // network, whose server batches the leaves of all of them (on a CPU with a replica
        // of the network per core of the run).
        let threads = evaluation.parallel_games.max(1) as usize;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("arena-{i}"))
            .build()
            .map_err(ArenaError::Threads)?;
        let spec = self.start.spec();
        // The run's workers serve the match's games.
        let searchers = self.config.worker_threads().min(threads);
        let serving = self.config.serving().for_matches();
        let served = ServedNetwork::serve_in(network, spec, serving, threads, searchers)?;
        let opponent_served = opponent_network.map(|n| ServedNetwork::serve_in(n, spec, serving, threads, searchers)).transpose()?;
        let baseline = opponent.is_baseline().then(|| opponent.to_string());
        if baseline.is_none() && opponent_served.is_none() {
            return Err(ArenaError::MissingNetwork(opponent.to_string()));
        }
        // Refused before any game (an agent made inside the match may not fail).
        served.agent::<G>("network", &search, seed)?;
        let settings = MatchSettings { games, max_turns: evaluation.max_turns, ..MatchSettings::default() };
        let start = &self.start;
        let report = pool.install(|| run_match(
            |pair| opening(start, OPENING_TURNS, seed.wrapping_add(pair as u64)),
            |side, game| {
                let agent_seed = seed ^ ((game as u64) << 16) ^ (side == Side::Second) as u64;
                match side {
                    Side::First => network_agent("network", &served, &search, agent_seed),
                    Side::Second => match (&baseline, &opponent_served) {
                        (Some(spec_text), _) => parse_agent::<G>(spec_text, agent_seed).expect("baseline specs are valid"),
                        (None, Some(opponent)) => network_agent("opponent", opponent, &search, agent_seed),
                        (None, None) => unreachable!("checked above"),
                    },
                }
            },
            &settings,
            |_| {},
        ))?;
        Ok(report)
    }
}
