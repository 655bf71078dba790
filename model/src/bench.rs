//! Throughput measurements shared by `benches/forward.rs` and the `gipfzero bench model`
//! command, so both report the same quantity: positions evaluated per second.
use std::thread;
use std::time::{Duration, Instant};

use gipfzero_games::{Action, Spec};
use tch::{Device, Kind, Tensor};

use thiserror::Error;

use crate::cuda_graph::{Buckets, GraphError};
use crate::inference::{InferenceError, InferenceServer, Precision, ServerConfig, DEFAULT_PAD_ROWS};
use crate::network::{NetConfig, NetConfigError, Network};
use crate::runtime::DeviceChoice;

/// How a benchmark's passes run: where, in which precision, and whether in the CUDA graph
/// buckets the inference server uses with `cuda_graphs` ([`crate::cuda_graph`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PassSetting {
    pub device: DeviceChoice,
    pub precision: Precision,
    pub cuda_graphs: bool,
}

impl PassSetting {
    /// Plain passes on `device` in `precision`.
    pub fn plain(device: DeviceChoice, precision: Precision) -> PassSetting {
        PassSetting { device, precision, cuda_graphs: false }
    }
}

/// Why a measurement could not be taken.
#[derive(Debug, Error)]
pub enum BenchError {
    #[error(transparent)]
    Network(#[from] NetConfigError),
    #[error(transparent)]
    Graph(#[from] GraphError),
}

/// Positions per second at one batch size.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Throughput {
    pub batch: usize,
    pub positions_per_s: f64,
}

/// Random binary planes: the shape and sparsity of real observations, which is all a forward
/// pass's cost depends on.
pub fn random_observations(spec: &Spec, positions: usize) -> Vec<f32> {
    let values =
        Tensor::rand([(positions * spec.observation_len()) as i64], (Kind::Float, Device::Cpu))
            .gt(0.7)
            .to_kind(Kind::Float);
    Vec::<f32>::try_from(values).expect("a CPU float tensor converts to a Vec")
}

/// The bare forward pass (no gradients, outputs copied back to the CPU as the server does) of
/// a freshly initialised `net_config` network, for each batch size, each measured for about
/// `duration` after one warm-up pass (which captures the graph with `setting.cuda_graphs`).
/// `replicas` threads run passes at the same time, each on its own copy of the network (as
/// the inference server's replicas do), and their positions are added up; each thread keeps
/// the caller's intra-op thread count. In `setting.precision` as the server computes (weights
/// and inputs in bf16 for [`Precision::Bf16`]).
pub fn forward_throughput(
    spec: &Spec,
    net_config: &NetConfig,
    batch_sizes: &[usize],
    setting: PassSetting,
    duration: Duration,
    replicas: usize,
) -> Result<Vec<Throughput>, BenchError> {
    let device = setting.device.resolve();
    let network = Network::new(spec, net_config, device)?;
    let intra_op = tch::get_num_threads();
    batch_sizes
        .iter()
        .map(|&batch| {
            let observations = random_observations(spec, batch);
            let start = Instant::now();
            let passes: Result<usize, BenchError> = thread::scope(|scope| {
                let threads: Vec<_> = (0..replicas.max(1))
                    .map(|_| {
                        let network = served_copy(&network, device, setting.precision);
                        let observations = &observations;
                        scope.spawn(move || {
                            tch::set_num_threads(intra_op);
                            let cpu = Tensor::from_slice(observations).reshape([batch as i64, spec.observation_len() as i64]);
                            let mut buckets = setting.cuda_graphs.then(|| Buckets::new(batch, DEFAULT_PAD_ROWS));
                            let xs = cpu.to_device(device).to_kind(network.parameter_kind());
                            let mut pass = || -> Result<(), BenchError> {
                                // Reading the results back waits for the device, like a real
                                // evaluation (the buckets read theirs back themselves).
                                if let Some(buckets) = buckets.as_mut() {
                                    buckets.forward(&network, &cpu)?;
                                } else {
                                    let output = tch::no_grad(|| network.forward(&xs));
                                    let _ = output.value.to_device(Device::Cpu);
                                    let _ = output.policy_logits.to_device(Device::Cpu);
                                }
                                Ok(())
                            };
                            pass()?;
                            let began = Instant::now();
                            let mut passes = 0usize;
                            while passes == 0 || began.elapsed() < duration {
                                pass()?;
                                passes += 1;
                            }
                            Ok(passes)
                        })
                    })
                    .collect();
                threads.into_iter().map(|t| t.join().expect("a bench thread panicked")).sum()
            });
            // The warm-up pass of each thread falls inside `start`'s span too: a slight
            // underestimate, the same for every replica count.
            Ok(Throughput {
                batch,
                positions_per_s: (passes? * batch) as f64 / start.elapsed().as_secs_f64(),
            })
        })
        .collect()
}

/// A copy of `network` on `device` in `precision`, as a server replica holds it.
fn served_copy(network: &Network, device: Device, precision: Precision) -> Network {
    let mut copy = network.copy_to(device);
    if precision == Precision::Bf16 {
        copy.var_store_mut().bfloat16();
    }
    copy
}

/// How far the bucketed (on a GPU: CUDA graph) passes' answers are from plain passes' at each
/// batch size, on random observations: the largest absolute difference over the policy logits
/// and the values. On a CPU it is 0 (the same computation); on a GPU a captured graph runs the
/// kernels of a plain pass over the bucket's rows, so it should stay at rounding level.
pub fn graph_difference(spec: &Spec, net_config: &NetConfig, batch_sizes: &[usize], setting: PassSetting) -> Result<Vec<(usize, f64)>, BenchError> {
    let device = setting.device.resolve();
    let network = served_copy(&Network::new(spec, net_config, device)?, device, setting.precision);
    let largest = batch_sizes.iter().copied().max().unwrap_or(1);
    let mut buckets = Buckets::new(largest, DEFAULT_PAD_ROWS);
    let mut out = Vec::new();
    for &batch in batch_sizes {
        let cpu = Tensor::from_slice(&random_observations(spec, batch)).reshape([batch as i64, spec.observation_len() as i64]);
        let xs = cpu.to_device(device).to_kind(network.parameter_kind());
        let plain = tch::no_grad(|| network.forward_rows(&xs, DEFAULT_PAD_ROWS));
        let Some(graphed) = buckets.forward(&network, &cpu)? else { continue };
        let difference = |a: &Tensor, b: &Tensor| {
            (a.to_kind(Kind::Float).to_device(Device::Cpu) - b).abs().max().double_value(&[])
        };
        let worst = difference(&plain.policy_logits, &graphed.policy_logits).max(difference(&plain.value, &graphed.value));
        out.push((batch, worst));
    }
    Ok(out)
}

/// End to end through the inference server: `clients` threads each send batches of
/// `request_batch` positions (every action legal) for about `duration`.
pub fn server_throughput(
    spec: &Spec,
    net_config: &NetConfig,
    config: ServerConfig,
    clients: usize,
    request_batch: usize,
    duration: Duration,
) -> Result<f64, InferenceError> {
    let network = Network::new(spec, net_config, Device::Cpu)
        .map_err(|e| InferenceError::Start(e.to_string()))?;
    let server = InferenceServer::spawn(&network, config)?;
    let observations = random_observations(spec, request_batch);
    let legal: Vec<Action> = (0..spec.action_count as u16).map(Action).collect();
    let start = Instant::now();
    let positions: Result<Vec<usize>, InferenceError> = thread::scope(|scope| {
        let workers: Vec<_> = (0..clients.max(1))
            .map(|_| {
                let handle = server.handle();
                let observations = &observations;
                let legal = &legal;
                scope.spawn(move || {
                    let mut batch = handle.new_batch();
                    for i in 0..request_batch {
                        batch.push(
                            &observations
                                [i * spec.observation_len()..(i + 1) * spec.observation_len()],
                            legal,
                        )?;
                    }
                    let mut positions = 0;
                    while positions == 0 || start.elapsed() < duration {
                        let answer = handle.evaluate_batch(batch)?;
                        positions += answer.len();
                        batch = answer.into_batch();
                    }
                    Ok(positions)
                })
            })
            .collect();
        workers.into_iter().map(|worker| worker.join().expect("a bench client panicked")).collect()
    });
    let positions: usize = positions?.iter().sum();
    Ok(positions as f64 / start.elapsed().as_secs_f64())
}
