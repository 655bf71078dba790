//! Search overhead alone: simulations per second with the uniform evaluator (no network, no
//! playouts) on a deep Nim pile, for 1, 16 and 64 trees in lockstep, with the descents on one
//! thread or on rayon's threads. Run with
//! `cargo bench -p gipfzero-mcts --bench search -- --quick`.
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gipfzero_mcts::testing::{Nim, NimRules};
use gipfzero_mcts::{
    RootPolicy, Search, SearchConfig, SearchPool, UniformEvaluator, EDGE_BYTES,
    NODE_BYTES,
};

const SIMULATIONS: u32 = 400;

fn pool(trees: usize, config: &SearchConfig, parallel: bool, rules: NimRules) -> SearchPool<Nim> {
    let mut pool = SearchPool::new();
    pool.set_parallel(parallel);
    for i in 0..trees {
        pool.push(
            Search::new(Nim::new(200, rules), config.clone(), i as u64).expect("valid config"),
        );
    }
    pool
}

/// Nim whose move generator costs about as much as a real engine's (a few microseconds),
/// where spreading descents over threads has something to gain.
const HEAVY: NimRules = NimRules {
    work: 2000,
    ..NimRules::DOUBLE
};

fn lockstep(c: &mut Criterion) {
    let puct = SearchConfig {
        simulations: SIMULATIONS,
        reuse_tree: false,
        ..SearchConfig::default()
    };
    let gumbel = SearchConfig {
        root_policy: RootPolicy::Gumbel,
        dirichlet: None,
        ..puct.clone()
    };
    // Memory: bytes per node, measured on one finished search.
    let mut search =
        Search::new(Nim::new(200, NimRules::DOUBLE), puct.clone(), 0).expect("valid config");
    search.run(&UniformEvaluator).expect("search runs");
    let (nodes, edges) = search.tree_size();
    println!(
        "node {NODE_BYTES} B, edge {EDGE_BYTES} B; after {SIMULATIONS} simulations: {nodes} nodes, {edges} edges, {:.1} B per node",
        search.tree_bytes() as f64 / nodes as f64
    );

    let mut group = c.benchmark_group("lockstep");
    for (name, config) in [("puct", &puct), ("gumbel", &gumbel)] {
        for trees in [1usize, 16, 64] {
            for parallel in [false, true] {
                if trees == 1 && parallel {
                    continue;
                }
                group.throughput(Throughput::Elements(trees as u64 * SIMULATIONS as u64));
                let id = BenchmarkId::new(
                    format!("{name}/{}", if parallel { "rayon" } else { "single" }),
                    trees,
                );
                group.bench_function(id, |b| {
                    b.iter_batched(
                        || pool(trees, config, parallel, NimRules::DOUBLE),
                        |mut pool| black_box(pool.run(&UniformEvaluator).expect("search runs")),
                        criterion::BatchSize::LargeInput,
                    )
                });
            }
        }
    }
    for trees in [16usize, 64] {
        for parallel in [false, true] {
            group.throughput(Throughput::Elements(trees as u64 * SIMULATIONS as u64));
            let id = BenchmarkId::new(
                format!("heavy/{}", if parallel { "rayon" } else { "single" }),
                trees,
            );
            group.bench_function(id, |b| {
                b.iter_batched(
                    || pool(trees, &puct, parallel, HEAVY),
                    |mut pool| black_box(pool.run(&UniformEvaluator).expect("search runs")),
                    criterion::BatchSize::LargeInput,
                )
            });
        }
    }
    group.finish();
}

criterion_group!(benches, lockstep);
criterion_main!(benches);
