//! Small games and evaluators with known answers, for the tests and benchmarks of the search
//! (and for other crates' tests, through the `testing` feature).
//!
//! Why Nim: the search must be checked against exact answers, and the real engines are too big
//! for that. Nim variants are solved by a few lines of minimax ([`solve`]), yet they have what
//! the real games have that a naive search gets wrong: turns of several actions by the same
//! player (like ZÈRTZ and LYNGK) and a player moving twice in a row at a turn boundary (like
//! DVONN's phase change).
use std::fmt;

use gipfzero_games::{Action, Game, Outcome, Player, Spec, Status, TurnError};

use crate::evaluator::{LeafBatch, EvalError, Evaluator};

/// The rules of a Nim variant: players take stones from one pile; whoever takes the last stone
/// wins.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct NimRules {
    /// An action takes 1 to `max_take` stones (at most 3: the action space has 3 actions).
    pub max_take: u8,
    /// Actions per turn: a turn is this many takes by the same player (fewer if the pile runs
    /// out).
    pub actions_per_turn: u8,
    /// When a turn leaves a pile that is a positive multiple of this, the same player plays the
    /// next turn too (0: never).
    pub bonus_every: u8,
    /// Busy work (rounds of a hash) done by every `legal_actions` call, to give benchmarks a
    /// move generator as costly as a real engine's. 0 for the tests.
    pub work: u32,
}

impl NimRules {
    /// Classic subtraction Nim: take 1–3, one take per turn, players alternate. A pile that is
    /// a multiple of 4 is lost for the player to move.
    pub const CLASSIC: NimRules = NimRules {
        max_take: 3,
        actions_per_turn: 1,
        bonus_every: 0,
        work: 0,
    };
    /// A turn is two takes of 1–2 stones by the same player.
    pub const DOUBLE: NimRules = NimRules {
        max_take: 2,
        actions_per_turn: 2,
        bonus_every: 0,
        work: 0,
    };
    /// Take 1–3; a turn leaving a multiple of 5 earns another turn.
    pub const BONUS: NimRules = NimRules {
        max_take: 3,
        actions_per_turn: 1,
        bonus_every: 5,
        work: 0,
    };
}

static NIM_SPEC: Spec = Spec {
    game: "nim",
    variant: "nim",
    action_count: 3,
    planes: 3,
    height: 1,
    width: 1,
    symmetry_count: 1,
};

/// A Nim position. Action `k` takes `k + 1` stones.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Nim {
    rules: NimRules,
    pile: u8,
    to_move: Player,
    /// Takes left in the current turn.
    left_in_turn: u8,
    /// Stones taken by each player (the score).
    taken: [u32; 2],
    winner: Option<Player>,
}

/// A turn: the number of stones of each take.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NimTurn(pub Vec<u8>);

impl Nim {
    /// A game with `pile` stones, player one to move at a turn start.
    pub fn new(pile: u8, rules: NimRules) -> Self {
        assert!(
            (1..=3).contains(&rules.max_take) && rules.actions_per_turn >= 1,
            "bad Nim rules"
        );
        Nim {
            rules,
            pile,
            to_move: Player::One,
            left_in_turn: rules.actions_per_turn,
            taken: [0, 0],
            winner: if pile == 0 { Some(Player::Two) } else { None },
        }
    }

    pub fn pile(&self) -> u8 {
        self.pile
    }

    /// The action that takes `stones`.
    pub fn take(stones: u8) -> Action {
        Action(stones as u16 - 1)
    }
}

impl Game for Nim {
    type Turn = NimTurn;

    fn spec(&self) -> &'static Spec {
        &NIM_SPEC
    }

    fn to_move(&self) -> Player {
        self.to_move
    }

    fn status(&self) -> Status {
        match self.winner {
            Some(player) => Status::Over(Outcome::Win(player)),
            None => Status::Ongoing,
        }
    }

    fn score(&self) -> [u32; 2] {
        self.taken
    }

    fn is_turn_start(&self) -> bool {
        self.left_in_turn == self.rules.actions_per_turn
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.rules.work > 0 {
            let mut rng = gipfzero_games::SplitMix64::new(self.pile as u64);
            let mut mix = 0;
            for _ in 0..self.rules.work {
                mix ^= rng.next_u64();
            }
            std::hint::black_box(mix);
        }
        if self.winner.is_none() {
            out.extend((1..=self.rules.max_take.min(self.pile)).map(Nim::take));
        }
    }

    fn apply(&mut self, action: Action) {
        let stones = action.0 as u8 + 1;
        debug_assert!(self.winner.is_none() && stones <= self.pile.min(self.rules.max_take));
        self.pile -= stones;
        self.taken[self.to_move.index()] += stones as u32;
        if self.pile == 0 {
            self.winner = Some(self.to_move);
            self.left_in_turn = self.rules.actions_per_turn;
            return;
        }
        self.left_in_turn -= 1;
        if self.left_in_turn == 0 {
            self.left_in_turn = self.rules.actions_per_turn;
            let bonus = self.rules.bonus_every > 0 && self.pile % self.rules.bonus_every == 0;
            if !bonus {
                self.to_move = self.to_move.other();
            }
        }
    }

    fn position_hash(&self) -> u64 {
        let player = self.to_move.index() as u64;
        (self.pile as u64)
            | (self.left_in_turn as u64) << 8
            | player << 16
            | (self.winner.is_some() as u64) << 17
    }

    fn legal_turns(&self, out: &mut Vec<NimTurn>) {
        fn extend(position: &Nim, prefix: &mut Vec<u8>, out: &mut Vec<NimTurn>) {
            let mut actions = Vec::new();
            position.legal_actions(&mut actions);
            for action in actions {
                let mut next = position.clone();
                next.apply(action);
                prefix.push(action.0 as u8 + 1);
                if next.is_turn_start() || next.status().is_over() {
                    out.push(NimTurn(prefix.clone()));
                } else {
                    extend(&next, prefix, out);
                }
                prefix.pop();
            }
        }
        out.clear();
        extend(self, &mut Vec::new(), out);
    }

    fn turn_actions(&self, turn: &NimTurn) -> Vec<Action> {
        turn.0.iter().map(|&stones| Nim::take(stones)).collect()
    }

    fn format_turn(&self, turn: &NimTurn) -> String {
        turn.0
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join("+")
    }

    fn parse_turn(&self, text: &str) -> Result<NimTurn, TurnError> {
        let mut stones = Vec::new();
        for part in text.split('+') {
            match part.parse::<u8>() {
                Ok(n) if (1..=3).contains(&n) => stones.push(n),
                _ => {
                    return Err(TurnError::Malformed(format!(
                        "expected takes of 1 to 3 stones joined by '+', got {text:?}"
                    )))
                }
            }
        }
        let turn = NimTurn(stones);
        let mut legal = Vec::new();
        self.legal_turns(&mut legal);
        if legal.contains(&turn) {
            Ok(turn)
        } else {
            Err(TurnError::Illegal(format!(
                "{text} is not a legal turn with {} stones left",
                self.pile
            )))
        }
    }

    fn encode(&self, out: &mut [f32]) {
        out[0] = self.pile as f32 / 32.0;
        out[1] = self.left_in_turn as f32;
        out[2] = self.to_move.index() as f32;
    }

    fn transform(&self, _sym: usize) -> Self {
        self.clone()
    }

    fn transform_action(&self, _sym: usize, action: Action) -> Action {
        action
    }

    fn transform_observation(&self, _sym: usize, input: &[f32], output: &mut [f32]) {
        output.copy_from_slice(input);
    }

    fn render_text(&self) -> String {
        format!("{self}")
    }

    fn result_text(&self) -> String {
        match self.winner {
            Some(player) => format!("{player} wins"),
            None => "unfinished".to_string(),
        }
    }
}

impl fmt::Display for Nim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "pile {}, {} to move, {} take(s) left in the turn",
            self.pile, self.to_move, self.left_in_turn
        )
    }
}

/// The exact value of `position` for the player to move (+1 won, −1 lost), by minimax over
/// actions that asks [`Game::to_move`] at every node.
pub fn solve<G: Game>(position: &G) -> f32 {
    if let Status::Over(outcome) = position.status() {
        return outcome.value_for(position.to_move());
    }
    let mover = position.to_move();
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    actions
        .iter()
        .map(|&action| {
            let mut next = position.clone();
            next.apply(action);
            let value = solve(&next);
            if next.to_move() == mover {
                value
            } else {
                -value
            }
        })
        .fold(f32::NEG_INFINITY, f32::max)
}

/// The actions of `position` that keep its exact value (the winning ones when it is won).
pub fn best_actions<G: Game>(position: &G) -> Vec<Action> {
    let target = solve(position);
    let mover = position.to_move();
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    actions
        .into_iter()
        .filter(|&action| {
            let mut next = position.clone();
            next.apply(action);
            let value = solve(&next);
            (if next.to_move() == mover {
                value
            } else {
                -value
            }) == target
        })
        .collect()
}

/// Value 0 and a fixed prior by action index (renormalised over the legal actions): a
/// non-uniform prior whose effect on the visit counts is known.
#[derive(Clone, Debug)]
pub struct PriorEvaluator {
    pub prior: Vec<f32>,
}

impl<G: Game> Evaluator<G> for PriorEvaluator {
    fn evaluate(
        &self,
        batch: &LeafBatch<G>,
        values: &mut [f32],
        policy: &mut [f32],
    ) -> Result<(), EvalError> {
        values.fill(0.0);
        for i in 0..batch.len() {
            let range = batch.range(i);
            let legal = batch.legal(i);
            let sum: f32 = legal
                .iter()
                .map(|a| self.prior.get(a.index()).copied().unwrap_or(0.0))
                .sum();
            for (p, a) in policy[range].iter_mut().zip(legal) {
                *p = self.prior.get(a.index()).copied().unwrap_or(0.0) / sum;
            }
        }
        Ok(())
    }
}

/// The exact value (from [`solve`]) and a uniform policy: a perfect value network.
#[derive(Clone, Copy, Debug, Default)]
pub struct SolverEvaluator;

impl<G: Game> Evaluator<G> for SolverEvaluator {
    fn evaluate(
        &self,
        batch: &LeafBatch<G>,
        values: &mut [f32],
        policy: &mut [f32],
    ) -> Result<(), EvalError> {
        for (i, value) in values.iter_mut().enumerate() {
            *value = solve(batch.position(i));
        }
        crate::evaluator::uniform_policy(batch, policy);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gipfzero_games::record::{perft, perft_actions};

    #[test]
    fn classic_nim_multiples_of_four_are_lost() {
        for pile in 1..=12u8 {
            let expected = if pile % 4 == 0 { -1.0 } else { 1.0 };
            assert_eq!(
                solve(&Nim::new(pile, NimRules::CLASSIC)),
                expected,
                "pile {pile}"
            );
        }
    }

    #[test]
    fn a_double_turn_keeps_the_player_and_lists_sequences() {
        let mut nim = Nim::new(6, NimRules::DOUBLE);
        assert!(nim.is_turn_start());
        nim.apply(Nim::take(1));
        assert!(!nim.is_turn_start());
        assert_eq!(nim.to_move(), Player::One);
        nim.apply(Nim::take(2));
        assert!(nim.is_turn_start());
        assert_eq!(nim.to_move(), Player::Two);
        // From 6: four two-take turns; turns and action pairs are the same tree.
        let start = Nim::new(6, NimRules::DOUBLE);
        assert_eq!(perft(&start, 1), 4);
        assert_eq!(perft_actions(&start, 2), 4);
        let turn = start.parse_turn("2+1").unwrap();
        assert_eq!(start.turn_actions(&turn), vec![Nim::take(2), Nim::take(1)]);
        assert!(start.parse_turn("2").is_err());
        assert!(start.parse_turn("x").is_err());
    }

    #[test]
    fn a_bonus_pile_gives_the_same_player_another_turn() {
        let mut nim = Nim::new(8, NimRules::BONUS);
        nim.apply(Nim::take(3));
        assert_eq!(
            (nim.pile(), nim.to_move(), nim.is_turn_start()),
            (5, Player::One, true)
        );
        nim.apply(Nim::take(1));
        assert_eq!(nim.to_move(), Player::Two);
    }

    #[test]
    fn the_last_stone_wins() {
        let mut nim = Nim::new(2, NimRules::DOUBLE);
        nim.apply(Nim::take(2));
        assert_eq!(nim.status(), Status::Over(Outcome::Win(Player::One)));
        let mut legal = vec![Action(0)];
        nim.legal_actions(&mut legal);
        assert!(legal.is_empty());
    }
}
