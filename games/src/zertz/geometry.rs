//! Board geometry, derived once per variant from the spec's column table.
//!
//! Cells are numbered column by column (`a1, a2, …, b1, …`), so one cell is one bit of a `u64`
//! (61 cells at most). Within a column, the neighbour in a given direction sits at a constant
//! index offset, so "the cells whose neighbour in direction `d` lies in set `S`" is a handful
//! of shifts and masks ([`Geometry::pull`]); the free-ring test, jump detection and the
//! isolation flood fill are built on it. Everything here — neighbours, shift groups, the
//! observation grid and the symmetries — is computed from the `(lowest height, cells)` pairs of
//! the table, never typed per board.
//!
//! Coordinates: a cell has a column `q` (0 for `a`) and a height `y` in half-steps. Its axial
//! coordinate is `(q, r)` with `r = (y - q - m) / 2`, where `m` is the smallest `y - q` of the
//! board, so `r` starts at 0; the spec's neighbour offsets `(±1, 0)`, `(0, ±1)`, `(+1, −1)`,
//! `(−1, +1)` are exactly the adjacencies of the column table. The hexagonal lattice's twelve
//! point symmetries are linear maps of `(q, r)`; every symmetry of a board (about a cell, an
//! edge midpoint or a triangle centre) is one of them followed by an integer translation.
use std::fmt;

use crate::bitboard::{self, BitCell};

/// Number of directions around a cell.
pub const DIRECTIONS: usize = 6;

/// Axial steps `(dq, dr)` of the six directions in the spec's order: up, up-right,
/// down-right, down, down-left, up-left. Consecutive entries (cyclically) are adjacent
/// directions, which is what the free-ring rule needs.
const STEPS: [(i32, i32); DIRECTIONS] = [(0, 1), (1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1)];

/// Marker for "no neighbour" in the neighbour table.
pub(crate) const NONE: u8 = u8::MAX;

/// A cell of a variant's board (the index of its bit).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell(pub(crate) u8);

impl Cell {
    /// The cell's index in `0..cells` (column by column, bottom to top).
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    #[inline]
    pub(crate) fn bit(self) -> u64 {
        1u64 << self.0
    }
}

impl BitCell for Cell {
    #[inline]
    fn from_bit(bit: u8) -> Cell {
        Cell(bit)
    }
}

/// Iterator over the cells of a bitboard (the shared one of [`crate::bitboard`]).
pub(crate) type Cells = bitboard::Cells<Cell>;

/// The cells of a bitboard, in increasing order.
#[inline]
pub(crate) fn cells(set: u64) -> Cells {
    Cells::new(set)
}

/// Cells whose neighbour lies `shift` indices away, as one mask: one shift serves them all.
#[derive(Clone, Copy, Debug, Default)]
struct ShiftGroup {
    mask: u64,
    shift: i32,
}

/// A symmetry of the board, as permutations of cells, directions and observation grid cells.
#[derive(Clone, Debug)]
pub(crate) struct Symmetry {
    pub cell: [u8; 64],
    pub direction: [u8; DIRECTIONS],
    pub grid: Vec<u16>,
}

/// Everything a variant's board shape determines.
pub(crate) struct Geometry {
    pub cells: usize,
    /// Every cell of the board.
    pub all: u64,
    /// Board columns as `(lowest height, number of cells)`.
    columns: Vec<(i32, usize)>,
    /// Per cell: column and position in the column (0 = lowest).
    column_of: [u8; 64],
    row_of: [u8; 64],
    /// `neighbour[cell][direction]`, or [`NONE`].
    pub neighbour: [[u8; DIRECTIONS]; 64],
    shifts: [[ShiftGroup; 16]; DIRECTIONS],
    shift_len: [usize; DIRECTIONS],
    /// Observation grid: `width` columns (`q`) × `height` rows (`r`, top row = largest `r`).
    pub width: usize,
    pub height: usize,
    pub grid_index: [u16; 64],
    /// Axial `(q, r)` per cell.
    axial: [(i32, i32); 64],
    pub symmetries: Vec<Symmetry>,
}

impl fmt::Debug for Geometry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Geometry({} cells)", self.cells)
    }
}

impl Geometry {
    /// Derives the geometry from the column table `(lowest height, number of cells)`.
    pub fn new(columns: &[(i32, usize)]) -> Geometry {
        let cells: usize = columns.iter().map(|c| c.1).sum();
        assert!(cells <= 64, "a board must fit a u64");
        let mut column_of = [0u8; 64];
        let mut row_of = [0u8; 64];
        let mut heights = [0i32; 64];
        let mut index = 0;
        for (q, &(low, count)) in columns.iter().enumerate() {
            for k in 0..count {
                column_of[index] = q as u8;
                row_of[index] = k as u8;
                heights[index] = low + 2 * k as i32;
                index += 1;
            }
        }
        let m = (0..cells)
            .map(|i| heights[i] - column_of[i] as i32)
            .min()
            .unwrap_or(0);
        let mut axial = [(0i32, 0i32); 64];
        for i in 0..cells {
            let q = column_of[i] as i32;
            let offset = heights[i] - q - m;
            debug_assert!(offset % 2 == 0, "column heights must alternate parity");
            axial[i] = (q, offset / 2);
        }
        let width = columns.len();
        let height = (0..cells).map(|i| axial[i].1).max().unwrap_or(0) as usize + 1;
        let find = |q: i32, r: i32| (0..cells).find(|&i| axial[i] == (q, r));

        let mut neighbour = [[NONE; DIRECTIONS]; 64];
        for i in 0..cells {
            let (q, r) = axial[i];
            for (d, &(dq, dr)) in STEPS.iter().enumerate() {
                if let Some(n) = find(q + dq, r + dr) {
                    neighbour[i][d] = n as u8;
                }
            }
        }

        let mut shifts = [[ShiftGroup::default(); 16]; DIRECTIONS];
        let mut shift_len = [0usize; DIRECTIONS];
        for d in 0..DIRECTIONS {
            for (i, around) in neighbour.iter().enumerate().take(cells) {
                let n = around[d];
                if n == NONE {
                    continue;
                }
                let shift = n as i32 - i as i32;
                let groups = &mut shifts[d][..shift_len[d]];
                match groups.iter_mut().find(|g| g.shift == shift) {
                    Some(group) => group.mask |= 1 << i,
                    None => {
                        shifts[d][shift_len[d]] = ShiftGroup {
                            mask: 1 << i,
                            shift,
                        };
                        shift_len[d] += 1;
                    }
                }
            }
        }

        let mut grid_index = [0u16; 64];
        for i in 0..cells {
            let (q, r) = axial[i];
            grid_index[i] = ((height as i32 - 1 - r) as usize * width + q as usize) as u16;
        }

        let mut geometry = Geometry {
            cells,
            all: if cells == 64 {
                u64::MAX
            } else {
                (1u64 << cells) - 1
            },
            columns: columns.to_vec(),
            column_of,
            row_of,
            neighbour,
            shifts,
            shift_len,
            width,
            height,
            grid_index,
            axial,
            symmetries: Vec::new(),
        };
        geometry.symmetries = geometry.derive_symmetries();
        geometry
    }

    /// The twelve point operations of the hexagonal lattice as 2×2 matrices on axial
    /// coordinates, identity first: rotations by 60° (`up → up-right → …`), then the same
    /// rotations after the mirror that keeps `up` and swaps left and right.
    fn lattice_operations() -> Vec<[[i32; 2]; 2]> {
        let rotate = [[1, 1], [-1, 0]]; // (q, r) -> (q + r, -q)
        let mirror = [[-1, 0], [1, 1]]; // (q, r) -> (-q, q + r)
        let multiply = |a: [[i32; 2]; 2], b: [[i32; 2]; 2]| {
            let mut c = [[0; 2]; 2];
            for (i, row) in c.iter_mut().enumerate() {
                for (j, value) in row.iter_mut().enumerate() {
                    *value = a[i][0] * b[0][j] + a[i][1] * b[1][j];
                }
            }
            c
        };
        let mut operations = Vec::new();
        for reflect in [false, true] {
            let mut op = if reflect { mirror } else { [[1, 0], [0, 1]] };
            for _ in 0..6 {
                operations.push(op);
                op = multiply(rotate, op);
            }
        }
        operations
    }

    /// Every lattice operation plus translation that maps the board's cells onto themselves.
    fn derive_symmetries(&self) -> Vec<Symmetry> {
        let apply = |op: [[i32; 2]; 2], (q, r): (i32, i32)| {
            (op[0][0] * q + op[0][1] * r, op[1][0] * q + op[1][1] * r)
        };
        let cells = &self.axial[..self.cells];
        let original_min = *cells.iter().min().expect("a board has cells");
        let mut symmetries = Vec::new();
        for op in Self::lattice_operations() {
            let image: Vec<(i32, i32)> = cells.iter().map(|&a| apply(op, a)).collect();
            let image_min = *image.iter().min().expect("a board has cells");
            let (tq, tr) = (original_min.0 - image_min.0, original_min.1 - image_min.1);
            let mut cell = [0u8; 64];
            let mut valid = true;
            for (i, &(q, r)) in image.iter().enumerate() {
                match cells.iter().position(|&a| a == (q + tq, r + tr)) {
                    Some(j) => cell[i] = j as u8,
                    None => {
                        valid = false;
                        break;
                    }
                }
            }
            if !valid {
                continue;
            }
            let mut direction = [0u8; DIRECTIONS];
            for (d, &step) in STEPS.iter().enumerate() {
                let image = apply(op, step);
                direction[d] = STEPS
                    .iter()
                    .position(|&s| s == image)
                    .expect("steps map to steps") as u8;
            }
            let mut grid: Vec<u16> = (0..(self.width * self.height) as u16).collect();
            for i in 0..self.cells {
                grid[self.grid_index[i] as usize] = self.grid_index[cell[i] as usize];
            }
            symmetries.push(Symmetry {
                cell,
                direction,
                grid,
            });
        }
        symmetries
    }

    /// The cells whose neighbour in direction `d` is in `set`.
    #[inline]
    pub fn pull(&self, d: usize, set: u64) -> u64 {
        let mut out = 0;
        for group in &self.shifts[d][..self.shift_len[d]] {
            let moved = if group.shift >= 0 {
                set >> group.shift
            } else {
                set << -group.shift
            };
            out |= moved & group.mask;
        }
        out
    }

    /// The cells adjacent to some cell of `set`.
    #[inline]
    pub fn adjacent(&self, set: u64) -> u64 {
        (0..DIRECTIONS).fold(0, |acc, d| acc | self.pull(d, set))
    }

    /// The neighbour of `cell` in direction `d`.
    #[inline]
    pub fn step(&self, cell: Cell, d: usize) -> Option<Cell> {
        let n = self.neighbour[cell.index()][d];
        (n != NONE).then_some(Cell(n))
    }

    /// The direction of a jump from `from` that lands on `landing`, two steps away.
    pub fn jump_direction(&self, from: Cell, landing: Cell) -> Option<usize> {
        (0..DIRECTIONS)
            .find(|&d| self.step(from, d).and_then(|over| self.step(over, d)) == Some(landing))
    }

    /// The cell's name, such as `d4`.
    pub fn name(&self, cell: Cell) -> String {
        let column = (b'a' + self.column_of[cell.index()]) as char;
        format!("{column}{}", self.row_of[cell.index()] + 1)
    }

    /// The cell named `name` (`d4`), if the board has it.
    pub fn cell(&self, name: &str) -> Option<Cell> {
        let mut chars = name.chars();
        let column = chars.next()?;
        if !column.is_ascii_lowercase() {
            return None;
        }
        let number = chars.as_str();
        if number.is_empty() || number.len() > 2 || !number.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let q = (column as u8 - b'a') as usize;
        let row: usize = number.parse().ok()?;
        let &(_, count) = self.columns.get(q)?;
        if row == 0 || row > count {
            return None;
        }
        let start: usize = self.columns[..q].iter().map(|c| c.1).sum();
        Some(Cell((start + row - 1) as u8))
    }

    /// Column index and height `y` of a cell, for drawing.
    pub fn column_and_height(&self, cell: Cell) -> (usize, i32) {
        let q = self.column_of[cell.index()] as usize;
        (q, self.columns[q].0 + 2 * self.row_of[cell.index()] as i32)
    }

    /// Maps a bitboard through a symmetry.
    pub fn transform_set(&self, sym: usize, set: u64) -> u64 {
        let map = &self.symmetries[sym].cell;
        cells(set).fold(0, |acc, c| acc | 1u64 << map[c.index()])
    }
}
