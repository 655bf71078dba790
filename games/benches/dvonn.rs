//! DVONN speed: random playouts (the search's rollouts and the random-game generator), legal
//! move listing in phase 2, and whole random games played turn by turn.
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gipfzero_games::dvonn::Dvonn;
use gipfzero_games::record::{random_game, random_playout};
use gipfzero_games::{Game, SplitMix64};

/// Average actions of a random game, so that the playout benchmark reports actions/s.
fn mean_actions_per_game() -> u64 {
    let mut rng = SplitMix64::new(1);
    let mut buffer = Vec::new();
    let games = 2000;
    let total: u64 = (0..games).map(|_| random_playout(&mut Dvonn::new(), &mut rng, &mut buffer).actions).sum();
    total / games
}

/// A phase-2 position: a random full board and 10 random moves.
fn middle_game() -> Dvonn {
    let game = random_game(&Dvonn::new(), 3, 59);
    game.position
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("dvonn");

    group.throughput(Throughput::Elements(mean_actions_per_game()));
    let mut rng = SplitMix64::new(42);
    let mut buffer = Vec::with_capacity(344);
    group.bench_function("random_playout (elements = actions)", |b| {
        b.iter(|| {
            let mut position = Dvonn::new();
            black_box(random_playout(&mut position, &mut rng, &mut buffer))
        })
    });

    group.throughput(Throughput::Elements(1));
    let position = middle_game();
    let mut turns = Vec::with_capacity(344);
    group.bench_function("legal_turns (phase 2)", |b| {
        b.iter(|| {
            black_box(&position).legal_turns(&mut turns);
            black_box(turns.len())
        })
    });
    group.bench_function("legal_actions (phase 2)", |b| {
        b.iter(|| {
            black_box(&position).legal_actions(&mut buffer);
            black_box(buffer.len())
        })
    });

    let mut seed = 0;
    group.bench_function("random_game (turns, elements = games)", |b| {
        b.iter(|| {
            seed += 1;
            black_box(random_game(&Dvonn::new(), seed, usize::MAX).turns.len())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
