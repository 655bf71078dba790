//! The network's view of a LYNGK position: planes over a 9 × 9 grid of axial coordinates.
//!
//! Cell `(row, column) = (r + 4, q + 4)` holds the point with axial coordinates `(q, r)`
//! about e4 (see [`super::geometry`]); 43 of the 81 cells are points and plane 0 marks them.
//! On that grid the six lattice neighbours of a point are six of its eight grid neighbours,
//! so 3 × 3 convolutions see the hexagonal board. Claims and scores are relative to the
//! player to move, the only per-player facts; colours stay absolute (a colour permutation is
//! a symmetry, so the network need not learn each colour separately). The layout is listed in
//! `docs/games/lyngk.md`.
use super::geometry::{Point, GRID};
use super::position::Lyngk;
use super::stack::{Colour, Piece};

/// Board cells of the grid.
pub const VALID: usize = 0;
/// Colour `c` is in the stack: planes `PRESENCE + c` (I, B, R, G, K), then a joker is.
pub const PRESENCE: usize = 1;
/// The top piece is colour `c`: planes `TOP + c`, then a joker.
pub const TOP: usize = 7;
/// The stack is `h` pieces high: plane `HEIGHT + h - 1`, `h` in 1..=5.
pub const HEIGHT: usize = 13;
/// The player to move holds colour `c` (constant over the board).
pub const OWN_CLAIMS: usize = 18;
/// The opponent holds colour `c`.
pub const OPPONENT_CLAIMS: usize = 23;
/// 5-stacks removed by the player to move, then by the opponent, divided by 8.
pub const SCORES: usize = 28;
/// Inside a turn: a colour was claimed this turn (constant).
pub const CLAIM_MADE: usize = 30;
/// Inside a turn: the LYNGK point the moving stack stands on.
pub const LYNGK_POINT: usize = 31;
/// Inside a turn: LYNGK points used this turn.
pub const USED_LYNGK_POINTS: usize = 32;
/// Inside a turn: the origin the moving stack left (its pieces are drawn there).
pub const ORIGIN: usize = 33;
/// Number of planes.
pub const PLANES: usize = 34;
/// Cells of one plane.
pub const CELLS: usize = GRID * GRID;

/// Writes the planes of `position` into `out` (`PLANES * CELLS` values).
pub fn encode(position: &Lyngk, out: &mut [f32]) {
    assert_eq!(out.len(), PLANES * CELLS, "LYNGK observations have {PLANES} planes of {CELLS} cells");
    out.fill(0.0);
    let mover = position.to_move.index();
    let mut set = |plane: usize, point: Point, value: f32| out[plane * CELLS + point.grid_cell()] = value;
    for point in Point::all() {
        let mut stack = position.stacks[point.index()];
        if let Some(m) = position.moving.filter(|m| m.origin == point) {
            stack = m.stack;
            set(ORIGIN, point, 1.0);
        }
        set(VALID, point, 1.0);
        for c in Colour::members(position.claims[mover]) {
            set(OWN_CLAIMS + c.index(), point, 1.0);
        }
        for c in Colour::members(position.claims[1 - mover]) {
            set(OPPONENT_CLAIMS + c.index(), point, 1.0);
        }
        set(SCORES, point, position.removed[mover] as f32 / 8.0);
        set(SCORES + 1, point, position.removed[1 - mover] as f32 / 8.0);
        if position.claimed_now.is_some() {
            set(CLAIM_MADE, point, 1.0);
        }
        if let Some(m) = position.moving {
            if m.at == point {
                set(LYNGK_POINT, point, 1.0);
            }
            if m.used & point.bit() != 0 {
                set(USED_LYNGK_POINTS, point, 1.0);
            }
        }
        if stack.is_empty() {
            continue;
        }
        for piece in stack.pieces() {
            set(PRESENCE + piece_plane(piece), point, 1.0);
        }
        set(TOP + piece_plane(stack.top()), point, 1.0);
        set(HEIGHT + stack.height() as usize - 1, point, 1.0);
    }
}

fn piece_plane(piece: Piece) -> usize {
    piece.colour().map_or(Colour::COUNT, Colour::index)
}

/// Where each plane goes under the colour renaming `map` (jokers and the other planes stay).
pub fn plane_map(map: &[Colour; 5]) -> Vec<u16> {
    let mut planes: Vec<u16> = (0..PLANES as u16).collect();
    for base in [PRESENCE, TOP, OWN_CLAIMS, OPPONENT_CLAIMS] {
        for (c, target) in map.iter().enumerate() {
            planes[base + c] = (base + target.index()) as u16;
        }
    }
    planes
}
