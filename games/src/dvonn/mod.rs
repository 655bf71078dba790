//! DVONN (shared/rules/dvonn.md): 49 pieces placed one by one, then stacked until nobody can
//! move; whatever loses touch with the three DVONN pieces leaves the game.
//!
//! How it fits together:
//! - [`geometry`]: the board as bits of an 11 × 5 grid, so neighbours are bit shifts and the
//!   "joined to a DVONN piece" test after every move is a flood fill over whole bitboards.
//! - [`position`]: the position ([`Dvonn`]) and the rules; a stack is kept as its height, its
//!   top piece and whether it holds a DVONN piece, which is all the rules ever ask of it.
//! - [`turn`]: record notation and the fixed action space (a turn is always one action).
//! - [`observation`] and [`symmetries`]: the network's view and the board's four symmetries.
//!
//! The layout of the action space and of the planes is documented in `docs/games/dvonn.md`.
pub mod geometry;
pub mod observation;
pub mod position;
pub mod symmetries;
pub mod turn;

pub use geometry::{Cell, Direction};
pub use position::{colour_name, Dvonn, Piece, Stack};
pub use turn::{Turn, ACTION_COUNT};

use crate::error::TurnError;
use crate::game::{Action, Game, Player, Spec, Status};
use crate::symmetry::permute_planes;

static SPEC: Spec = Spec {
    game: "dvonn",
    variant: "dvonn",
    action_count: ACTION_COUNT,
    planes: observation::PLANES,
    height: geometry::HEIGHT,
    width: geometry::WIDTH,
    symmetry_count: 4,
};

/// The plane map of the observation symmetries: planes stay where they are.
static IDENTITY_PLANES: [u16; observation::PLANES] = {
    let mut planes = [0u16; observation::PLANES];
    let mut p = 0;
    while p < observation::PLANES {
        planes[p] = p as u16;
        p += 1;
    }
    planes
};

impl Game for Dvonn {
    type Turn = Turn;

    fn spec(&self) -> &'static Spec {
        &SPEC
    }

    fn to_move(&self) -> Player {
        Dvonn::to_move(self)
    }

    fn status(&self) -> Status {
        Dvonn::status(self)
    }

    fn score(&self) -> [u32; 2] {
        Dvonn::score(self)
    }

    fn is_turn_start(&self) -> bool {
        true
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        Dvonn::write_actions(self, out)
    }

    fn apply(&mut self, action: Action) {
        Dvonn::apply_action(self, action)
    }

    fn position_hash(&self) -> u64 {
        Dvonn::hash64(self)
    }

    fn legal_turns(&self, out: &mut Vec<Turn>) {
        self.write_turns(out)
    }

    fn turn_actions(&self, turn: &Turn) -> Vec<Action> {
        vec![self.turn_action(*turn)]
    }

    fn format_turn(&self, turn: &Turn) -> String {
        turn.to_string()
    }

    fn parse_turn(&self, text: &str) -> Result<Turn, TurnError> {
        let turn = Turn::parse_syntax(text)?;
        self.check_turn(turn)?;
        Ok(turn)
    }

    /// LittleGolem records leave out the forced 49th placement: when one space is left
    /// empty and the record already shows a move or a pass, that placement comes first.
    fn implied_turn_before(&self, next: &str) -> Option<Turn> {
        let cell = self.last_empty_space()?;
        match Turn::parse_syntax(next) {
            Ok(Turn::Move { .. } | Turn::Pass) => Some(Turn::Place(cell)),
            _ => None,
        }
    }

    fn encode(&self, out: &mut [f32]) {
        self.encode_planes(out)
    }

    fn transform(&self, sym: usize) -> Dvonn {
        Dvonn::transformed(self, &symmetries::symmetries()[sym])
    }

    fn transform_action(&self, sym: usize, action: Action) -> Action {
        let sym = &symmetries::symmetries()[sym];
        match turn::Decoded::of(action) {
            turn::Decoded::Place(cell) => turn::Decoded::Place(sym.cell(cell)),
            turn::Decoded::Move(from, direction) => {
                turn::Decoded::Move(sym.cell(from), sym.direction[direction.index()])
            }
            turn::Decoded::Pass => turn::Decoded::Pass,
        }
        .action()
    }

    fn transform_observation(&self, sym: usize, input: &[f32], output: &mut [f32]) {
        permute_planes(input, output, &symmetries::symmetries()[sym].grid, &IDENTITY_PLANES)
    }

    fn render_text(&self) -> String {
        Dvonn::render_text(self)
    }

    fn result_text(&self) -> String {
        Dvonn::result_text(self)
    }
}
