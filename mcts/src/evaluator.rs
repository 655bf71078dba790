//! The one thing the search asks of a network: values and policies for a batch of positions.
//!
//! Why a trait and a flat batch: the search must not depend on tch (the network crate
//! implements [`Evaluator`]), and the network is fast only on big batches, so the search
//! gathers leaves from many trees into one [`LeafBatch`] — positions plus their legal actions, laid
//! out flat so that the network can encode and mask them without further allocation — and
//! makes one call per step. The legal actions travel with the positions because the search has
//! just computed them and the network needs them to mask and renormalise its policy.
use gipfzero_games::record::random_playout;
use gipfzero_games::{Action, Game, SplitMix64};
use thiserror::Error;

/// Positions to evaluate with their legal actions (in `legal_actions` order).
#[derive(Clone, Debug)]
pub struct LeafBatch<G> {
    positions: Vec<G>,
    legal: Vec<Action>,
    /// `offsets[i]..offsets[i + 1]` is position `i`'s range in `legal` (and in the policy).
    offsets: Vec<usize>,
}

impl<G> Default for LeafBatch<G> {
    fn default() -> Self {
        LeafBatch {
            positions: Vec::new(),
            legal: Vec::new(),
            offsets: vec![0],
        }
    }
}

impl<G: Clone> LeafBatch<G> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a position and its legal actions.
    pub fn push(&mut self, position: G, legal: &[Action]) {
        self.positions.push(position);
        self.legal.extend_from_slice(legal);
        self.offsets.push(self.legal.len());
    }

    /// Appends all of `other`.
    pub fn extend_from(&mut self, other: &LeafBatch<G>) {
        let base = self.legal.len();
        self.positions.extend(other.positions.iter().cloned());
        self.legal.extend_from_slice(&other.legal);
        self.offsets
            .extend(other.offsets[1..].iter().map(|o| o + base));
    }

    pub fn clear(&mut self) {
        self.positions.clear();
        self.legal.clear();
        self.offsets.truncate(1);
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Total number of legal actions over the batch: the length of the policy output.
    pub fn policy_len(&self) -> usize {
        self.legal.len()
    }

    pub fn positions(&self) -> &[G] {
        &self.positions
    }

    pub fn position(&self, index: usize) -> &G {
        &self.positions[index]
    }

    /// The legal actions of position `index`.
    pub fn legal(&self, index: usize) -> &[Action] {
        &self.legal[self.range(index)]
    }

    /// Position `index`'s range in the flat policy output.
    pub fn range(&self, index: usize) -> std::ops::Range<usize> {
        self.offsets[index]..self.offsets[index + 1]
    }
}

/// An evaluator that could not do its job (a failed network call, a lost inference server):
/// what failed, and the error that caused it when there is one, kept whole as the source
/// (shared, so that the error stays `Clone`). Two are equal when they say the same.
#[derive(Debug, Clone, Error)]
#[error("evaluator failed: {message}")]
pub struct EvalError {
    pub message: String,
    #[source]
    pub source: Option<std::sync::Arc<dyn std::error::Error + Send + Sync>>,
}

impl EvalError {
    pub fn new(message: impl Into<String>) -> Self {
        EvalError { message: message.into(), source: None }
    }

    /// `message` (what was asked of whom), caused by `source`.
    pub fn caused_by(message: impl Into<String>, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        EvalError { message: message.into(), source: Some(std::sync::Arc::new(source)) }
    }
}

impl PartialEq for EvalError {
    fn eq(&self, other: &Self) -> bool {
        self.message == other.message && self.source.as_ref().map(|s| s.to_string()) == other.source.as_ref().map(|s| s.to_string())
    }
}

/// Values and policies for batches of positions.
///
/// For every position `i` of the batch the evaluator writes `values[i]`, the expected outcome
/// in [-1, 1] for the player to move there, and `policy[batch.range(i)]`, prior probabilities of
/// that position's legal actions in the order of `batch.legal(i)`. The search renormalises the
/// policy (and falls back to uniform if it has no positive mass), but refuses values that are
/// not finite. `&self` and `Send + Sync` let one evaluator serve many search threads.
pub trait Evaluator<G: Game>: Send + Sync {
    fn evaluate(
        &self,
        batch: &LeafBatch<G>,
        values: &mut [f32],
        policy: &mut [f32],
    ) -> Result<(), EvalError>;
}

impl<G: Game, E: Evaluator<G> + ?Sized> Evaluator<G> for &E {
    fn evaluate(
        &self,
        batch: &LeafBatch<G>,
        values: &mut [f32],
        policy: &mut [f32],
    ) -> Result<(), EvalError> {
        (**self).evaluate(batch, values, policy)
    }
}

impl<G: Game, E: Evaluator<G> + ?Sized> Evaluator<G> for Box<E> {
    fn evaluate(
        &self,
        batch: &LeafBatch<G>,
        values: &mut [f32],
        policy: &mut [f32],
    ) -> Result<(), EvalError> {
        (**self).evaluate(batch, values, policy)
    }
}

impl<G: Game, E: Evaluator<G> + ?Sized> Evaluator<G> for std::sync::Arc<E> {
    fn evaluate(
        &self,
        batch: &LeafBatch<G>,
        values: &mut [f32],
        policy: &mut [f32],
    ) -> Result<(), EvalError> {
        (**self).evaluate(batch, values, policy)
    }
}

/// Writes a uniform policy for every position of the batch.
pub(crate) fn uniform_policy<G: Clone>(batch: &LeafBatch<G>, policy: &mut [f32]) {
    for i in 0..batch.len() {
        let range = batch.range(i);
        let p = 1.0 / range.len().max(1) as f32;
        policy[range].fill(p);
    }
}

/// Value 0 and a uniform policy: the search with nothing but terminal states to learn from,
/// and the measure of the search's own overhead in the benchmarks.
#[derive(Clone, Copy, Debug, Default)]
pub struct UniformEvaluator;

impl<G: Game> Evaluator<G> for UniformEvaluator {
    fn evaluate(
        &self,
        batch: &LeafBatch<G>,
        values: &mut [f32],
        policy: &mut [f32],
    ) -> Result<(), EvalError> {
        values.fill(0.0);
        uniform_policy(batch, policy);
        Ok(())
    }
}

/// Value from random playouts to the end of the game, uniform policy: classic Monte Carlo
/// evaluation without any knowledge, for the `rollout:<sims>` baseline.
///
/// The playouts of a position are seeded from `seed` and the position's hash, so the evaluator
/// needs no mutable state (it is shared by reference) and gives the same value for the same
/// position every time.
#[derive(Clone, Copy, Debug)]
pub struct RolloutEvaluator {
    /// Playouts per position (at least one is played).
    pub playouts: u32,
    pub seed: u64,
}

impl RolloutEvaluator {
    pub fn new(playouts: u32, seed: u64) -> Self {
        RolloutEvaluator { playouts, seed }
    }

    /// The mean outcome of the playouts for the player to move in `position`.
    pub fn value<G: Game>(&self, position: &G, buffer: &mut Vec<Action>) -> f32 {
        let player = position.to_move();
        let mut rng = SplitMix64::new(self.seed ^ position.position_hash());
        let playouts = self.playouts.max(1);
        let mut total = 0.0;
        for _ in 0..playouts {
            let mut game = position.clone();
            random_playout(&mut game, &mut rng, buffer);
            if let gipfzero_games::Status::Over(outcome) = game.status() {
                total += outcome.value_for(player);
            }
        }
        total / playouts as f32
    }
}

impl<G: Game> Evaluator<G> for RolloutEvaluator {
    fn evaluate(
        &self,
        batch: &LeafBatch<G>,
        values: &mut [f32],
        policy: &mut [f32],
    ) -> Result<(), EvalError> {
        let mut buffer = Vec::new();
        for (value, position) in values.iter_mut().zip(batch.positions()) {
            *value = self.value(position, &mut buffer);
        }
        uniform_policy(batch, policy);
        Ok(())
    }
}

/// A network's policy with a value that blends in random playouts: `(1 − w)·v + w·z`, where
/// `v` is the inner evaluator's value and `z` the playouts' mean outcome (AlphaGo's mixing
/// parameter λ). Playouts cost microseconds in these games against a network evaluation's
/// fraction of a millisecond on a CPU, so they add an unbiased, if noisy, second opinion to a
/// value head that is still learning, at little cost.
#[derive(Clone, Debug)]
pub struct MixedEvaluator<E> {
    pub inner: E,
    pub rollout: RolloutEvaluator,
    /// w in [0, 1]: 0 is the inner evaluator alone, 1 the playouts' value alone.
    pub weight: f32,
}

impl<E> MixedEvaluator<E> {
    /// `weight` must lie in [0, 1] ([`MixedEvaluator::check_weight`]).
    pub fn new(inner: E, rollout: RolloutEvaluator, weight: f32) -> Result<Self, EvalError> {
        Self::check_weight(weight)?;
        Ok(MixedEvaluator {
            inner,
            rollout,
            weight,
        })
    }

    /// The check [`MixedEvaluator::new`] makes, for callers that take a weight long before
    /// they build an evaluator with it.
    pub fn check_weight(weight: f32) -> Result<(), EvalError> {
        if (0.0..=1.0).contains(&weight) {
            Ok(())
        } else {
            Err(EvalError::new(format!("the rollout mix {weight} is outside [0, 1]")))
        }
    }
}

impl<G: Game, E: Evaluator<G>> Evaluator<G> for MixedEvaluator<E> {
    fn evaluate(
        &self,
        batch: &LeafBatch<G>,
        values: &mut [f32],
        policy: &mut [f32],
    ) -> Result<(), EvalError> {
        self.inner.evaluate(batch, values, policy)?;
        if self.weight > 0.0 {
            let mut buffer = Vec::new();
            for (value, position) in values.iter_mut().zip(batch.positions()) {
                let playouts = self.rollout.value(position, &mut buffer);
                *value = (1.0 - self.weight) * *value + self.weight * playouts;
            }
        }
        Ok(())
    }
}
