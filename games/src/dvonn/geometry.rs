//! The DVONN board: 49 spaces on five rows of a hexagonal lattice, named `a1` … `k5`.
//!
//! Why a padded grid: a space with letter index `L` (a = 0) and row `R` is bit `11·(R−1) + L`
//! of a `u64`, so the board is an 11 × 5 rectangle with six corners cut off. The spec's six
//! neighbours (L±1, R), (L, R±1), (L+1, R+1), (L−1, R−1) are then the bit shifts ±1, ±11 and
//! ±12, and a shift that runs off a row or off the board always lands on a bit outside the
//! board (a cut-off corner or bit 55 and above), so "shift, then mask with the board" is exact.
//! Flood fills (which groups touch a DVONN piece) and "surrounded on all six sides" are then a
//! handful of shifts over the whole board at once. The same 11 × 5 rectangle is the grid of
//! the observation planes. A test checks the shifts against the neighbour rule cell by cell.
//!
//! Everything here is computed at compile time from the spec's row table ([`ROW_LETTERS`]);
//! nothing is typed in per cell.
use std::fmt;

use crate::bitboard::{self, BitCell};

/// Width of the padded grid: letters `a`–`k`.
pub const WIDTH: usize = 11;
/// Height of the padded grid: rows 1–5.
pub const HEIGHT: usize = 5;
/// Bits of the padded grid.
pub const GRID: usize = WIDTH * HEIGHT;
/// Spaces on the board.
pub const CELL_COUNT: usize = 49;
/// The longest straight line on the board has 11 spaces, so no move is longer than 10.
pub const MAX_DISTANCE: usize = 10;

/// First and last letter index of each row, row 1 first: the spec's table
/// (a1–i1, a2–j2, a3–k3, b4–k4, c5–k5).
const ROW_LETTERS: [(i32, i32); HEIGHT] = [(0, 8), (0, 9), (0, 10), (1, 10), (2, 10)];

const fn on_board(letter: i32, row: i32) -> bool {
    row >= 0
        && row < HEIGHT as i32
        && letter >= ROW_LETTERS[row as usize].0
        && letter <= ROW_LETTERS[row as usize].1
}

/// All board spaces as a bitboard.
pub const BOARD: u64 = {
    let mut board = 0u64;
    let mut bit = 0;
    while bit < GRID {
        if on_board((bit % WIDTH) as i32, (bit / WIDTH) as i32) {
            board |= 1 << bit;
        }
        bit += 1;
    }
    board
};

/// Grid bit of each space in increasing order (the dense index order).
const CELL_BITS: [u8; CELL_COUNT] = {
    let mut cells = [0u8; CELL_COUNT];
    let mut count = 0;
    let mut bit = 0;
    while bit < GRID {
        if BOARD & (1 << bit) != 0 {
            cells[count] = bit as u8;
            count += 1;
        }
        bit += 1;
    }
    assert!(count == CELL_COUNT);
    cells
};

/// A grid bit that is never a space: what a ray holds where it has left the board. Being a
/// real bit position (above the grid) lets the move generator test `occupied >> bit & 1`
/// without first asking whether the space exists.
const NO_CELL: u8 = 63;

/// Dense index (0..49) of each grid bit (garbage off the board).
const DENSE_INDEX: [u8; GRID] = {
    let mut dense = [u8::MAX; GRID];
    let mut index = 0;
    while index < CELL_COUNT {
        dense[CELL_BITS[index] as usize] = index as u8;
        index += 1;
    }
    dense
};

/// One space of the board.
///
/// Holds the space's bit in the padded grid; [`Cell::index`] gives the dense index 0..49
/// (row 1 first, then by letter) that the action space uses.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell(u8);

impl Cell {
    /// Every space, in dense index order.
    pub const ALL: [Cell; CELL_COUNT] = {
        let mut cells = [Cell(0); CELL_COUNT];
        let mut index = 0;
        while index < CELL_COUNT {
            cells[index] = Cell(CELL_BITS[index]);
            index += 1;
        }
        cells
    };

    /// The space with letter index `letter` (a = 0) and row `row` (1–5), if it is on the board.
    pub const fn new(letter: i32, row: i32) -> Option<Cell> {
        if on_board(letter, row - 1) {
            Some(Cell(((row - 1) as usize * WIDTH + letter as usize) as u8))
        } else {
            None
        }
    }

    /// The space at grid bit `bit`, known to be on the board.
    #[inline]
    pub(crate) fn from_board_bit(bit: u8) -> Cell {
        debug_assert!(BOARD >> bit & 1 != 0, "bit {bit} is no space");
        Cell(bit)
    }

    /// The space with dense index `index` (0..49).
    pub fn from_index(index: usize) -> Option<Cell> {
        Cell::ALL.get(index).copied()
    }

    /// The space at bit `bit` of the padded grid, if that bit is a board space.
    pub fn from_grid(bit: usize) -> Option<Cell> {
        (bit < GRID && BOARD & (1 << bit) != 0).then_some(Cell(bit as u8))
    }

    /// Reads a space name such as `e3` (upper case accepted).
    pub fn from_name(name: &str) -> Result<Cell, String> {
        let bytes = name.as_bytes();
        if bytes.len() != 2 {
            return Err(format!("\"{name}\" is not a space name (a letter a-k and a row 1-5, e.g. e3)"));
        }
        let letter = bytes[0].to_ascii_lowercase();
        let row = bytes[1];
        if !(b'a'..=b'k').contains(&letter) || !(b'1'..=b'5').contains(&row) {
            return Err(format!("\"{name}\" is not a space name (a letter a-k and a row 1-5, e.g. e3)"));
        }
        let row = (row - b'0') as i32;
        Cell::new((letter - b'a') as i32, row).ok_or_else(|| {
            let (first, last) = ROW_LETTERS[row as usize - 1];
            format!(
                "{name} is not a space of the board (row {row} runs from {}{row} to {}{row})",
                (b'a' + first as u8) as char,
                (b'a' + last as u8) as char
            )
        })
    }

    /// Dense index 0..49, row 1 first, then by letter.
    #[inline]
    pub fn index(self) -> usize {
        DENSE_INDEX[self.0 as usize] as usize
    }

    /// Bit in the padded 11 × 5 grid: `11·(row − 1) + letter`.
    #[inline]
    pub fn grid(self) -> usize {
        self.0 as usize
    }

    #[inline]
    pub fn bit(self) -> u64 {
        1 << self.0
    }

    /// Letter index (a = 0).
    #[inline]
    pub fn letter(self) -> i32 {
        (self.0 as usize % WIDTH) as i32
    }

    /// Row, 1–5.
    #[inline]
    pub fn row(self) -> i32 {
        (self.0 as usize / WIDTH) as i32 + 1
    }

    /// The space `distance` steps away in direction `direction`, if it is on the board.
    #[inline]
    pub fn step(self, direction: Direction, distance: usize) -> Option<Cell> {
        if distance > MAX_DISTANCE {
            return None;
        }
        match RAYS[self.0 as usize][direction as usize][distance] {
            NO_CELL => None,
            bit => Some(Cell(bit)),
        }
    }

    /// The grid bits `distance` steps away in the six directions ([`Direction`] order); a bit
    /// above the grid (never occupied) where the line leaves the board. `distance` ≤ 10.
    #[inline]
    pub(crate) fn ray_bits(self, distance: usize) -> [u8; 6] {
        let rays = &RAYS[self.0 as usize];
        std::array::from_fn(|d| rays[d][distance])
    }

    /// The spaces exactly `distance` steps away along the six lines, as a bitboard.
    #[inline]
    pub(crate) fn targets(self, distance: usize) -> u64 {
        if distance > MAX_DISTANCE {
            0
        } else {
            TARGETS[self.0 as usize][distance]
        }
    }

    /// The direction and distance from `self` to `to` when both lie on one straight line.
    pub fn line_to(self, to: Cell) -> Option<(Direction, usize)> {
        let (dl, dr) = (to.letter() - self.letter(), to.row() - self.row());
        let distance = dl.abs().max(dr.abs()) as usize;
        if distance == 0 {
            return None;
        }
        let unit = (dl / distance as i32, dr / distance as i32);
        Direction::ALL
            .into_iter()
            .find(|d| d.delta() == unit && (dl, dr) == (unit.0 * distance as i32, unit.1 * distance as i32))
            .map(|d| (d, distance))
    }

    /// True for the 24 spaces with fewer than six neighbours on the board.
    pub fn is_edge(self) -> bool {
        Direction::ALL.into_iter().any(|d| self.step(d, 1).is_none())
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.letter() as u8) as char, self.row())
    }
}

impl fmt::Debug for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// One of the six directions of a straight move, counter-clockwise from East. Opposite
/// directions are three apart.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// (L+1, R): along the row, towards k.
    East,
    /// (L+1, R+1).
    NorthEast,
    /// (L, R+1).
    NorthWest,
    /// (L−1, R).
    West,
    /// (L−1, R−1).
    SouthWest,
    /// (L, R−1).
    SouthEast,
}

impl Direction {
    pub const ALL: [Direction; 6] = [
        Direction::East,
        Direction::NorthEast,
        Direction::NorthWest,
        Direction::West,
        Direction::SouthWest,
        Direction::SouthEast,
    ];

    /// The step in (letter, row), from the spec's neighbour list.
    pub const fn delta(self) -> (i32, i32) {
        match self {
            Direction::East => (1, 0),
            Direction::NorthEast => (1, 1),
            Direction::NorthWest => (0, 1),
            Direction::West => (-1, 0),
            Direction::SouthWest => (-1, -1),
            Direction::SouthEast => (0, -1),
        }
    }

    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    pub fn from_index(index: usize) -> Option<Direction> {
        Direction::ALL.get(index).copied()
    }
}

/// `RAYS[bit][direction][distance]`: the grid bit `distance` steps away, or [`NO_CELL`].
static RAYS: [[[u8; MAX_DISTANCE + 1]; 6]; GRID] = {
    let mut rays = [[[NO_CELL; MAX_DISTANCE + 1]; 6]; GRID];
    let mut bit = 0;
    while bit < GRID {
        let (letter, row) = ((bit % WIDTH) as i32, (bit / WIDTH) as i32);
        if on_board(letter, row) {
            let mut d = 0;
            while d < 6 {
                let (dl, dr) = Direction::ALL[d].delta();
                let mut distance = 0;
                while distance <= MAX_DISTANCE {
                    let (l, r) = (letter + dl * distance as i32, row + dr * distance as i32);
                    if on_board(l, r) {
                        rays[bit][d][distance] = (r as usize * WIDTH + l as usize) as u8;
                    }
                    distance += 1;
                }
                d += 1;
            }
        }
        bit += 1;
    }
    rays
};

/// `TARGETS[bit][distance]`: the spaces of `RAYS[bit][..][distance]` as one bitboard, so the
/// move generator can skip a stack with no occupied target in one test.
static TARGETS: [[u64; MAX_DISTANCE + 1]; GRID] = {
    let mut targets = [[0u64; MAX_DISTANCE + 1]; GRID];
    let mut bit = 0;
    while bit < GRID {
        let mut distance = 0;
        while distance <= MAX_DISTANCE {
            let mut d = 0;
            while d < 6 {
                let target = RAYS[bit][d][distance];
                if target != NO_CELL {
                    targets[bit][distance] |= 1 << target;
                }
                d += 1;
            }
            distance += 1;
        }
        bit += 1;
    }
    targets
};

/// Every occupied-or-not space next to a space of `set` (the set itself not included unless a
/// member is next to another member).
#[inline]
pub fn neighbours(set: u64) -> u64 {
    ((set << 1) | (set >> 1) | (set << 11) | (set >> 11) | (set << 12) | (set >> 12)) & BOARD
}

/// The spaces of `occupied` whose six neighbours are all occupied. An off-board neighbour
/// reads as an empty bit, so edge spaces are never surrounded.
#[inline]
pub fn surrounded(occupied: u64) -> u64 {
    let o = occupied & BOARD;
    o & (o >> 1) & (o << 1) & (o >> 11) & (o << 11) & (o >> 12) & (o << 12)
}

/// The spaces of `occupied` joined to `seeds` through chains of adjacent occupied spaces.
#[inline]
pub fn connected(seeds: u64, occupied: u64) -> u64 {
    let mut reached = seeds & occupied;
    loop {
        let next = reached | (neighbours(reached) & occupied);
        if next == reached {
            return reached;
        }
        reached = next;
    }
}

/// The spaces of a bitboard, in increasing order.
#[inline]
pub fn cells(set: u64) -> Cells {
    Cells::new(set)
}

/// Iterator over the spaces of a bitboard (the shared one of [`crate::bitboard`]).
pub type Cells = bitboard::Cells<Cell>;

impl BitCell for Cell {
    #[inline]
    fn from_bit(bit: u8) -> Cell {
        Cell(bit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_have_the_spec_lengths() {
        let lengths: Vec<usize> = (1..=5)
            .map(|row| Cell::ALL.iter().filter(|c| c.row() == row).count())
            .collect();
        assert_eq!(lengths, [9, 10, 11, 10, 9]);
        assert_eq!(BOARD.count_ones(), 49);
        assert_eq!(Cell::ALL[0].to_string(), "a1");
        assert_eq!(Cell::ALL[48].to_string(), "k5");
        assert_eq!(Cell::from_name("c5").map(|c| c.index()), Ok(40));
    }

    #[test]
    fn shifts_match_the_neighbour_rule() {
        for cell in Cell::ALL {
            let (l, r) = (cell.letter(), cell.row());
            let expected: u64 = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1)]
                .iter()
                .filter_map(|(dl, dr)| Cell::new(l + dl, r + dr))
                .map(Cell::bit)
                .fold(0, |a, b| a | b);
            assert_eq!(neighbours(cell.bit()), expected, "neighbours of {cell}");
        }
    }

    #[test]
    fn names_round_trip_and_bad_names_are_refused() {
        for cell in Cell::ALL {
            assert_eq!(Cell::from_name(&cell.to_string()), Ok(cell));
            assert_eq!(Cell::from_name(&cell.to_string().to_uppercase()), Ok(cell));
        }
        for bad in ["a5", "b5", "a4", "j1", "k1", "k2", "l3", "a0", "a6", "", "e", "e33", "é3"] {
            assert!(Cell::from_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn lines_between_cells() {
        let c = |s| Cell::from_name(s).unwrap();
        assert_eq!(c("c3").line_to(c("d4")), Some((Direction::NorthEast, 1)));
        assert_eq!(c("c3").line_to(c("c5")), Some((Direction::NorthWest, 2)));
        assert_eq!(c("k3").line_to(c("a3")), Some((Direction::West, 10)));
        assert_eq!(c("c3").line_to(c("d5")), None);
        assert_eq!(c("c3").line_to(c("c3")), None);
        for from in Cell::ALL {
            for d in Direction::ALL {
                for k in 1..=MAX_DISTANCE {
                    if let Some(to) = from.step(d, k) {
                        assert_eq!(from.line_to(to), Some((d, k)));
                    }
                }
            }
        }
    }

    #[test]
    fn surrounded_needs_six_occupied_neighbours() {
        let full = BOARD;
        let inner = surrounded(full);
        assert_eq!(inner.count_ones(), 25);
        for cell in Cell::ALL {
            assert_eq!(inner & cell.bit() != 0, !cell.is_edge(), "{cell}");
        }
        let e3 = Cell::from_name("e3").unwrap();
        assert_eq!(surrounded(full & !Cell::from_name("f3").unwrap().bit()) & e3.bit(), 0);
    }
}
