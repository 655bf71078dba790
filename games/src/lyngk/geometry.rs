//! The 43 points of the LYNGK board, derived once from the spec's column table.
//!
//! A point is stored as its index in the spec's point order (a1, b1…b4, c1…c7, …, i1), so a
//! set of points is a `u64` bitboard. Along each of the six directions the indices either
//! only grow (up, up-right, down-right) or only shrink (down, down-left, up-left), so the
//! first occupied point of a line is the lowest or highest set bit of `ray & occupied`.
//!
//! For distances and symmetries a point also has axial lattice coordinates `(q, r)` about the
//! centre e4: `q` is the column offset and `r = (h - q) / 2` with `h` the half-step height
//! offset. In those coordinates the six directions are the six unit vectors of the hexagonal
//! lattice and the symmetries are the 12 linear maps of the lattice that keep the board.
use std::fmt;
use std::sync::OnceLock;

use crate::bitboard::{self, BitCell};

/// Number of points on the board.
pub const POINTS: usize = 43;

/// The columns a–i as (lowest half-step height, number of points), from the spec.
const COLUMNS: [(i8, u8); 9] = [(6, 1), (3, 4), (0, 7), (1, 6), (0, 7), (1, 6), (0, 7), (3, 4), (6, 1)];

/// Side of the square observation grid: axial `q` and `r` both run over −4..=4.
pub const GRID: usize = 9;

/// A point of the board: its index in the spec's point order.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Point(u8);

impl Point {
    /// The point with index `index` in the spec's order, if there is one.
    pub fn new(index: usize) -> Option<Point> {
        (index < POINTS).then_some(Point(index as u8))
    }

    /// All points in the spec's order.
    pub fn all() -> impl Iterator<Item = Point> {
        (0..POINTS as u8).map(Point)
    }

    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    #[inline]
    pub fn bit(self) -> u64 {
        1u64 << self.0
    }

    /// Column letter index (0 for a) and 1-based number within the column.
    pub fn column_and_number(self) -> (u8, u8) {
        let g = geometry();
        (g.column[self.index()], g.number[self.index()])
    }

    /// Axial coordinates about e4.
    pub fn axial(self) -> (i8, i8) {
        geometry().axial[self.index()]
    }

    /// Lattice distance from the centre e4 (the star tips are at 4).
    pub fn distance_from_centre(self) -> u8 {
        let (q, r) = self.axial();
        q.abs().max(r.abs()).max((q + r).abs()) as u8
    }

    /// The neighbouring point in direction `dir`, if any.
    pub fn neighbour(self, dir: Direction) -> Option<Point> {
        geometry().neighbour[self.index()][dir.index()]
    }

    /// The points of the line from `self` in direction `dir`, excluding `self`, as a bitboard.
    #[inline]
    pub fn ray(self, dir: Direction) -> u64 {
        geometry().ray[self.index()][dir.index()]
    }

    /// The direction in which `to` lies on a straight line from `self`, if any.
    pub fn direction_to(self, to: Point) -> Option<Direction> {
        let d = geometry().direction_between[self.index()][to.index()];
        (d != NO_DIRECTION).then_some(Direction(d))
    }

    /// Index of the observation grid cell of this point (`row * GRID + column`).
    pub fn grid_cell(self) -> usize {
        let (q, r) = self.axial();
        (r + 4) as usize * GRID + (q + 4) as usize
    }

    /// Reads a point name such as `e4`.
    pub fn parse(text: &str) -> Option<Point> {
        let mut chars = text.chars();
        let letter = chars.next()?;
        if !letter.is_ascii_lowercase() {
            return None;
        }
        let column = (letter as u8 - b'a') as usize;
        let digits = chars.as_str();
        if digits.is_empty() || digits.len() > 1 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let number: u8 = digits.parse().ok()?;
        let (_, count) = *COLUMNS.get(column)?;
        if number == 0 || number > count {
            return None;
        }
        Some(Point(geometry().column_start[column] + number - 1))
    }
}

impl BitCell for Point {
    #[inline]
    fn from_bit(bit: u8) -> Point {
        debug_assert!((bit as usize) < POINTS, "bit {bit} is no point");
        Point(bit)
    }
}

/// Iterator over the points of a bitboard (the shared one of [`crate::bitboard`]).
pub type Points = bitboard::Cells<Point>;

/// The points of a bitboard, in the spec's order.
#[inline]
pub fn points(set: u64) -> Points {
    Points::new(set)
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (column, number) = self.column_and_number();
        write!(f, "{}{}", (b'a' + column) as char, number)
    }
}

/// One of the six directions, in the spec's order: up, up-right, down-right, down,
/// down-left, up-left. Direction `d` and `(d + 3) % 6` are opposite.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Direction(u8);

const NO_DIRECTION: u8 = u8::MAX;

impl Direction {
    pub const ALL: [Direction; 6] =
        [Direction(0), Direction(1), Direction(2), Direction(3), Direction(4), Direction(5)];

    /// Axial unit vectors of the six directions.
    const AXIAL: [(i8, i8); 6] = [(0, 1), (1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1)];

    pub fn new(index: usize) -> Option<Direction> {
        (index < 6).then_some(Direction(index as u8))
    }

    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// True when point indices grow along this direction.
    #[inline]
    pub fn ascending(self) -> bool {
        self.0 < 3
    }

    fn from_axial(v: (i8, i8)) -> Option<Direction> {
        Self::AXIAL.iter().position(|&a| a == v).map(|d| Direction(d as u8))
    }
}

/// A symmetry of the board as a linear map of axial coordinates: `(q, r) ↦ (a q + b r, c q + d r)`.
type LatticeMap = [i8; 4];

fn map_axial(m: LatticeMap, (q, r): (i8, i8)) -> (i8, i8) {
    (m[0] * q + m[1] * r, m[2] * q + m[3] * r)
}

/// Everything derived from the column table.
pub(crate) struct Geometry {
    column: [u8; POINTS],
    number: [u8; POINTS],
    column_start: [u8; 9],
    axial: [(i8, i8); POINTS],
    neighbour: [[Option<Point>; 6]; POINTS],
    ray: [[u64; 6]; POINTS],
    direction_between: [[u8; POINTS]; POINTS],
    /// For each board symmetry: where each point goes, and where each direction goes.
    pub(crate) symmetry_points: Vec<[Point; POINTS]>,
    pub(crate) symmetry_directions: Vec<[Direction; 6]>,
}

pub(crate) fn geometry() -> &'static Geometry {
    static GEOMETRY: OnceLock<Geometry> = OnceLock::new();
    GEOMETRY.get_or_init(build)
}

fn build() -> Geometry {
    let mut column = [0u8; POINTS];
    let mut number = [0u8; POINTS];
    let mut column_start = [0u8; 9];
    let mut axial = [(0i8, 0i8); POINTS];
    let mut index = 0usize;
    for (x, &(low, count)) in COLUMNS.iter().enumerate() {
        column_start[x] = index as u8;
        for k in 0..count {
            let q = x as i8 - 4;
            let h = low + 2 * k as i8 - 6;
            column[index] = x as u8;
            number[index] = k + 1;
            axial[index] = (q, (h - q) / 2);
            index += 1;
        }
    }
    assert_eq!(index, POINTS, "the column table must give 43 points");
    let at = |v: (i8, i8)| axial.iter().position(|&a| a == v).map(|i| Point(i as u8));

    let mut neighbour = [[None; 6]; POINTS];
    let mut ray = [[0u64; 6]; POINTS];
    let mut direction_between = [[NO_DIRECTION; POINTS]; POINTS];
    for p in 0..POINTS {
        for (d, &(dq, dr)) in Direction::AXIAL.iter().enumerate() {
            let (q, r) = axial[p];
            neighbour[p][d] = at((q + dq, r + dr));
            // A line ends at the first lattice point off the board: a move never leaves it.
            let mut cursor = neighbour[p][d];
            while let Some(point) = cursor {
                ray[p][d] |= point.bit();
                direction_between[p][point.index()] = d as u8;
                let (q, r) = axial[point.index()];
                cursor = at((q + dq, r + dr));
            }
        }
    }

    // The 12 symmetries of the hexagonal lattice are the maps generated by a 60° rotation and
    // a reflection; keep those that send the point set onto itself (the spec's board keeps
    // all 12, which the tests check).
    let rotation: LatticeMap = [0, -1, 1, 1];
    let reflection: LatticeMap = [0, 1, 1, 0];
    let compose = |a: LatticeMap, b: LatticeMap| -> LatticeMap {
        [
            a[0] * b[0] + a[1] * b[2],
            a[0] * b[1] + a[1] * b[3],
            a[2] * b[0] + a[3] * b[2],
            a[2] * b[1] + a[3] * b[3],
        ]
    };
    let mut maps = Vec::new();
    for mirror in [false, true] {
        let mut m: LatticeMap = if mirror { reflection } else { [1, 0, 0, 1] };
        for _ in 0..6 {
            maps.push(m);
            m = compose(rotation, m);
        }
    }
    let mut symmetry_points = Vec::new();
    let mut symmetry_directions = Vec::new();
    for m in maps {
        let image: Option<Vec<Point>> = (0..POINTS).map(|p| at(map_axial(m, axial[p]))).collect();
        let Some(image) = image else { continue };
        let directions: Vec<Direction> = Direction::AXIAL
            .iter()
            .map(|&v| Direction::from_axial(map_axial(m, v)).expect("a lattice symmetry keeps unit vectors"))
            .collect();
        symmetry_points.push(image.try_into().expect("43 points"));
        symmetry_directions.push(directions.try_into().expect("6 directions"));
    }
    Geometry {
        column,
        number,
        column_start,
        axial,
        neighbour,
        ray,
        direction_between,
        symmetry_points,
        symmetry_directions,
    }
}

/// Number of symmetries of the board alone.
pub fn board_symmetry_count() -> usize {
    geometry().symmetry_points.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn point_names_round_trip() {
        for p in Point::all() {
            assert_eq!(Point::parse(&p.to_string()), Some(p));
        }
        assert_eq!(Point::all().next().unwrap().to_string(), "a1");
        assert_eq!(Point::new(42).unwrap().to_string(), "i1");
        assert_eq!(Point::parse("e4").unwrap().distance_from_centre(), 0);
        for bad in ["", "e", "e0", "e8", "j1", "E4", "e44", "a2", "e-1"] {
            assert_eq!(Point::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn ray_order_matches_direction() {
        for p in Point::all() {
            for d in Direction::ALL {
                let ray = p.ray(d);
                if ray == 0 {
                    continue;
                }
                let first = if d.ascending() { ray.trailing_zeros() } else { 63 - ray.leading_zeros() };
                assert_eq!(Some(first as usize), p.neighbour(d).map(Point::index), "{p} {d:?}");
            }
        }
    }
}
