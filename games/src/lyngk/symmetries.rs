//! The 1440 symmetries of LYNGK: the 12 symmetries of the board times the 120 renamings of
//! the five colours. Colours are interchangeable in the rules (only "same" and "claimed by
//! whom" matter), so renaming them everywhere at once — pieces and claims — gives an
//! equivalent position; jokers stay jokers.
//!
//! Symmetry `k` is board symmetry `k / 120` (indexed as derived in [`super::geometry`],
//! identity first) followed by colour permutation `k % 120` (the permutations of `IBRGK` in
//! lexicographic order, identity first).
use std::sync::OnceLock;

use super::geometry::{board_symmetry_count, geometry, Direction, Point, GRID, POINTS};
use super::observation;
use super::position::Lyngk;
use super::stack::{Colour, Piece, Stack};
use super::turn::Step;
use crate::game::Action;

/// Number of colour permutations.
pub const COLOUR_PERMUTATIONS: usize = 120;

struct Tables {
    colour_maps: Vec<[Colour; 5]>,
    plane_maps: Vec<Vec<u16>>,
    cell_maps: Vec<Vec<u16>>,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut colour_maps = Vec::new();
        permutations(&mut Vec::new(), &mut colour_maps);
        let plane_maps = colour_maps.iter().map(observation::plane_map).collect();
        let cell_maps = geometry()
            .symmetry_points
            .iter()
            .map(|image| {
                let mut cells: Vec<u16> = (0..(GRID * GRID) as u16).collect();
                for p in Point::all() {
                    cells[p.grid_cell()] = image[p.index()].grid_cell() as u16;
                }
                cells
            })
            .collect();
        Tables { colour_maps, plane_maps, cell_maps }
    })
}

/// All permutations of the five colours in lexicographic order.
fn permutations(prefix: &mut Vec<Colour>, out: &mut Vec<[Colour; 5]>) {
    if prefix.len() == Colour::COUNT {
        out.push(prefix.clone().try_into().expect("five colours"));
        return;
    }
    for c in Colour::ALL {
        if !prefix.contains(&c) {
            prefix.push(c);
            permutations(prefix, out);
            prefix.pop();
        }
    }
}

/// Number of symmetries (board × colours).
pub fn symmetry_count() -> usize {
    board_symmetry_count() * COLOUR_PERMUTATIONS
}

/// The colour renaming of symmetry `sym`.
pub fn colour_map(sym: usize) -> [Colour; 5] {
    tables().colour_maps[sym % COLOUR_PERMUTATIONS]
}

fn point_map(sym: usize) -> &'static [Point; POINTS] {
    &geometry().symmetry_points[sym / COLOUR_PERMUTATIONS]
}

fn direction_map(sym: usize) -> &'static [Direction; 6] {
    &geometry().symmetry_directions[sym / COLOUR_PERMUTATIONS]
}

fn recolour_set(set: u8, map: &[Colour; 5]) -> u8 {
    Colour::members(set).fold(0, |acc, c| acc | map[c.index()].bit())
}

fn move_bits(bits: u64, points: &[Point; POINTS]) -> u64 {
    super::geometry::points(bits).fold(0, |acc, p| acc | points[p.index()].bit())
}

/// The position seen through symmetry `sym`.
pub fn transform(position: &Lyngk, sym: usize) -> Lyngk {
    let points = point_map(sym);
    let colours = colour_map(sym);
    let mut out = position.clone();
    out.stacks = [Stack::EMPTY; POINTS];
    for p in Point::all() {
        out.stacks[points[p.index()].index()] = position.stacks[p.index()].recoloured(&colours);
        if position.setup[0] != 0 {
            let letter = Piece::from_letter(position.setup[p.index()] as char).expect("set-up letters");
            let letter = Stack::single(letter).recoloured(&colours).top().letter();
            out.setup[points[p.index()].index()] = letter as u8;
        }
    }
    out.occupied = move_bits(position.occupied, points);
    out.claims = position.claims.map(|set| recolour_set(set, &colours));
    out.claimed_now = position.claimed_now.map(|c| colours[c.index()]);
    if let Some(m) = &mut out.moving {
        m.origin = points[m.origin.index()];
        m.at = points[m.at.index()];
        m.used = move_bits(m.used, points);
        m.stack = m.stack.recoloured(&colours);
    }
    out
}

/// The action that corresponds to `action` after symmetry `sym`.
pub fn transform_action(sym: usize, action: Action) -> Action {
    match Step::from_action(action) {
        Some(Step::Claim(c)) => Step::Claim(colour_map(sym)[c.index()]).action(),
        Some(Step::Start(p, d)) => Step::Start(point_map(sym)[p.index()], direction_map(sym)[d.index()]).action(),
        Some(Step::Continue(d)) => Step::Continue(direction_map(sym)[d.index()]).action(),
        Some(Step::Pass) | None => action,
    }
}

/// Maps observation planes through symmetry `sym`.
pub fn transform_observation(sym: usize, input: &[f32], output: &mut [f32]) {
    let t = tables();
    crate::symmetry::permute_planes(
        input,
        output,
        &t.cell_maps[sym / COLOUR_PERMUTATIONS],
        &t.plane_maps[sym % COLOUR_PERMUTATIONS],
    );
}
