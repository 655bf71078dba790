use gipfzero_games::zertz::{Setup, Turn, Variant, Zertz};
use gipfzero_games::{record, Game, Player};

#[test]
fn smoke() {
    for v in Variant::ALL {
        let z = Zertz::new(v);
        let mut turns = Vec::new();
        z.legal_turns(&mut turns);
        println!("{v} free {} turns {} syms {} grid {}x{}", z.free_ring_cells().len(), turns.len(), z.spec().symmetry_count, z.spec().height, z.spec().width);
        let g = record::random_game(&z, 1, 1000);
        println!("{} turns, {}", g.turns.len(), g.position.result_text());
        println!("{}", g.position.render_text());
    }
}
