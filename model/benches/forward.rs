//! Positions per second of the default network on a ZÈRTZ-sized input: the bare forward pass
//! at several batch sizes, and end to end through the inference server (one client sending
//! lockstep batches, and four clients whose requests the server gathers).
//!
//! Runs with one libtorch intra-op thread, as self-play does on small machines (see the
//! crate docs); `GIPFZERO_BENCH_THREADS` overrides it.
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gipfzero_games::{Action, Spec};
use gipfzero_model::bench::random_observations;
use gipfzero_model::{DeviceChoice, InferenceServer, NetConfig, Network, ServerConfig};
use tch::{Device, Tensor};

/// The 37-ring ZÈRTZ shape: 18 planes on a 7×7 grid, 371 actions.
const ZERTZ: Spec = Spec {
    game: "zertz",
    variant: "37",
    action_count: 371,
    planes: 18,
    height: 7,
    width: 7,
    symmetry_count: 12,
};

fn threads() -> i32 {
    std::env::var("GIPFZERO_BENCH_THREADS").ok().and_then(|t| t.parse().ok()).unwrap_or(1)
}

fn forward(c: &mut Criterion) {
    // As the binary runs: malloc's thresholds fixed (gipfzero_model::tune_allocator).
    gipfzero_model::tune_allocator();
    tch::set_num_threads(threads());
    let network = Network::new(&ZERTZ, &NetConfig::medium(), Device::Cpu).unwrap();
    let mut group = c.benchmark_group("forward/medium_zertz37");
    for batch in [1usize, 8, 64, 256, 512] {
        let xs = Tensor::from_slice(&random_observations(&ZERTZ, batch))
            .reshape([batch as i64, ZERTZ.observation_len() as i64]);
        group.throughput(Throughput::Elements(batch as u64));
        group.bench_with_input(BenchmarkId::from_parameter(batch), &xs, |b, xs| {
            b.iter(|| black_box(tch::no_grad(|| network.forward(xs))))
        });
    }
    group.finish();
}

fn server(c: &mut Criterion) {
    gipfzero_model::tune_allocator();
    tch::set_num_threads(threads());
    let network = Network::new(&ZERTZ, &NetConfig::medium(), Device::Cpu).unwrap();
    let legal: Vec<Action> = (0..ZERTZ.action_count as u16).step_by(7).map(Action).collect();
    let mut group = c.benchmark_group("server/medium_zertz37");

    // The search's main path: one client, whole batches, no waiting for other clients.
    for batch_size in [64usize, 256] {
        let config = ServerConfig {
            max_batch: batch_size,
            max_wait: Duration::ZERO,
            device: DeviceChoice::Cpu,
            ..Default::default()
        };
        let server = InferenceServer::spawn(&network, config).unwrap();
        let handle = server.handle();
        let observations = random_observations(&ZERTZ, batch_size);
        let mut batch = handle.new_batch();
        for observation in observations.chunks(ZERTZ.observation_len()) {
            batch.push(observation, &legal).unwrap();
        }
        group.throughput(Throughput::Elements(batch_size as u64));
        group.bench_function(BenchmarkId::new("lockstep", batch_size), |b| {
            let mut batch = Some(batch.clone());
            b.iter(|| {
                let answer = handle.evaluate_batch(batch.take().unwrap()).unwrap();
                batch = Some(answer.into_batch());
            })
        });
    }

    // Four clients of 64 positions each, gathered into batches of up to 256.
    let clients = 4;
    let request = 64;
    let config = ServerConfig {
        max_batch: clients * request,
        max_wait: Duration::from_millis(1),
        device: DeviceChoice::Cpu,
        ..Default::default()
    };
    let server = InferenceServer::spawn(&network, config).unwrap();
    let observations = random_observations(&ZERTZ, request);
    group.throughput(Throughput::Elements((clients * request) as u64));
    group.bench_function(BenchmarkId::new("gathered", format!("{clients}x{request}")), |b| {
        b.iter_custom(|iterations| {
            let start = Instant::now();
            std::thread::scope(|scope| {
                for _ in 0..clients {
                    let handle = server.handle();
                    let observations = &observations;
                    let legal = &legal;
                    scope.spawn(move || {
                        let mut batch = handle.new_batch();
                        for observation in observations.chunks(ZERTZ.observation_len()) {
                            batch.push(observation, legal).unwrap();
                        }
                        for _ in 0..iterations {
                            batch = handle.evaluate_batch(batch).unwrap().into_batch();
                        }
                    });
                }
            });
            start.elapsed()
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = forward, server
}
criterion_main!(benches);
