//! The board's symmetries, derived from the geometry rather than written down.
//!
//! A symmetry is a map of the lattice, (L, R) ↦ M·(L, R) + t with M an integer matrix that
//! permutes the six neighbour steps, that sends the 49 spaces onto themselves. Searching all
//! such maps finds four: the identity, the half turn and two mirror images (the board is an
//! elongated hexagon, so the other rotations and mirrors of the lattice do not fit it). They
//! move spaces and directions only: colours, heights and the player to move stay as they are.
use std::sync::OnceLock;

use super::geometry::{Cell, Direction, GRID};

/// One symmetry as permutations of grid bits and of directions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symmetry {
    /// Image of each grid bit; bits off the board map to themselves, so the observation
    /// grid's validity plane is left in place.
    pub grid: [u16; GRID],
    /// Image of each direction, by [`Direction::index`].
    pub direction: [Direction; 6],
}

impl Symmetry {
    #[inline]
    pub fn cell(&self, cell: Cell) -> Cell {
        Cell::from_grid(self.grid[cell.grid()] as usize).expect("a symmetry maps spaces to spaces")
    }

    #[inline]
    pub fn bitboard(&self, set: u64) -> u64 {
        super::geometry::cells(set).fold(0, |acc, c| acc | self.cell(c).bit())
    }
}

/// The board's symmetries, identity first.
pub fn symmetries() -> &'static [Symmetry] {
    static SYMMETRIES: OnceLock<Vec<Symmetry>> = OnceLock::new();
    SYMMETRIES.get_or_init(derive)
}

fn derive() -> Vec<Symmetry> {
    let steps: Vec<(i32, i32)> = Direction::ALL.iter().map(|d| d.delta()).collect();
    let apply = |m: [i32; 4], (l, r): (i32, i32)| (m[0] * l + m[1] * r, m[2] * l + m[3] * r);
    let mut found = Vec::new();
    // Entries of a lattice automorphism permuting the unit steps are all in -1..=1.
    for code in 0..81 {
        let m = [code % 3 - 1, code / 3 % 3 - 1, code / 9 % 3 - 1, code / 27 - 1];
        let mut direction = [Direction::East; 6];
        let permutes_steps = Direction::ALL.iter().all(|&d| {
            let image = apply(m, d.delta());
            match steps.iter().position(|&s| s == image) {
                Some(k) => {
                    direction[d.index()] = Direction::ALL[k];
                    true
                }
                None => false,
            }
        });
        if !permutes_steps {
            continue;
        }
        // The translation must take the image of the board's corner a3 (the only space with
        // letter 0 and row 3) somewhere on the board; trying every board space as that image
        // covers every candidate translation.
        for anchor in Cell::ALL {
            let (l0, r0) = apply(m, (0, 3));
            let t = (anchor.letter() - l0, anchor.row() - r0);
            let mut grid: [u16; GRID] = std::array::from_fn(|bit| bit as u16);
            let fits = Cell::ALL.iter().all(|&cell| {
                let (l, r) = apply(m, (cell.letter(), cell.row()));
                match Cell::new(l + t.0, r + t.1) {
                    Some(image) => {
                        grid[cell.grid()] = image.grid() as u16;
                        true
                    }
                    None => false,
                }
            });
            if fits {
                found.push((m == [1, 0, 0, 1], Symmetry { grid, direction }));
            }
        }
    }
    // Identity first, the rest in the order found.
    found.sort_by_key(|(is_identity, _)| !is_identity);
    let found: Vec<Symmetry> = found.into_iter().map(|(_, s)| s).collect();
    assert_eq!(found.len(), 4, "the DVONN board has four symmetries");
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_symmetries_identity_first() {
        let syms = symmetries();
        assert_eq!(syms.len(), 4);
        for cell in Cell::ALL {
            assert_eq!(syms[0].cell(cell), cell);
        }
        let name = |s: &Symmetry, n: &str| s.cell(Cell::from_name(n).unwrap()).to_string();
        // Images of the corners a1, a3, c5 under each symmetry: the half turn sends a1 to k5,
        // the mirrors swap rows 1 and 5 or the two ends of each row.
        let mut images: Vec<[String; 3]> =
            syms.iter().map(|s| [name(s, "a1"), name(s, "a3"), name(s, "c5")]).collect();
        images.sort();
        let mut expected = vec![
            ["a1", "a3", "c5"].map(String::from),
            ["c5", "a3", "a1"].map(String::from),
            ["i1", "k3", "k5"].map(String::from),
            ["k5", "k3", "i1"].map(String::from),
        ];
        expected.sort();
        assert_eq!(images, expected);
    }

    #[test]
    fn symmetries_keep_neighbours_and_are_bijections() {
        for s in symmetries() {
            let mut seen = [false; GRID];
            for cell in Cell::ALL {
                let image = s.cell(cell);
                assert!(!seen[image.grid()]);
                seen[image.grid()] = true;
                for d in Direction::ALL {
                    let expected = cell.step(d, 1).map(|n| s.cell(n));
                    assert_eq!(image.step(s.direction[d.index()], 1), expected);
                }
            }
        }
    }
}
