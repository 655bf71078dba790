//! Exact endgame search: alpha-beta over whole turns on the game's result (win, draw or
//! loss), with a transposition table, within a node budget.
//!
//! Why beside the tree search: near a game's end the network's value is least reliable where
//! it matters most. Against PrimaDvonna (DVONN, docs/RESULTS.md, "Where the DVONN games are
//! lost") the shipped network left the placement phase ahead in about 71 % of its games by
//! PrimaDvonna's own judgement (PrimaDvonna playing both sides from there), still about as far
//! ahead eight movement turns later, and scored 54 %: the lead went in the last twenty turns
//! or so. The MCTS-solver (`SearchConfig::solver`) proves only what a few thousand
//! simulations reach; an alpha-beta search on the three values with a transposition table
//! proves DVONN endgames of about ten turns in milliseconds. That is not deep enough to win
//! those games back (the matches of that section: no measurable change in score), but what it
//! proves no network can misjudge, and the turns after a proof cost nothing.
//!
//! The search is tried before the tree search of a turn ([`SearchConfig::endgame_nodes`]):
//! a proven win or draw is played, a proven loss or a search out of budget leaves the turn to
//! the tree search (whose network then picks the best practical chance). Its table lives as
//! long as the agent's game, so what one turn proved makes the next turns' searches cheap.
//!
//! [`SearchConfig::endgame_nodes`]: crate::SearchConfig::endgame_nodes
use std::collections::HashMap;

use gipfzero_games::{Game, Status};

/// A result for the player to move: 1 won, 0 drawn, -1 lost.
pub type Proof = i8;

/// The table stops growing at this many positions (it is cleared and filled again): about
/// 64 MB at most, far more than a turn's budget visits.
const TABLE_LIMIT: usize = 2 << 20;

/// What the table knows of a position: its value lies in `lower..=upper`, and the turn that
/// was best (an index into `legal_turns`), tried first next time.
#[derive(Copy, Clone, Debug)]
struct Bounds {
    lower: Proof,
    upper: Proof,
    best: u16,
}

/// The budget ran out before the value was proven.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct OutOfBudget;

/// An exact search that keeps its transposition table between calls.
#[derive(Debug, Default)]
pub struct EndgameSearch {
    table: HashMap<u64, Bounds>,
    nodes: u64,
    limit: u64,
}

/// What [`EndgameSearch::solve`] proved: the value of the position for the player to move,
/// and a turn (an index into `legal_turns`) that achieves it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Solved {
    pub value: Proof,
    pub turn: usize,
}

impl EndgameSearch {
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets every position (a new game).
    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// Positions made by the last [`EndgameSearch::solve`], the root included (a position is
    /// made when its parent is searched: each node makes all its children).
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The exact value of `position` (a turn start of a game still going) and a turn that
    /// reaches it, or `None` when making `node_budget` positions was not enough to prove it.
    pub fn solve<G: Game>(&mut self, position: &G, node_budget: u64) -> Option<Solved> {
        self.nodes = 1;
        self.limit = node_budget;
        if self.table.len() > TABLE_LIMIT {
            self.table.clear();
        }
        if position.status().is_over() {
            return None;
        }
        let (value, turn) = self.negamax(position, -1, 1).ok()?;
        Some(Solved { value, turn })
    }

    /// The value of `position` for its player to move within `alpha..beta` (fail-soft), and
    /// the index of the best turn.
    fn negamax<G: Game>(&mut self, position: &G, mut alpha: Proof, mut beta: Proof) -> Result<(Proof, usize), OutOfBudget> {
        if self.nodes > self.limit {
            return Err(OutOfBudget);
        }
        let key = position.position_hash();
        let mut first = 0usize;
        if let Some(bounds) = self.table.get(&key) {
            if bounds.lower == bounds.upper || bounds.lower >= beta {
                return Ok((bounds.lower, bounds.best as usize));
            }
            if bounds.upper <= alpha {
                return Ok((bounds.upper, bounds.best as usize));
            }
            alpha = alpha.max(bounds.lower);
            beta = beta.min(bounds.upper);
            first = bounds.best as usize;
        }
        let (alpha_in, beta_in) = (alpha, beta);
        let mover = position.to_move();
        let mut turns = Vec::new();
        position.legal_turns(&mut turns);
        // The children: a game end first (a win found at once ends the node), then the
        // table's best turn, then the rest by the mover's lead in the game's score after
        // them, the largest first (a cut comes sooner from a good turn).
        let mut children: Vec<(usize, G, Option<Proof>, i64)> = turns
            .iter()
            .enumerate()
            .map(|(index, turn)| {
                let mut child = position.clone();
                child.play(turn);
                let end = match child.status() {
                    Status::Over(outcome) => Some(outcome.value_for(mover) as Proof),
                    Status::Ongoing => None,
                };
                let score = child.score();
                let lead = score[mover.index()] as i64 - score[mover.other().index()] as i64;
                (index, child, end, lead)
            })
            .collect();
        // The work is in making the positions (a ZÈRTZ turn start has thousands of
        // children, a DVONN endgame position a handful): they are what the budget counts.
        self.nodes += children.len() as u64;
        if self.nodes > self.limit {
            return Err(OutOfBudget);
        }
        children.sort_by_key(|(index, _, end, lead)| (end.map_or(1, |value| -value), *index != first, -lead));
        let mut best = (-2 as Proof, 0usize);
        for (index, child, end, _) in &children {
            let value = match end {
                Some(value) => *value,
                None if child.to_move() == mover => self.negamax(child, alpha, beta)?.0,
                None => -self.negamax(child, -beta, -alpha)?.0,
            };
            if value > best.0 {
                best = (value, *index);
            }
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
        let (value, turn) = best;
        // A value at or below the window is only an upper bound, at or above only a lower one.
        let (lower, upper) = match (value <= alpha_in, value >= beta_in) {
            (true, _) => (-1, value),
            (_, true) => (value, 1),
            _ => (value, value),
        };
        let best = turn as u16;
        self.table
            .entry(key)
            .and_modify(|old| *old = Bounds { lower: old.lower.max(lower), upper: old.upper.min(upper), best })
            .or_insert(Bounds { lower, upper, best });
        Ok((value, turn))
    }
}
