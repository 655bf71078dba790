//! The board's symmetries acting on positions, actions and observations.
//!
//! [`super::geometry`] finds a variant's symmetries (the lattice's twelve point operations,
//! each followed by the translation that keeps the board, that map the board onto itself) as
//! permutations of cells, directions and grid cells; here they move a position (its
//! repetition history included), an action and the observation planes. Colours, counts and the
//! player to move never change under a board symmetry, so no plane changes meaning.
use super::geometry::Cell;
use super::observation::PLANES;
use super::position::{Phase, Zertz};
use super::turn::Step;
use crate::game::Action;
use crate::symmetry::permute_planes;

/// The position seen through symmetry `sym` of its board.
pub(crate) fn transform(position: &Zertz, sym: usize) -> Zertz {
    let geometry = position.geometry();
    let set = |s: u64| geometry.transform_set(sym, s);
    let cell = |c: Cell| Cell(geometry.symmetries[sym].cell[c.index()]);
    let mut out = position.clone();
    out.rings = set(position.rings);
    out.marbles = position.marbles.map(set);
    out.phase = match position.phase {
        Phase::Jumping(c) => Phase::Jumping(cell(c)),
        other => other,
    };
    for key in out.history.iter_mut().chain([&mut out.turn_start]) {
        key.rings = set(key.rings);
        key.marbles = key.marbles.map(set);
    }
    out
}

/// The action that corresponds to `action` after symmetry `sym`.
pub(crate) fn transform_action(position: &Zertz, sym: usize, action: Action) -> Action {
    let symmetry = &position.geometry().symmetries[sym];
    let cell = |c: Cell| Cell(symmetry.cell[c.index()]);
    let step = match position.step_of(action) {
        Step::Place(colour, c) => Step::Place(colour, cell(c)),
        Step::Remove(c) => Step::Remove(cell(c)),
        Step::Jump(c, d) => Step::Jump(cell(c), symmetry.direction[d] as usize),
        Step::Pass => Step::Pass,
    };
    position.action(step)
}

/// Maps observation planes through symmetry `sym`: only cells move.
pub(crate) fn transform_observation(
    position: &Zertz,
    sym: usize,
    input: &[f32],
    output: &mut [f32],
) {
    // No plane changes meaning under a board symmetry.
    const SAME_PLANES: [u16; PLANES] = {
        let mut planes = [0u16; PLANES];
        let mut i = 0;
        while i < PLANES {
            planes[i] = i as u16;
            i += 1;
        }
        planes
    };
    let grid = &position.geometry().symmetries[sym].grid;
    permute_planes(input, output, grid, &SAME_PLANES);
}
