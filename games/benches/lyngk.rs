//! LYNGK speed: random playouts by actions (the search's rollouts), legal turn and action
//! listing at the start (the widest point of the game: every colour still claimable), and
//! whole random games played turn by turn.
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gipfzero_games::lyngk::Lyngk;
use gipfzero_games::record::{random_game, random_playout};
use gipfzero_games::SplitMix64;

/// Average actions of a random game, so that the playout benchmark reports actions/s.
fn mean_actions_per_game() -> u64 {
    let mut rng = SplitMix64::new(1);
    let mut buffer = Vec::new();
    let games = 2000;
    let total: u64 =
        (0..games).map(|s| random_playout(&mut Lyngk::from_seed(s), &mut rng, &mut buffer).actions).sum();
    total / games
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("lyngk");

    let starts: Vec<Lyngk> = (0..64).map(Lyngk::from_seed).collect();
    group.throughput(Throughput::Elements(mean_actions_per_game()));
    let mut rng = SplitMix64::new(42);
    let mut buffer = Vec::with_capacity(270);
    let mut i = 0;
    group.bench_function("random_playout (elements = actions)", |b| {
        b.iter(|| {
            i = (i + 1) % starts.len();
            let mut position = starts[i].clone();
            black_box(random_playout(&mut position, &mut rng, &mut buffer).actions)
        })
    });

    group.throughput(Throughput::Elements(1));
    let start = Lyngk::from_seed(0);
    let middle = random_game(&start, 5, 10).position;
    let mut turns = Vec::with_capacity(2048);
    group.bench_function("legal_turns (start)", |b| {
        b.iter(|| {
            black_box(&start).legal_turns(&mut turns);
            black_box(turns.len())
        })
    });
    group.bench_function("legal_turns (after 10 turns)", |b| {
        b.iter(|| {
            black_box(&middle).legal_turns(&mut turns);
            black_box(turns.len())
        })
    });
    group.bench_function("legal_actions (start)", |b| {
        b.iter(|| {
            black_box(&start).legal_actions(&mut buffer);
            black_box(buffer.len())
        })
    });

    let mut seed = 0;
    group.bench_function("random_game (turns, elements = games)", |b| {
        b.iter(|| {
            seed += 1;
            black_box(random_game(&starts[(seed % 64) as usize], seed, usize::MAX).turns.len())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
