//! SGD on the policy/value network: losses, the optimisers, symmetry augmentation.
//!
//! Loss per position: cross-entropy between the search's policy target and the network's
//! policy over the **legal** actions (illegal logits are masked out before the softmax, so the
//! network is neither rewarded nor punished for mass it puts on impossible moves), plus
//! `value_loss_weight ×` the squared error of the value against its target: the game's outcome,
//! or with `root_value_weight = w > 0` the blend `(1 − w)·outcome + w·root_value` of the
//! outcome and the search's value at the root. Weight decay is the optimiser's.
//!
//! The optimisers are written here rather than taken from tch: tch's optimisers keep their
//! moments inside libtorch, where they can be neither read nor saved, and a run that resumes
//! with fresh Adam moments takes a visible step back. [`Optimizer`] keeps its moments as
//! tensors it owns, named after the parameters, and hands them to the checkpoint's
//! [`TrainingState`] (as `extra.adam.m.NAME`, …) together with the step count and the
//! augmentation RNG in the metadata, so a resumed run continues bit for bit (on the CPU; CUDA
//! kernels are not all deterministic).
//!
//! - Adam is AdamW (Loshchilov & Hutter): decay applied to the weights directly, not through
//!   the moments.
//! - SGD is heavy-ball (optionally Nesterov) momentum with L2 decay added to the gradient, as
//!   AlphaZero trained.
//! - Neither decays one-dimensional parameters (biases, normalisation scales and shifts):
//!   shrinking them only fights the normalisation.
//!
//! Augmentation: each sample is seen through a symmetry drawn uniformly from
//! `0..spec.symmetry_count` — the observation by [`Game::transform_observation`], the legal
//! mask and policy target by [`Game::transform_action`] — so the target stays on the legal
//! actions of the transformed position. Samples carry no position, so the actions are mapped
//! through the variant's start position: this relies on `transform_action` not depending on
//! the position, which holds for the engines (the tests check it against transformed
//! positions of DVONN and LYNGK; ZÈRTZ should be added once it lands).
use gipfzero_games::{Action, Game, SplitMix64};
use gipfzero_model::{Network, TrainingState};
use serde::{Deserialize, Serialize};
use tch::{Device, Kind, Tensor};
use thiserror::Error;

use crate::config::{LrSchedule, OptimizerConfig, TrainingConfig};
use crate::replay::Samples;

/// What one SGD step measured (on the batch it trained on, before the update).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepStats {
    /// The step's number (0-based; the trainer's step count before it).
    pub step: u64,
    pub lr: f64,
    /// `policy_loss + value_loss_weight · value_loss`.
    pub loss: f64,
    /// Cross-entropy of the target against the network's legal-action policy.
    pub policy_loss: f64,
    /// Mean squared error of the value against its target (see the module docs).
    pub value_loss: f64,
    /// Mean entropy of the network's legal-action policy.
    pub policy_entropy: f64,
    /// Among positions of decided games, the fraction whose value has the outcome's sign;
    /// `None` when the batch holds only draws.
    pub value_accuracy: Option<f64>,
}

/// The optimiser with its state (see the module docs).
#[derive(Debug)]
pub struct Optimizer {
    config: OptimizerConfig,
    /// Parameters sorted by name, with their moment tensors (`first` = Adam m / SGD momentum
    /// buffer; `second` = Adam v, undefined for SGD).
    slots: Vec<Slot>,
    /// Updates applied so far (Adam's bias correction).
    updates: u64,
}

#[derive(Debug)]
struct Slot {
    name: String,
    parameter: Tensor,
    first: Tensor,
    second: Option<Tensor>,
    decay: bool,
}

impl Optimizer {
    /// Fresh (zero) moments for the parameters of `network`.
    pub fn new(network: &Network, config: &OptimizerConfig) -> Optimizer {
        let mut variables: Vec<(String, Tensor)> =
            network.var_store().variables().into_iter().collect();
        variables.sort_by(|a, b| a.0.cmp(&b.0));
        let slots = variables
            .into_iter()
            .map(|(name, parameter)| {
                let first = parameter.zeros_like().detach();
                let second = matches!(config, OptimizerConfig::Adam { .. })
                    .then(|| parameter.zeros_like().detach());
                let decay = parameter.dim() > 1;
                Slot {
                    name,
                    parameter,
                    first,
                    second,
                    decay,
                }
            })
            .collect();
        Optimizer {
            config: config.clone(),
            slots,
            updates: 0,
        }
    }

    fn zero_grad(&mut self) {
        for slot in &mut self.slots {
            slot.parameter.zero_grad();
        }
    }

    /// Applies one update with learning rate `lr` from the gradients of the last backward.
    fn update(&mut self, lr: f64) {
        self.updates += 1;
        let t = self.updates as i32;
        let config = self.config.clone();
        tch::no_grad(|| {
            for slot in &mut self.slots {
                let grad = slot.parameter.grad();
                if !grad.defined() {
                    continue;
                }
                match config {
                    OptimizerConfig::Adam {
                        beta1,
                        beta2,
                        eps,
                        weight_decay,
                    } => {
                        if slot.decay && weight_decay > 0.0 {
                            let _ = slot.parameter.g_mul_scalar_(1.0 - lr * weight_decay);
                        }
                        let second = slot
                            .second
                            .as_mut()
                            .expect("Adam slots have a second moment");
                        let _ = slot.first.g_mul_scalar_(beta1);
                        let _ = slot.first.g_add_(&(&grad * (1.0 - beta1)));
                        let _ = second.g_mul_scalar_(beta2);
                        let _ = second.g_add_(&(&grad * &grad * (1.0 - beta2)));
                        let first_hat = &slot.first / (1.0 - beta1.powi(t));
                        let second_hat = &*second / (1.0 - beta2.powi(t));
                        let step = first_hat / (second_hat.sqrt() + eps) * lr;
                        let _ = slot.parameter.g_sub_(&step);
                    }
                    OptimizerConfig::Sgd {
                        momentum,
                        nesterov,
                        weight_decay,
                    } => {
                        let grad = if slot.decay && weight_decay > 0.0 {
                            &grad + &slot.parameter * weight_decay
                        } else {
                            grad
                        };
                        let _ = slot.first.g_mul_scalar_(momentum);
                        let _ = slot.first.g_add_(&grad);
                        let direction = if nesterov {
                            &grad + &slot.first * momentum
                        } else {
                            slot.first.shallow_clone()
                        };
                        let _ = slot.parameter.g_sub_(&(direction * lr));
                    }
                }
            }
        });
    }

    /// The moment tensors, named `adam.m.PARAM`, `adam.v.PARAM` or `sgd.momentum.PARAM`.
    pub fn state_tensors(&self) -> Vec<(String, Tensor)> {
        let mut tensors = Vec::new();
        for slot in &self.slots {
            match &slot.second {
                Some(second) => {
                    tensors.push((format!("adam.m.{}", slot.name), slot.first.shallow_clone()));
                    tensors.push((format!("adam.v.{}", slot.name), second.shallow_clone()));
                }
                None => tensors.push((
                    format!("sgd.momentum.{}", slot.name),
                    slot.first.shallow_clone(),
                )),
            }
        }
        tensors
    }

    /// Loads moments saved by [`Optimizer::state_tensors`] after `updates` updates.
    fn load_state(
        &mut self,
        tensors: &[(String, Tensor)],
        updates: u64,
    ) -> Result<(), TrainerError> {
        let find = |name: &str| {
            tensors
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, t)| t)
                .ok_or_else(|| TrainerError::State(format!("optimiser tensor {name} is missing")))
        };
        for slot in &mut self.slots {
            let pairs: Vec<(String, &mut Tensor)> = match &mut slot.second {
                Some(second) => vec![
                    (format!("adam.m.{}", slot.name), &mut slot.first),
                    (format!("adam.v.{}", slot.name), second),
                ],
                None => vec![(format!("sgd.momentum.{}", slot.name), &mut slot.first)],
            };
            for (name, target) in pairs {
                let source = find(&name)?;
                if source.size() != target.size() || source.kind() != target.kind() {
                    return Err(TrainerError::State(format!(
                        "optimiser tensor {name} has shape {:?} {:?}, expected {:?} {:?}",
                        source.size(),
                        source.kind(),
                        target.size(),
                        target.kind()
                    )));
                }
                tch::no_grad(|| target.copy_(&source.to_device(target.device())));
            }
        }
        self.updates = updates;
        Ok(())
    }
}

/// Why training state could not be restored.
#[derive(Debug, Error)]
pub enum TrainerError {
    #[error("training state does not fit this trainer: {0}")]
    State(String),
}

/// The trainer's counters stored in the checkpoint sidecar's `extra` field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct TrainerMetadata {
    optimizer: String,
    updates: u64,
    augment_rng: u64,
}

/// SGD with schedule, optimiser and augmentation (see the module docs). The trainer owns the
/// network it trains: the optimiser holds handles to that network's parameters, so no other
/// network can be passed to a step by mistake.
#[derive(Debug)]
pub struct Trainer {
    network: Network,
    optimizer: Optimizer,
    schedule: LrSchedule,
    value_loss_weight: f64,
    root_value_weight: f32,
    augment: bool,
    step: u64,
    rng: SplitMix64,
}

impl Trainer {
    /// A trainer at step 0 for `network`; `seed` drives the augmentation.
    pub fn new(network: Network, config: &TrainingConfig, seed: u64) -> Trainer {
        Trainer {
            optimizer: Optimizer::new(&network, &config.optimizer),
            network,
            schedule: config.lr.clone(),
            value_loss_weight: config.value_loss_weight as f64,
            root_value_weight: config.root_value_weight,
            augment: config.augment,
            step: 0,
            rng: SplitMix64::new(seed),
        }
    }

    /// Steps taken so far.
    pub fn step_count(&self) -> u64 {
        self.step
    }

    /// The network being trained.
    pub fn network(&self) -> &Network {
        &self.network
    }

    /// Ends training, giving the network back.
    pub fn into_network(self) -> Network {
        self.network
    }

    /// One SGD step on `batch` (augmented first when the config says so). `game` is any
    /// position of the variant: it supplies the symmetries.
    pub fn train_step<G: Game>(&mut self, game: &G, batch: &Samples) -> StepStats {
        let network = &self.network;
        let augmented;
        let batch = if self.augment {
            augmented = augment(game, batch, &mut self.rng);
            &augmented
        } else {
            batch
        };
        let lr = self.schedule.at(self.step);
        let tensors = BatchTensors::new(batch, self.root_value_weight, network.device());
        self.optimizer.zero_grad();
        let output = network.forward(&tensors.observations);
        let losses = Losses::new(&output.policy_logits, &output.value, &tensors);
        let total = &losses.policy + &losses.value * self.value_loss_weight;
        total.backward();
        self.optimizer.update(lr);
        let stats = StepStats {
            step: self.step,
            lr,
            loss: f64::try_from(&total).unwrap_or(f64::NAN),
            policy_loss: f64::try_from(&losses.policy).unwrap_or(f64::NAN),
            value_loss: f64::try_from(&losses.value).unwrap_or(f64::NAN),
            policy_entropy: losses.entropy,
            value_accuracy: losses.value_accuracy,
        };
        self.step += 1;
        stats
    }

    /// The state to store in a checkpoint beside the weights.
    pub fn training_state(&self, config_hash: &str) -> TrainingState {
        let metadata = TrainerMetadata {
            optimizer: optimizer_name(&self.optimizer.config).to_string(),
            updates: self.optimizer.updates,
            augment_rng: self.rng.state(),
        };
        TrainingState {
            step: self.step,
            config_hash: config_hash.to_string(),
            tensors: self.optimizer.state_tensors(),
            metadata: serde_json::json!({ "trainer": metadata }),
        }
    }

    /// A trainer for `network` that continues from `state` (as [`Trainer::training_state`]
    /// wrote it and the checkpoint gave it back with `network`).
    pub fn restore(
        network: Network,
        config: &TrainingConfig,
        state: &TrainingState,
    ) -> Result<Trainer, TrainerError> {
        let metadata: TrainerMetadata = state
            .metadata
            .get("trainer")
            .cloned()
            .ok_or_else(|| TrainerError::State("no trainer metadata".into()))
            .and_then(|value| {
                serde_json::from_value(value).map_err(|e| TrainerError::State(e.to_string()))
            })?;
        if metadata.optimizer != optimizer_name(&config.optimizer) {
            return Err(TrainerError::State(format!(
                "saved with the {} optimiser, the config asks for {}",
                metadata.optimizer,
                optimizer_name(&config.optimizer)
            )));
        }
        let mut trainer = Trainer::new(network, config, 0);
        trainer
            .optimizer
            .load_state(&state.tensors, metadata.updates)?;
        trainer.step = state.step;
        trainer.rng = SplitMix64::new(metadata.augment_rng);
        Ok(trainer)
    }
}

fn optimizer_name(config: &OptimizerConfig) -> &'static str {
    match config {
        OptimizerConfig::Adam { .. } => "adam",
        OptimizerConfig::Sgd { .. } => "sgd",
    }
}

/// A batch as tensors on the training device.
struct BatchTensors {
    observations: Tensor,
    legal: Tensor,
    policy: Tensor,
    /// The game's result, mover's view.
    outcome: Tensor,
    /// What the value learns: the outcome, blended with the root value when configured.
    value_target: Tensor,
}

impl BatchTensors {
    fn new(batch: &Samples, root_value_weight: f32, device: Device) -> BatchTensors {
        let (n, a) = (batch.len() as i64, batch.action_count as i64);
        BatchTensors {
            observations: Tensor::from_slice(&batch.observations)
                .reshape([n, batch.observation_len as i64])
                .to_device(device),
            legal: Tensor::from_slice(&batch.legal_mask)
                .reshape([n, a])
                .to_device(device)
                .to_kind(Kind::Bool),
            policy: Tensor::from_slice(&batch.policy)
                .reshape([n, a])
                .to_device(device),
            outcome: Tensor::from_slice(&batch.outcome).to_device(device),
            value_target: Tensor::from_slice(&value_targets(batch, root_value_weight))
                .to_device(device),
        }
    }
}

/// `(1 − w)·outcome + w·root_value` per sample (the outcomes themselves when `w` is 0).
fn value_targets(batch: &Samples, root_value_weight: f32) -> Vec<f32> {
    let w = root_value_weight;
    batch
        .outcome
        .iter()
        .zip(&batch.root_value)
        .map(|(&z, &q)| if w == 0.0 { z } else { (1.0 - w) * z + w * q })
        .collect()
}

/// The losses of a forward pass, and the statistics computed alongside.
struct Losses {
    policy: Tensor,
    value: Tensor,
    entropy: f64,
    value_accuracy: Option<f64>,
}

impl Losses {
    fn new(logits: &Tensor, value: &Tensor, batch: &BatchTensors) -> Losses {
        // A large finite negative rather than −∞: 0 · (−∞) would turn the sums into NaN.
        let masked = logits.masked_fill(&batch.legal.logical_not(), -1e9);
        let log_probs = masked.log_softmax(1, Kind::Float);
        let legal_log_probs = log_probs.where_self(&batch.legal, &log_probs.zeros_like());
        let policy = -(&batch.policy * &legal_log_probs)
            .sum_dim_intlist(1, false, Kind::Float)
            .mean(Kind::Float);
        let value_loss = (value - &batch.value_target).square().mean(Kind::Float);
        let (entropy, value_accuracy) = tch::no_grad(|| {
            let probs = legal_log_probs.exp() * batch.legal.to_kind(Kind::Float);
            let entropy = -(probs * &legal_log_probs)
                .sum_dim_intlist(1, false, Kind::Float)
                .mean(Kind::Float);
            let decided = batch.outcome.ne(0.0);
            let decided_count = i64::try_from(decided.sum(Kind::Int64)).unwrap_or(0);
            let agree = (value * &batch.outcome).gt(0.0).logical_and(&decided);
            let agree_count = i64::try_from(agree.sum(Kind::Int64)).unwrap_or(0);
            (
                f64::try_from(&entropy).unwrap_or(f64::NAN),
                (decided_count > 0).then(|| agree_count as f64 / decided_count as f64),
            )
        });
        Losses {
            policy,
            value: value_loss,
            entropy,
            value_accuracy,
        }
    }
}

/// `batch` with every sample seen through a symmetry drawn from `rng` (see the module docs).
pub fn augment<G: Game>(game: &G, batch: &Samples, rng: &mut SplitMix64) -> Samples {
    let count = game.spec().symmetry_count.max(1) as u64;
    let symmetries: Vec<usize> = (0..batch.len())
        .map(|_| rng.below(count) as usize)
        .collect();
    transform_batch(game, batch, &symmetries)
}

/// `batch` with sample `i` seen through symmetry `symmetries[i]`.
pub fn transform_batch<G: Game>(
    game: &G,
    batch: &Samples,
    symmetries: &[usize],
) -> Samples {
    let (o, a) = (batch.observation_len, batch.action_count);
    let mut out = batch.clone();
    for (i, &sym) in symmetries.iter().enumerate() {
        if sym == 0 {
            continue;
        }
        game.transform_observation(
            sym,
            &batch.observations[i * o..(i + 1) * o],
            &mut out.observations[i * o..(i + 1) * o],
        );
        let (mask, policy) = (
            &batch.legal_mask[i * a..(i + 1) * a],
            &batch.policy[i * a..(i + 1) * a],
        );
        let out_mask = &mut out.legal_mask[i * a..(i + 1) * a];
        let out_policy = &mut out.policy[i * a..(i + 1) * a];
        out_mask.fill(0);
        out_policy.fill(0.0);
        for action in 0..a {
            if mask[action] != 0 || policy[action] != 0.0 {
                let image = game.transform_action(sym, Action(action as u16)).index();
                out_mask[image] = mask[action];
                out_policy[image] = policy[action];
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RunConfig;
    use gipfzero_games::dvonn::Dvonn;
    use gipfzero_games::lyngk::Lyngk;
    use gipfzero_model::NetConfig;

    /// `n` positions from random DVONN/LYNGK games (via the real `encode`), each with a
    /// random policy target over its legal actions and a random decided outcome.
    fn samples<G: Game>(start: &G, n: usize, seed: u64) -> Samples {
        let mut rng = SplitMix64::new(seed);
        let mut batch = Samples::new(start.spec());
        let mut legal = Vec::new();
        let mut observation = vec![0.0; start.spec().observation_len()];
        while batch.len() < n {
            let mut position = start.seeded_start(rng.next_u64());
            let plies = rng.below(60);
            for _ in 0..plies {
                position.legal_actions(&mut legal);
                if legal.is_empty() {
                    break;
                }
                position.apply(legal[rng.below(legal.len() as u64) as usize]);
            }
            position.legal_actions(&mut legal);
            if legal.is_empty() {
                continue;
            }
            position.encode(&mut observation);
            batch.observations.extend_from_slice(&observation);
            let mut mask = vec![0u8; start.spec().action_count];
            let mut policy = vec![0.0f32; start.spec().action_count];
            let weights: Vec<f64> = legal.iter().map(|_| rng.unit_f64() + 0.05).collect();
            let total: f64 = weights.iter().sum();
            for (action, w) in legal.iter().zip(&weights) {
                mask[action.index()] = 1;
                policy[action.index()] = (w / total) as f32;
            }
            batch.legal_mask.extend(mask);
            batch.policy.extend(policy);
            batch
                .outcome
                .push(if rng.below(2) == 0 { 1.0 } else { -1.0 });
            batch.root_value.push(0.0);
            batch.game_id.push(0);
            batch.move_number.push(plies as i32);
            batch.full_search.push(1);
        }
        batch.check().unwrap();
        batch
    }

    #[test]
    fn value_targets_blend_the_outcome_with_the_root_value() {
        let mut batch = samples(&Dvonn::new(), 3, 5);
        batch.outcome = vec![1.0, -1.0, 0.0];
        batch.root_value = vec![0.5, 0.25, -0.5];
        assert_eq!(value_targets(&batch, 0.0), vec![1.0, -1.0, 0.0]);
        assert_eq!(value_targets(&batch, 0.5), vec![0.75, -0.375, -0.25]);
        assert_eq!(value_targets(&batch, 1.0), vec![0.5, 0.25, -0.5]);
    }

    fn tiny() -> NetConfig {
        NetConfig {
            blocks: 1,
            channels: 8,
            global_pool_channels: 2,
            policy_channels: 4,
            value_channels: 2,
            value_hidden: 8,
            norm_groups: 2,
        }
    }

    fn training(optimizer: OptimizerConfig, augment: bool) -> TrainingConfig {
        TrainingConfig {
            batch_size: 8,
            steps_per_iteration: 1,
            augment,
            value_loss_weight: 1.0,
            root_value_weight: 0.0,
            optimizer,
            lr: LrSchedule::Constant { base: 3e-3 },
        }
    }

    fn adam() -> OptimizerConfig {
        OptimizerConfig::default()
    }

    fn weights(network: &Network) -> Vec<(String, Vec<f32>)> {
        let mut vars: Vec<_> = network
            .var_store()
            .variables()
            .into_iter()
            .map(|(name, t)| (name, Vec::<f32>::try_from(t.flatten(0, -1)).unwrap()))
            .collect();
        vars.sort_by(|a, b| a.0.cmp(&b.0));
        vars
    }

    /// One intra-op thread, as in every test of the workspace (the inter-op pool cannot be
    /// resized once used, so it is left alone).
    fn setup() -> std::sync::MutexGuard<'static, ()> {
        tch::set_num_threads(1);
        crate::TORCH_RNG.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn overfit<G: Game>(start: &G, seed: u64) {
        let _rng = setup();
        let name = start.spec().game;
        let batch = samples(start, 8, seed);
        tch::manual_seed(0);
        let network = Network::new(start.spec(), &tiny(), Device::Cpu).unwrap();
        let mut trainer = Trainer::new(network, &training(adam(), false), 0);
        let first = trainer.train_step(start, &batch);
        let mut last = first.clone();
        for _ in 0..300 {
            last = trainer.train_step(start, &batch);
        }
        // Cross-entropy = the targets' own entropy + KL(target ‖ network): the KL part must
        // nearly vanish, and the value can be learnt exactly.
        let target_entropy = (0..batch.len())
            .map(|i| {
                let row = &batch.policy[i * batch.action_count..(i + 1) * batch.action_count];
                -row.iter()
                    .filter(|&&p| p > 0.0)
                    .map(|&p| (p as f64) * (p as f64).ln())
                    .sum::<f64>()
            })
            .sum::<f64>()
            / batch.len() as f64;
        assert!(
            first.policy_loss - target_entropy > 0.3,
            "{name}: {first:?}, H = {target_entropy}"
        );
        assert!(
            last.policy_loss - target_entropy < 0.02,
            "{name}: {last:?}, H = {target_entropy}"
        );
        assert!(last.loss < 0.6 * first.loss, "{name}: {first:?} → {last:?}");
        assert!(last.value_loss < 0.01, "{name}: {last:?}");
        assert_eq!(last.value_accuracy, Some(1.0), "{name}: {last:?}");
    }

    #[test]
    fn overfits_a_small_dataset() {
        overfit(&Dvonn::new(), 1);
        overfit(&Lyngk::from_seed(0), 2);
    }

    fn resume_is_exact(optimizer: OptimizerConfig) {
        let _rng = setup();
        let game = Dvonn::new();
        let batches: Vec<Samples> = (0..6).map(|i| samples(&game, 6, 10 + i)).collect();
        let config = training(optimizer, true);
        tch::manual_seed(1);
        let reference = Network::new(game.spec(), &tiny(), Device::Cpu).unwrap();
        let resumed = reference.copy_to(Device::Cpu);

        let mut trainer = Trainer::new(reference, &config, 5);
        for batch in &batches {
            trainer.train_step(&game, batch);
        }

        let dir = crate::fresh_test_dir("trainer");
        std::fs::create_dir_all(&dir).unwrap();
        let mut first = Trainer::new(resumed, &config, 5);
        for batch in &batches[..2] {
            first.train_step(&game, batch);
        }
        let name = dir.join(format!("ckpt-{}", optimizer_name(&config.optimizer)));
        gipfzero_model::checkpoint::save(&name, first.network(), &first.training_state("h"))
            .unwrap();
        drop(first);
        let loaded = gipfzero_model::checkpoint::load(&name, game.spec(), Device::Cpu).unwrap();
        let mut second = Trainer::restore(loaded.network, &config, &loaded.training).unwrap();
        assert_eq!(second.step_count(), 2);
        for batch in &batches[2..] {
            second.train_step(&game, batch);
        }
        assert_eq!(weights(second.network()), weights(trainer.network()));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn adam_resumes_bit_exactly() {
        resume_is_exact(adam());
    }

    #[test]
    fn sgd_resumes_bit_exactly() {
        resume_is_exact(OptimizerConfig::Sgd {
            momentum: 0.9,
            nesterov: true,
            weight_decay: 1e-4,
        });
    }

    #[test]
    fn restore_refuses_another_optimiser() {
        // Building a network draws from libtorch's global generator: hold the lock so the
        // seeded tests running beside this one see an undisturbed stream.
        let _rng = setup();
        let game = Dvonn::new();
        let network = Network::new(game.spec(), &tiny(), Device::Cpu).unwrap();
        let trainer = Trainer::new(network.copy_to(Device::Cpu), &training(adam(), false), 0);
        let state = trainer.training_state("h");
        let sgd = training(
            OptimizerConfig::Sgd {
                momentum: 0.9,
                nesterov: false,
                weight_decay: 0.0,
            },
            false,
        );
        assert!(Trainer::restore(network, &sgd, &state).is_err());
    }

    fn check_augmentation<G: Game>(start: &G, seed: u64) {
        let batch = samples(start, 12, seed);
        let spec = start.spec();
        let (o, a) = (batch.observation_len, batch.action_count);
        let mut rng = SplitMix64::new(seed);
        let symmetries: Vec<usize> = (0..batch.len())
            .map(|_| rng.below(spec.symmetry_count as u64) as usize)
            .collect();
        let out = transform_batch(start, &batch, &symmetries);
        out.check().unwrap();
        for (i, &sym) in symmetries.iter().enumerate() {
            // Policy mass stays on legal actions and sums to what it did.
            let mass: f32 = out.policy[i * a..(i + 1) * a].iter().sum();
            assert!((mass - 1.0).abs() < 1e-5);
            for j in 0..a {
                if out.policy[i * a + j] > 0.0 {
                    assert_eq!(out.legal_mask[i * a + j], 1);
                }
            }
            let legal_before = batch.legal_mask[i * a..(i + 1) * a]
                .iter()
                .filter(|&&m| m == 1)
                .count();
            let legal_after = out.legal_mask[i * a..(i + 1) * a]
                .iter()
                .filter(|&&m| m == 1)
                .count();
            assert_eq!(legal_before, legal_after);
            // The observation is the game's own transform of the observation…
            let mut expected = vec![0.0; o];
            start.transform_observation(
                sym,
                &batch.observations[i * o..(i + 1) * o],
                &mut expected,
            );
            assert_eq!(&out.observations[i * o..(i + 1) * o], &expected[..]);
            // …and each action's target moved to the action's image.
            for j in 0..a {
                let image = start.transform_action(sym, Action(j as u16)).index();
                assert_eq!(out.policy[i * a + image], batch.policy[i * a + j]);
                assert_eq!(out.legal_mask[i * a + image], batch.legal_mask[i * a + j]);
            }
        }
        assert!(symmetries.iter().any(|&s| s != 0));
    }

    /// Augmentation agrees with the positions: transforming a real position, then listing
    /// its legal actions, gives the augmented mask.
    fn augmentation_matches_transformed_positions<G: Game>(start: &G, seed: u64) {
        let mut rng = SplitMix64::new(seed);
        let mut legal = Vec::new();
        let spec = start.spec();
        for _ in 0..10 {
            let mut position = start.seeded_start(rng.next_u64());
            for _ in 0..rng.below(40) {
                position.legal_actions(&mut legal);
                if legal.is_empty() {
                    break;
                }
                position.apply(legal[rng.below(legal.len() as u64) as usize]);
            }
            position.legal_actions(&mut legal);
            if legal.is_empty() {
                continue;
            }
            let mut batch = Samples::new(spec);
            let mut observation = vec![0.0; spec.observation_len()];
            position.encode(&mut observation);
            batch.observations.extend_from_slice(&observation);
            let mut mask = vec![0u8; spec.action_count];
            for action in &legal {
                mask[action.index()] = 1;
            }
            batch.legal_mask.extend(mask.iter().copied());
            batch
                .policy
                .extend(mask.iter().map(|&m| m as f32 / legal.len() as f32));
            batch.outcome.push(1.0);
            batch.root_value.push(0.0);
            batch.game_id.push(0);
            batch.move_number.push(0);
            batch.full_search.push(1);
            let sym = 1 + rng.below(spec.symmetry_count as u64 - 1) as usize;
            // The trainer maps with any position of the variant (its start), not the sample's own.
            let out = transform_batch(start, &batch, &[sym]);
            let image = position.transform(sym);
            image.legal_actions(&mut legal);
            let mut expected_mask = vec![0u8; spec.action_count];
            for action in &legal {
                expected_mask[action.index()] = 1;
            }
            assert_eq!(out.legal_mask, expected_mask);
            image.encode(&mut observation);
            assert_eq!(out.observations, observation);
        }
    }

    #[test]
    fn augmentation_uses_the_games_symmetries() {
        check_augmentation(&Dvonn::new(), 3);
        check_augmentation(&Lyngk::from_seed(0), 4);
        augmentation_matches_transformed_positions(&Dvonn::new(), 5);
        augmentation_matches_transformed_positions(&Lyngk::from_seed(1), 6);
    }

    #[test]
    fn default_network_builds() {
        let _rng = setup();
        let config = RunConfig::embedded_default();
        let NetConfig {
            blocks, channels, ..
        } = config.network;
        assert_eq!((blocks, channels), (3, 32));
        let network = Network::new(
            Dvonn::new().spec(),
            &config.network,
            Device::Cpu,
        );
        assert!(network.is_ok());
    }
}
