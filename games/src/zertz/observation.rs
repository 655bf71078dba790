//! The network's view of a ZÈRTZ position: planes over the variant's axial grid.
//!
//! Cell `(row, column)` of a plane holds the cell with axial coordinates `(q, r)` at row
//! `height − 1 − r`, column `q` (see [`super::geometry`]), so the six neighbours of a cell are
//! six of its eight grid neighbours and 3 × 3 convolutions see the hexagonal board; plane 0
//! marks the grid cells that belong to the variant's board. Captures are relative to the
//! player to move, the only per-player facts; counts are constant planes. The layout is listed
//! in `docs/games/zertz.md`.
use super::geometry::cells;
use super::position::{Phase, Zertz};
use crate::game::Player;

/// Number of observation planes (layout in `docs/games/zertz.md` and at `Zertz::encode_planes`).
pub const PLANES: usize = 18;

impl Zertz {
    /// Planes, each `height × width` over the axial grid (see `docs/games/zertz.md`):
    /// 0 board cell of the variant, 1 ring, 2–4 white/grey/black marble, 5–7 pool per colour,
    /// 8–10 the mover's captures, 11–13 the opponent's captures (counts divided by the
    /// colour's total, constant planes), 14 player one to move, 15 a ring must be removed,
    /// 16 the marble that must keep jumping, 17 free rings.
    pub(crate) fn encode_planes(&self, out: &mut [f32]) {
        let geometry = self.geometry();
        let area = geometry.width * geometry.height;
        debug_assert_eq!(out.len(), PLANES * area);
        out.fill(0.0);
        let mut mark = |plane: usize, set: u64| {
            for cell in cells(set) {
                out[plane * area + geometry.grid_index[cell.index()] as usize] = 1.0;
            }
        };
        mark(0, geometry.all);
        mark(1, self.rings);
        for c in 0..3 {
            mark(2 + c, self.marbles[c]);
        }
        if let Phase::Jumping(cell) = self.phase {
            mark(16, cell.bit());
        }
        mark(17, self.free_rings());
        let mover = self.to_move.index();
        let mut constant =
            |plane: usize, value: f32| out[plane * area..(plane + 1) * area].fill(value);
        for c in 0..3 {
            let total = self.rules.total[c] as f32;
            constant(5 + c, self.pool[c] as f32 / total);
            constant(8 + c, self.captures[mover][c] as f32 / total);
            constant(11 + c, self.captures[1 - mover][c] as f32 / total);
        }
        constant(
            14,
            if self.to_move == Player::One {
                1.0
            } else {
                0.0
            },
        );
        constant(
            15,
            if self.phase == Phase::Remove {
                1.0
            } else {
                0.0
            },
        );
    }
}
