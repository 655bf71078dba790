//! The network as the search's [`Evaluator`]: the bridge from mcts's batches of positions to
//! the inference server's batches of observations.
//!
//! Why here: the search crate stays free of tch, and the server knows only observations and
//! legal actions; this adapter is the one place that encodes positions ([`Game::encode`],
//! written straight into the server's batch) and copies the answers back. The server masks
//! and softmaxes over the legal actions, so the policies handed to the search already sum to
//! 1 over them, in the order the search gave them.
use std::sync::Mutex;

use gipfzero_games::{Game, Spec};
use gipfzero_mcts::{LeafBatch, EvalError, Evaluator};

use crate::inference::{Batch, InferenceError, InferenceHandle};

/// Evaluates search batches with the network behind an [`InferenceHandle`].
#[derive(Debug)]
pub struct NetworkEvaluator {
    handle: InferenceHandle,
    spec: &'static Spec,
    /// Request batches given back by the server, reused so that a step allocates nothing.
    spare: Mutex<Vec<Batch>>,
}

impl NetworkEvaluator {
    /// An evaluator for positions of `spec`; fails if the server's network has another shape.
    pub fn new(handle: InferenceHandle, spec: &'static Spec) -> Result<NetworkEvaluator, InferenceError> {
        // An empty batch of the variant's shape is checked against the server's without a
        // forward pass.
        handle.evaluate_batch(Batch::new(spec))?;
        Ok(NetworkEvaluator { handle, spec, spare: Mutex::new(Vec::new()) })
    }

    pub fn handle(&self) -> &InferenceHandle {
        &self.handle
    }
}

impl<G: Game> Evaluator<G> for NetworkEvaluator {
    fn evaluate(&self, batch: &LeafBatch<G>, values: &mut [f32], policy: &mut [f32]) -> Result<(), EvalError> {
        if let Some(position) = batch.positions().first() {
            // Another variant's observation would not fit the buffers `encode` writes into.
            if position.spec() != self.spec {
                return Err(EvalError::new(format!(
                    "the network plays {} {}, the search sent {} {}",
                    self.spec.game,
                    self.spec.variant,
                    position.spec().game,
                    position.spec().variant
                )));
            }
        }
        let failed = |error: InferenceError| EvalError::caused_by("the network's inference server", error);
        let recycled = self.spare.lock().map(|mut spare| spare.pop()).unwrap_or(None);
        let mut request = recycled.unwrap_or_else(|| self.handle.new_batch());
        request.clear();
        for (i, position) in batch.positions().iter().enumerate() {
            request.push_with(batch.legal(i), |out| position.encode(out)).map_err(failed)?;
        }
        let answer = self.handle.evaluate_batch(request).map_err(failed)?;
        for i in 0..batch.len() {
            values[i] = answer.value(i);
            policy[batch.range(i)].copy_from_slice(answer.policy(i));
        }
        if let Ok(mut spare) = self.spare.lock() {
            spare.push(answer.into_batch());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use gipfzero_games::dvonn::Dvonn;
    use gipfzero_games::lyngk::Lyngk;
    use gipfzero_games::{Action, Game};
    use gipfzero_mcts::{LeafBatch, Evaluator, Search, SearchConfig};
    use tch::Device;

    use super::NetworkEvaluator;
    use crate::inference::{InferenceServer, ServerConfig};
    use crate::network::{NetConfig, Network};
    use crate::runtime::DeviceChoice;

    fn server_for(spec: &gipfzero_games::Spec) -> (Network, InferenceServer) {
        tch::manual_seed(11);
        tch::set_num_threads(1);
        let network = Network::new(spec, &NetConfig::tiny(), Device::Cpu).unwrap();
        let config = ServerConfig {
            max_batch: 64,
            max_wait: Duration::ZERO,
            device: DeviceChoice::Cpu,
            intra_op_threads: Some(1),
            ..ServerConfig::default()
        };
        let server = InferenceServer::spawn(&network, config).unwrap();
        (network, server)
    }

    #[test]
    fn policies_sum_to_one_over_legal_actions_and_match_the_server() {
        let start = Dvonn::new();
        let (_network, server) = server_for(start.spec());
        let evaluator = NetworkEvaluator::new(server.handle(), start.spec()).unwrap();
        // Positions along a game: the placement phase and the movement phase.
        let mut batch = LeafBatch::new();
        let mut position = start;
        let mut legal = Vec::new();
        for step in 0..60 {
            position.legal_actions(&mut legal);
            if step % 6 == 0 {
                batch.push(position, &legal);
            }
            position.apply(legal[step % legal.len()]);
        }
        let mut values = vec![f32::NAN; batch.len()];
        let mut policy = vec![f32::NAN; batch.policy_len()];
        evaluator.evaluate(&batch, &mut values, &mut policy).unwrap();
        let mut observation = vec![0.0; start.spec().observation_len()];
        for i in 0..batch.len() {
            let p = &policy[batch.range(i)];
            assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-4);
            assert!(p.iter().all(|&x| x > 0.0));
            assert!((-1.0..=1.0).contains(&values[i]));
            // The same answer as asking the server for this one position.
            batch.position(i).encode(&mut observation);
            let alone = server.handle().evaluate(&observation, batch.legal(i)).unwrap();
            assert!((alone.value - values[i]).abs() < 1e-4);
            assert!(alone.policy.iter().zip(p).all(|(a, b)| (a - b).abs() < 1e-4));
        }
        // A second call reuses the request batch and gives the same answers.
        let mut again = vec![0.0; batch.policy_len()];
        evaluator.evaluate(&batch, &mut values.clone(), &mut again).unwrap();
        assert!(again.iter().zip(&policy).all(|(a, b)| (a - b).abs() < 1e-6));
    }

    #[test]
    fn the_search_runs_with_the_network() {
        let start = Dvonn::new();
        let (_network, server) = server_for(start.spec());
        let evaluator = NetworkEvaluator::new(server.handle(), start.spec()).unwrap();
        let config = SearchConfig { simulations: 16, ..SearchConfig::default() };
        let mut search = Search::new(start, config, 3).unwrap();
        let result = search.run(&evaluator).unwrap();
        assert_eq!(result.simulations, 16);
        assert!((result.policy_target.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        assert!(result.actions.contains(&result.action));
        search.advance(result.action).unwrap();
        assert!(search.run(&evaluator).is_ok());
        assert!(server.handle().stats().forward_passes >= 16);
    }

    #[test]
    fn another_variant_is_refused() {
        let (_network, server) = server_for(Dvonn::new().spec());
        let lyngk = Lyngk::from_seed(0);
        assert!(NetworkEvaluator::new(server.handle(), lyngk.spec()).is_err());
        let evaluator = NetworkEvaluator::new(server.handle(), Dvonn::new().spec()).unwrap();
        let mut batch = LeafBatch::new();
        batch.push(lyngk.clone(), &[Action(0)]);
        let error = Evaluator::<Lyngk>::evaluate(&evaluator, &batch, &mut [0.0], &mut [0.0]).unwrap_err();
        assert!(error.message.contains("lyngk"), "{error}");
    }
}
