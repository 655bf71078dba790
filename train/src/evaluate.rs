//! Evaluation matches: two agents play a number of games with colours alternated, games in
//! parallel on rayon's threads, and the result is summarised as wins/draws/losses, an Elo
//! difference with a confidence interval and, optionally, an SPRT decision that stops the
//! match early once the answer is clear.
//!
//! Games come in pairs that share a start position (for LYNGK, the same set-up) with the
//! colours swapped, so neither agent profits from a lucky set-up or from moving first.
use gipfzero_games::{Game, Outcome, Player};
use gipfzero_mcts::{play_game, Agent, MatchError};
use rayon::prelude::*;

use crate::stats::{EloEstimate, MatchResults, Sprt, SprtDecision};

/// How a match is played.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchSettings {
    /// Number of games (rounded up to an even number: games come in colour-swapped pairs).
    pub games: u32,
    /// Games longer than this many turns stop and count as draws.
    pub max_turns: usize,
    /// Confidence of the reported Elo interval.
    pub confidence: f64,
    /// Stop early when this test decides.
    pub sprt: Option<Sprt>,
}

impl Default for MatchSettings {
    fn default() -> Self {
        MatchSettings { games: 20, max_turns: 1000, confidence: 0.95, sprt: None }
    }
}

/// The start of game pair `pair`: `start.seeded_start(seed)` (a LYNGK set-up) followed by
/// `opening_turns` uniformly random turns, all drawn from `seed`. Searches without noise are
/// deterministic, so from one fixed start every pair would replay the same two games; random
/// opening turns make the pairs differ while each pair stays fair (both colours play it).
pub fn opening<G: Game>(start: &G, opening_turns: usize, seed: u64) -> G {
    gipfzero_games::record::random_game(&start.seeded_start(seed), seed, opening_turns).position
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
}

/// Which of the two agents of a match.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Side {
    First,
    Second,
}

/// Plays a match. `start(pair)` gives the start position of game pair `pair`;
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
    S: Fn(u32) -> G + Sync,
    A: Fn(Side, u32) -> Box<dyn Agent<G>> + Sync,
{
    let pairs = settings.games.div_ceil(2);
    let mut results = MatchResults::default();
    let mut unfinished = 0;
    let mut decision = None;
    // Pairs are played in batches of one per thread, so an SPRT can stop between batches.
    let batch = rayon::current_num_threads().max(1) as u32;
    let mut next_pair = 0;
    while next_pair < pairs {
        let end = (next_pair + batch).min(pairs);
        let outcomes: Vec<Result<(Option<Outcome>, Player), MatchError>> = (next_pair * 2
            ..end * 2)
            .into_par_iter()
            .map(|game| {
                let position = start(game / 2);
                let mut first = make_agent(Side::First, game);
                let mut second = make_agent(Side::Second, game);
                // The first agent plays player one in even games, player two in odd ones.
                let (first_colour, agents): (Player, [&mut dyn Agent<G>; 2]) = if game % 2 == 0 {
                    (Player::One, [first.as_mut(), second.as_mut()])
                } else {
                    (Player::Two, [second.as_mut(), first.as_mut()])
                };
                let played = play_game(&position, agents, settings.max_turns, game)?;
                Ok((played.outcome, first_colour))
            })
            .collect();
        for outcome in outcomes {
            match outcome? {
                (Some(Outcome::Win(winner)), first_colour) if winner == first_colour => {
                    results.wins += 1
                }
                (Some(Outcome::Win(_)), _) => results.losses += 1,
                (Some(Outcome::Draw), _) => results.draws += 1,
                (None, _) => {
                    results.draws += 1;
                    unfinished += 1;
                }
            }
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
    Ok(MatchReport { results, unfinished, elo: results.elo(settings.confidence), sprt: decision })
}
