//! The spec's variant table: a board (column table), a marble set and goals per variant, and
//! the marble colours.
//!
//! Everything a variant fixes is derived once, at first use, into one [`Rules`] per variant
//! that every position of the variant points to; the network contract built on it (action
//! count, planes, grid) is assembled in the module root, next to `impl Game`.
use std::fmt;
use std::sync::OnceLock;

use super::geometry::{Cell, Geometry};
use crate::error::SetupError;

/// A board and marble set from the spec's variant table.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// 37 rings, 6/8/10 marbles.
    Standard,
    R40,
    R43,
    R44,
    /// 48 rings: the tournament board.
    R48,
    R61,
    /// 37 rings, 5/7/9 marbles and lower goals.
    Blitz,
}

impl Variant {
    pub const ALL: [Variant; 7] = [
        Variant::Standard,
        Variant::R40,
        Variant::R43,
        Variant::R44,
        Variant::R48,
        Variant::R61,
        Variant::Blitz,
    ];

    /// Reads a variant name as the command line takes it.
    pub fn from_name(name: &str) -> Result<Variant, SetupError> {
        match name {
            "standard" => Ok(Variant::Standard),
            "40" => Ok(Variant::R40),
            "43" => Ok(Variant::R43),
            "44" => Ok(Variant::R44),
            "48" | "tournament" => Ok(Variant::R48),
            "61" => Ok(Variant::R61),
            "blitz" => Ok(Variant::Blitz),
            _ => Err(SetupError(format!(
                "unknown ZÈRTZ variant \"{name}\": expected standard, 40, 43, 44, 48, tournament, 61 or blitz"
            ))),
        }
    }

    /// The canonical name (`tournament` reads as `48`).
    pub fn name(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::R40 => "40",
            Variant::R43 => "43",
            Variant::R44 => "44",
            Variant::R48 => "48",
            Variant::R61 => "61",
            Variant::Blitz => "blitz",
        }
    }

    /// The spec's column table: `(lowest height, number of cells)` per column.
    fn columns(self) -> &'static [(i32, usize)] {
        const STANDARD: &[(i32, usize)] = &[(3, 4), (2, 5), (1, 6), (0, 7), (1, 6), (2, 5), (3, 4)];
        match self {
            Variant::Standard | Variant::Blitz => STANDARD,
            Variant::R40 => &[(3, 5), (2, 6), (1, 7), (0, 7), (1, 6), (2, 5), (3, 4)],
            Variant::R43 => &[
                (3, 5),
                (2, 6),
                (1, 7),
                (0, 7),
                (1, 6),
                (2, 5),
                (3, 4),
                (4, 3),
            ],
            Variant::R44 => &[(3, 5), (2, 6), (1, 7), (0, 8), (1, 7), (2, 6), (3, 5)],
            Variant::R48 => &[
                (3, 5),
                (2, 6),
                (1, 7),
                (0, 8),
                (1, 7),
                (2, 6),
                (3, 5),
                (4, 4),
            ],
            Variant::R61 => &[
                (4, 5),
                (3, 6),
                (2, 7),
                (1, 8),
                (0, 9),
                (1, 8),
                (2, 7),
                (3, 6),
                (4, 5),
            ],
        }
    }

    /// The cell named `name` (`d4`) on this variant's board.
    pub fn cell(self, name: &str) -> Option<Cell> {
        self.rules().geometry.cell(name)
    }

    /// The name of a cell of this variant's board.
    pub fn cell_name(self, cell: Cell) -> String {
        self.rules().geometry.name(cell)
    }

    /// Every cell of this variant's board, in index order.
    pub fn all_cells(self) -> Vec<Cell> {
        (0..self.cells() as u8).map(Cell).collect()
    }

    /// Number of cells (rings at the start).
    pub fn cells(self) -> usize {
        self.rules().geometry.cells
    }

    /// The marbles of each colour in the game (the pool at the start).
    pub fn marbles(self) -> [u8; 3] {
        self.rules().total
    }

    /// The variant's place in [`Variant::ALL`].
    pub(crate) fn index(self) -> usize {
        Variant::ALL
            .iter()
            .position(|&v| v == self)
            .expect("every variant is listed")
    }

    pub(crate) fn rules(self) -> &'static Rules {
        static RULES: [OnceLock<Rules>; 7] = [const { OnceLock::new() }; 7];
        RULES[self.index()].get_or_init(|| Rules::new(self))
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A marble colour.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Colour {
    White,
    Grey,
    Black,
}

impl Colour {
    pub const ALL: [Colour; 3] = [Colour::White, Colour::Grey, Colour::Black];

    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The notation letter: `W`, `G` or `B`.
    pub fn letter(self) -> char {
        ['W', 'G', 'B'][self.index()]
    }

    pub fn from_letter(letter: char) -> Option<Colour> {
        match letter {
            'W' => Some(Colour::White),
            'G' => Some(Colour::Grey),
            'B' => Some(Colour::Black),
            _ => None,
        }
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(["white", "grey", "black"][self.index()])
    }
}

/// What a variant fixes: board, marbles and goals.
#[derive(Debug)]
pub(crate) struct Rules {
    pub variant: Variant,
    pub geometry: Geometry,
    /// Marbles of each colour in the game.
    pub total: [u8; 3],
    /// Goal "`goal_each` of every colour".
    pub goal_each: u8,
    /// Goal "`goal_single[c]` of colour `c`".
    pub goal_single: [u8; 3],
}

impl Rules {
    fn new(variant: Variant) -> Rules {
        let geometry = Geometry::new(variant.columns());
        let (total, goal_each, goal_single) = match variant {
            Variant::Blitz => ([5, 7, 9], 2, [3, 4, 5]),
            _ => ([6, 8, 10], 3, [4, 5, 6]),
        };
        Rules {
            variant,
            geometry,
            total,
            goal_each,
            goal_single,
        }
    }

    /// Whether a player holding `captured` marbles has reached a goal.
    pub fn goal_reached(&self, captured: [u8; 3]) -> bool {
        captured
            .iter()
            .zip(self.goal_single)
            .any(|(&have, need)| have >= need)
            || captured.iter().all(|&have| have >= self.goal_each)
    }
}

/// The geometry every variant derives from its column table.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;
    use crate::zertz::geometry::{cells, DIRECTIONS, NONE};

    /// The shift groups give the same answer as the neighbour table, cell by cell.
    #[test]
    fn pull_matches_the_neighbour_table() {
        let mut rng = SplitMix64::new(11);
        for variant in Variant::ALL {
            let geometry = &variant.rules().geometry;
            for _ in 0..200 {
                let set = rng.next_u64() & geometry.all;
                for d in 0..DIRECTIONS {
                    let expected = cells(geometry.all)
                        .filter(|c| {
                            let n = geometry.neighbour[c.index()][d];
                            n != NONE && set & (1 << n) != 0
                        })
                        .fold(0, |acc, c| acc | c.bit());
                    assert_eq!(geometry.pull(d, set), expected, "{variant} direction {d}");
                }
            }
        }
    }

    /// Neighbours are mutual: the neighbour up-right of a cell has the cell down-left of it.
    #[test]
    fn neighbours_are_mutual_and_named_as_in_the_spec() {
        for variant in Variant::ALL {
            let geometry = &variant.rules().geometry;
            for cell in cells(geometry.all) {
                for d in 0..DIRECTIONS {
                    if let Some(n) = geometry.step(cell, d) {
                        assert_eq!(geometry.step(n, (d + 3) % DIRECTIONS), Some(cell));
                    }
                }
            }
        }
        let geometry = &Variant::Standard.rules().geometry;
        let d4 = geometry.cell("d4").unwrap();
        let around: Vec<String> = (0..DIRECTIONS)
            .map(|d| geometry.name(geometry.step(d4, d).unwrap()))
            .collect();
        assert_eq!(around, ["d5", "e4", "e3", "d3", "c3", "c4"]);
        let a1 = geometry.cell("a1").unwrap();
        let around: Vec<Option<Cell>> = (0..DIRECTIONS).map(|d| geometry.step(a1, d)).collect();
        assert_eq!(
            around.iter().filter(|n| n.is_some()).count(),
            3,
            "a1: a2, b2, b1"
        );
    }
}
