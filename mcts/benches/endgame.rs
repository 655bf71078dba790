//! The exact endgame search (`gipfzero_mcts::endgame`): positions visited per second, and the
//! positions a proof needs, on DVONN positions 8, 10 and 12 turns before the end of seeded
//! random games (a fresh table each time, so nothing is carried between them). Run with
//! `cargo bench -p gipfzero-mcts --bench endgame -- --quick`; the nodes per proof are printed
//! once before the timings.
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gipfzero_games::dvonn::Dvonn;
use gipfzero_games::record::random_game;
use gipfzero_games::Game;
use gipfzero_mcts::EndgameSearch;

/// Budget per proof: positions that need more are left out.
const BUDGET: u64 = 2_000_000;

/// DVONN positions `back` turns before the end of the random games of seeds 0..20 that the
/// search proves within the budget, with the nodes each proof took.
fn positions(back: usize) -> Vec<(Dvonn, u64)> {
    let mut found = Vec::new();
    for seed in 0..20 {
        let game = random_game(&Dvonn::new(), seed, 400);
        if game.turns.len() <= back + 49 {
            continue;
        }
        let mut position = Dvonn::new();
        for turn in &game.turns[..game.turns.len() - back] {
            position.play(turn);
        }
        let mut search = EndgameSearch::new();
        if search.solve(&position, BUDGET).is_some() {
            found.push((position, search.nodes()));
        }
    }
    found
}

fn endgame(c: &mut Criterion) {
    let mut group = c.benchmark_group("endgame/dvonn");
    for back in [8, 10, 12] {
        let found = positions(back);
        let nodes: u64 = found.iter().map(|(_, n)| n).sum();
        let mut sorted: Vec<u64> = found.iter().map(|(_, n)| *n).collect();
        sorted.sort();
        eprintln!(
            "{back} turns before the end: {} of 20 proven within {BUDGET} nodes, median {} nodes",
            found.len(),
            sorted.get(sorted.len() / 2).copied().unwrap_or(0)
        );
        group.throughput(Throughput::Elements(nodes));
        group.bench_with_input(BenchmarkId::new("turns-before-end", back), &found, |b, found| {
            b.iter(|| {
                for (position, _) in found {
                    black_box(EndgameSearch::new().solve(position, BUDGET));
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, endgame);
criterion_main!(benches);
