//! ZÈRTZ (shared/rules/zertz.md): marbles placed on a shrinking board of rings.
//!
//! How the pieces fit:
//! - [`geometry`] derives each board from the spec's column table: cells are bits of a `u64`,
//!   neighbours are shifts, symmetries are found by testing the lattice's twelve operations.
//! - [`position`] holds the position ([`Zertz`]) and the rules over bitboards: the action
//!   layer used by the search (place, remove, jump, pass) and the turn layer used by records.
//! - [`notation`] reads and writes the official notation (`Wd4,d1`, `xd1Gd3Wd5`, `pass`).
//! - [`Setup`] builds and validates arbitrary positions (tests, puzzles, the search's tests).
//!
//! The action space, observation planes and the repetition bookkeeping are documented in
//! `docs/games/zertz.md`.
mod geometry;
mod notation;
mod observation;
mod position;
mod setup;
mod symmetries;
mod turn;

use std::fmt;
use std::sync::OnceLock;

pub use geometry::Cell;
pub use observation::PLANES;
pub use position::Zertz;
pub use turn::Turn;
pub use setup::Setup;

use crate::error::{SetupError, TurnError};
use crate::game::{Action, Game, Player, Spec, Status};
use position::Phase;
use geometry::Geometry;

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

    pub(crate) fn rules(self) -> &'static Rules {
        static RULES: [OnceLock<Rules>; 7] = [const { OnceLock::new() }; 7];
        let index = Variant::ALL
            .iter()
            .position(|&v| v == self)
            .expect("every variant is listed");
        RULES[index].get_or_init(|| Rules::new(self))
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

/// What a variant fixes: board, marbles, goals, the network contract.
#[derive(Debug)]
pub(crate) struct Rules {
    pub variant: Variant,
    pub geometry: Geometry,
    pub spec: Spec,
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
        let spec = Spec {
            game: "zertz",
            variant: variant.name(),
            action_count: turn::action_count(geometry.cells),
            planes: PLANES,
            height: geometry.height,
            width: geometry.width,
            symmetry_count: geometry.symmetries.len(),
        };
        Rules {
            variant,
            geometry,
            spec,
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

impl Game for Zertz {
    type Turn = Turn;

    fn spec(&self) -> &'static Spec {
        &self.rules.spec
    }

    fn to_move(&self) -> Player {
        self.to_move
    }

    fn status(&self) -> Status {
        self.status
    }

    fn score(&self) -> [u32; 2] {
        self.captures.map(|c| c.iter().map(|&n| n as u32).sum())
    }

    fn is_turn_start(&self) -> bool {
        self.phase == Phase::TurnStart
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        Zertz::write_actions(self, out)
    }

    fn apply(&mut self, action: Action) {
        Zertz::apply_action(self, action)
    }

    fn position_hash(&self) -> u64 {
        Zertz::hash64(self)
    }

    fn legal_turns(&self, out: &mut Vec<Turn>) {
        Zertz::write_turns(self, out)
    }

    fn turn_actions(&self, turn: &Turn) -> Vec<Action> {
        Zertz::turn_actions(self, turn)
    }

    fn format_turn(&self, turn: &Turn) -> String {
        notation::format_turn(self, turn)
    }

    fn parse_turn(&self, text: &str) -> Result<Turn, TurnError> {
        notation::parse_turn(self, text)
    }

    fn split_turns<'a>(&self, text: &'a str) -> Vec<&'a str> {
        notation::split_turns(text)
    }

    fn encode(&self, out: &mut [f32]) {
        self.encode_planes(out)
    }

    fn transform(&self, sym: usize) -> Zertz {
        symmetries::transform(self, sym)
    }

    fn transform_action(&self, sym: usize, action: Action) -> Action {
        symmetries::transform_action(self, sym, action)
    }

    fn transform_observation(&self, sym: usize, input: &[f32], output: &mut [f32]) {
        symmetries::transform_observation(self, sym, input, output)
    }

    fn render_text(&self) -> String {
        Zertz::render_text(self)
    }

    fn result_text(&self) -> String {
        Zertz::result_text(self)
    }
}
