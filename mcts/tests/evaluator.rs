//! The evaluators against each other on Nim (see `gipfzero_mcts::testing`). An integration
//! test rather than a unit test of `evaluator.rs`, so that the crate's test games, which
//! implement `Evaluator`, need not be imported by the module that defines it.
use gipfzero_games::Game;
use gipfzero_mcts::testing::{Nim, NimRules, PriorEvaluator};
use gipfzero_mcts::{LeafBatch, EvalError, Evaluator, MixedEvaluator, RolloutEvaluator};

/// [`PriorEvaluator`]'s policy with the value 0.5 for every position.
struct Confident(PriorEvaluator);

impl Evaluator<Nim> for Confident {
    fn evaluate(&self, batch: &LeafBatch<Nim>, values: &mut [f32], policy: &mut [f32]) -> Result<(), EvalError> {
        self.0.evaluate(batch, values, policy)?;
        values.fill(0.5);
        Ok(())
    }
}

fn batch() -> LeafBatch<Nim> {
    let mut batch = LeafBatch::new();
    for stones in [1, 2, 5, 9] {
        let position = Nim::new(stones, NimRules::CLASSIC);
        let mut legal = Vec::new();
        position.legal_actions(&mut legal);
        batch.push(position, &legal);
    }
    batch
}

fn evaluate<E: Evaluator<Nim>>(evaluator: &E, batch: &LeafBatch<Nim>) -> (Vec<f32>, Vec<f32>) {
    let mut values = vec![f32::NAN; batch.len()];
    let mut policy = vec![f32::NAN; batch.policy_len()];
    evaluator.evaluate(batch, &mut values, &mut policy).unwrap();
    (values, policy)
}

#[test]
fn mixed_values_blend_the_inner_value_and_the_playouts_and_keep_the_inner_policy() {
    let batch = batch();
    let rollout = RolloutEvaluator::new(16, 3);
    let inner = Confident(PriorEvaluator { prior: vec![0.1, 0.6, 0.3] });
    let (inner_values, inner_policy) = evaluate(&inner, &batch);
    let (rollout_values, _) = evaluate(&rollout, &batch);
    for weight in [0.0, 0.25, 1.0] {
        let mixed = MixedEvaluator::new(&inner, rollout, weight).unwrap();
        let (values, policy) = evaluate(&mixed, &batch);
        assert_eq!(policy, inner_policy, "weight {weight}");
        for i in 0..batch.len() {
            let expected = (1.0 - weight) * inner_values[i] + weight * rollout_values[i];
            assert!((values[i] - expected).abs() < 1e-6, "weight {weight}, position {i}: {} against {expected}", values[i]);
        }
    }
    // One stone: the mover takes it and wins every playout.
    assert_eq!(rollout_values[0], 1.0);
    for weight in [-0.1, 1.5, f32::NAN] {
        assert!(MixedEvaluator::new(&inner, rollout, weight).is_err(), "weight {weight}");
    }
}
