//! Observation planes on the padded 11 × 5 grid (letter index × row, row 1 first).
//!
//! Colours are seen from the player to move ("mine" / "the opponent's"), so one network
//! plays both sides; a constant plane still says whether the mover is White, because the
//! two sides are not alike (White places two DVONN pieces and moves twice at the phase
//! change). Constant planes fill the whole grid, off-board cells included, so that the
//! symmetries (which leave off-board cells in place) keep them unchanged.
use super::geometry::{cells, Cell, BOARD, GRID};
use super::position::{Dvonn, Piece};
use crate::game::Player;

/// 1 on the 49 board spaces.
pub const PLANE_BOARD: usize = 0;
/// Stacks with the mover's colour on top.
pub const PLANE_MINE: usize = 1;
/// Stacks with the opponent's colour on top.
pub const PLANE_THEIRS: usize = 2;
/// Lone DVONN pieces.
pub const PLANE_DVONN_TOP: usize = 3;
/// Stacks holding a DVONN piece (lone ones included).
pub const PLANE_HAS_DVONN: usize = 4;
/// `PLANE_HEIGHT_AT_LEAST + k - 1` is 1 where the height is at least `k`, k = 1..=10
/// (heights above 10 cannot move at all, so finer steps stop there).
pub const PLANE_HEIGHT_AT_LEAST: usize = 5;
pub const HEIGHT_THRESHOLDS: usize = 10;
/// Height / 49 (the most pieces a stack can hold).
pub const PLANE_HEIGHT: usize = PLANE_HEIGHT_AT_LEAST + HEIGHT_THRESHOLDS;
/// Origins of the mover's legal moves (phase 2).
pub const PLANE_MY_MOVES: usize = PLANE_HEIGHT + 1;
/// Origins the opponent would have a move from, were it their turn (phase 2).
pub const PLANE_THEIR_MOVES: usize = PLANE_HEIGHT + 2;
/// Constant 1 in phase 1.
pub const PLANE_PLACING: usize = PLANE_HEIGHT + 3;
/// Constant 1 when the next placement is a DVONN piece.
pub const PLANE_PLACING_DVONN: usize = PLANE_HEIGHT + 4;
/// Constant 1 when the mover is White.
pub const PLANE_MOVER_WHITE: usize = PLANE_HEIGHT + 5;
/// Number of planes.
pub const PLANES: usize = PLANE_MOVER_WHITE + 1;

impl Dvonn {
    pub(crate) fn encode_planes(&self, out: &mut [f32]) {
        assert_eq!(out.len(), PLANES * GRID, "a DVONN observation has {PLANES} × 5 × 11 values");
        out.fill(0.0);
        let mut set = |plane: usize, cell: Cell, value: f32| out[plane * GRID + cell.grid()] = value;
        let mover = self.to_move();
        for cell in cells(BOARD) {
            set(PLANE_BOARD, cell, 1.0);
        }
        for cell in cells(self.occupied()) {
            let stack = self.stack(cell).expect("occupied");
            match stack.top.owner() {
                Some(owner) if owner == mover => set(PLANE_MINE, cell, 1.0),
                Some(_) => set(PLANE_THEIRS, cell, 1.0),
                None => set(PLANE_DVONN_TOP, cell, 1.0),
            }
            if stack.has_dvonn {
                set(PLANE_HAS_DVONN, cell, 1.0);
            }
            for k in 0..(stack.height as usize).min(HEIGHT_THRESHOLDS) {
                set(PLANE_HEIGHT_AT_LEAST + k, cell, 1.0);
            }
            set(PLANE_HEIGHT, cell, stack.height as f32 / 49.0);
        }
        if !self.is_placing() {
            for cell in cells(self.movable(mover)) {
                set(PLANE_MY_MOVES, cell, 1.0);
            }
            for cell in cells(self.movable(mover.other())) {
                set(PLANE_THEIR_MOVES, cell, 1.0);
            }
        }
        let constants = [
            (PLANE_PLACING, self.is_placing()),
            (PLANE_PLACING_DVONN, self.next_piece() == Some(Piece::Dvonn)),
            (PLANE_MOVER_WHITE, mover == Player::One),
        ];
        for (plane, on) in constants {
            if on {
                out[plane * GRID..(plane + 1) * GRID].fill(1.0);
            }
        }
    }
}
