//! Throughput of training, for `gipfzero bench train` and docs/PERFORMANCE.md: how long one
//! SGD step takes for a network shape on a game's input, and how fast its forward pass is.
use std::time::{Duration, Instant};

use gipfzero_games::Game;
use gipfzero_model::{NetConfig, Network};
use tch::Device;

use crate::config::TrainingConfig;
use crate::replay::Samples;
use gipfzero_model::NetConfigError;

use crate::trainer::Trainer;

/// What one measurement found.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainingThroughput {
    pub parameters: usize,
    pub batch: usize,
    /// Mean wall time of one SGD step (forward, backward, optimiser) on `batch` positions.
    pub step: Duration,
    /// Positions per second of the forward pass alone (no gradients) at `batch`.
    pub forward_positions_per_second: f64,
}

/// A batch of `size` copies of `start`'s position with a uniform policy target.
pub fn uniform_batch<G: Game>(start: &G, size: usize) -> Samples {
    let spec = start.spec();
    let mut batch = Samples::new(spec);
    let mut observation = vec![0.0; spec.observation_len()];
    let mut legal = Vec::new();
    start.encode(&mut observation);
    start.legal_actions(&mut legal);
    let mut mask = vec![0u8; spec.action_count];
    for action in &legal {
        mask[action.index()] = 1;
    }
    for _ in 0..size {
        batch.observations.extend_from_slice(&observation);
        batch.policy.extend(mask.iter().map(|&m| m as f32 / legal.len().max(1) as f32));
        batch.legal_mask.extend_from_slice(&mask);
        batch.outcome.push(1.0);
        batch.root_value.push(0.0);
        batch.game_id.push(0);
        batch.move_number.push(0);
        batch.full_search.push(1);
    }
    batch
}

/// Times `steps` SGD steps (after one warm-up step) and `steps` forward passes at `batch`.
pub fn measure<G: Game>(
    start: &G,
    net: &NetConfig,
    training: &TrainingConfig,
    batch: usize,
    steps: u32,
) -> Result<TrainingThroughput, NetConfigError> {
    let spec = start.spec();
    let network = Network::new(spec, net, Device::Cpu)?;
    let parameters = network.parameter_count();
    let samples = uniform_batch(start, batch);
    let forward_began = Instant::now();
    for _ in 0..steps {
        network.forward_slice(&samples.observations);
    }
    let forward = forward_began.elapsed();
    let mut trainer = Trainer::new(network, training, 0);
    trainer.train_step(start, &samples);
    let began = Instant::now();
    for _ in 0..steps {
        trainer.train_step(start, &samples);
    }
    Ok(TrainingThroughput {
        parameters,
        batch,
        step: began.elapsed() / steps.max(1),
        forward_positions_per_second: (batch as f64 * steps as f64) / forward.as_secs_f64().max(1e-9),
    })
}
