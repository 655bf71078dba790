//! ZÈRTZ speed: random playouts in actions per second (the search's hot path), legal turn
//! listing, and whole random games in turn notation.
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gipfzero_games::zertz::{Variant, Zertz};
use gipfzero_games::{record, Game, SplitMix64};
use std::hint::black_box;

/// Actions applied by `games` random playouts from the start, to size the throughput.
fn actions_per_playouts(variant: Variant, games: u64) -> u64 {
    let start = Zertz::new(variant);
    let mut rng = SplitMix64::new(1);
    let mut buffer = Vec::new();
    (0..games)
        .map(|_| record::random_playout(&mut start.clone(), &mut rng, &mut buffer).actions)
        .sum()
}

fn playouts(c: &mut Criterion) {
    const GAMES: u64 = 100;
    for variant in [Variant::Standard, Variant::R48, Variant::R61] {
        let mut group = c.benchmark_group(format!("zertz/{variant}"));
        group.throughput(Throughput::Elements(actions_per_playouts(variant, GAMES)));
        let start = Zertz::new(variant);
        group.bench_function("random_playout_actions", |b| {
            let mut buffer = Vec::new();
            b.iter(|| {
                // Same seed every iteration, so the element count above is exact.
                let mut rng = SplitMix64::new(1);
                for _ in 0..GAMES {
                    let mut position = start.clone();
                    black_box(record::random_playout(&mut position, &mut rng, &mut buffer));
                }
            })
        });
        group.finish();
    }
}

fn turns(c: &mut Criterion) {
    let start = Zertz::new(Variant::Standard);
    let middle = record::random_game(&start, 7, 8).position;
    let mut group = c.benchmark_group("zertz/standard");
    let mut turns = Vec::new();
    group.bench_function("legal_turns_start", |b| {
        b.iter(|| start.legal_turns(black_box(&mut turns)))
    });
    group.bench_function("legal_turns_after_8", |b| {
        b.iter(|| middle.legal_turns(black_box(&mut turns)))
    });
    group.bench_function("random_game_turns", |b| {
        let mut seed = 0;
        b.iter(|| {
            seed += 1;
            black_box(record::random_game(&start, seed, 1000))
        })
    });
    group.finish();
}

criterion_group!(benches, playouts, turns);
criterion_main!(benches);
