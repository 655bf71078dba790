//! LYNGK (shared/rules/lyngk.md): 43 single pieces of five shared colours, stacked until
//! nobody can move; players claim colours as they go, and a 5-stack topped by your own colour
//! is a point.
//!
//! How it fits together:
//! - [`geometry`]: the 43 points derived from the spec's column table, lines as bitboards and
//!   the 12 board symmetries found by testing lattice maps.
//! - [`stack`]: pieces and stacks packed into small integers.
//! - [`position`]: the position ([`Lyngk`]) and every rule: control of tops, lines to the
//!   first occupied point, landings, LYNGK chains, claims, 5-stacks, passes and the end.
//! - [`turn`]: record notation and the fixed action space (`[claim] start continuation*`).
//! - [`observation`] and [`symmetries`]: the network's view and the 1440 symmetries
//!   (board × colour renamings).
//!
//! The action space, the planes and the seeded set-up are documented in `docs/games/lyngk.md`.
pub mod geometry;
pub mod observation;
pub mod position;
pub mod stack;
pub mod symmetries;
pub mod turn;

use std::fmt::Write;

pub use geometry::{Direction, Point, POINTS};
pub use position::{Lyngk, CANONICAL_PIECES};
pub use stack::{Colour, Piece, Stack};
pub use turn::{Move, Path, Step, Turn, ACTION_COUNT};

use crate::error::TurnError;
use crate::game::{Action, Game, Player, Spec, Status};

static SPEC: Spec = Spec {
    game: "lyngk",
    variant: "lyngk",
    action_count: ACTION_COUNT,
    planes: observation::PLANES,
    height: geometry::GRID,
    width: geometry::GRID,
    symmetry_count: 12 * symmetries::COLOUR_PERMUTATIONS,
};

impl Game for Lyngk {
    type Turn = Turn;

    fn spec(&self) -> &'static Spec {
        &SPEC
    }

    fn to_move(&self) -> Player {
        Lyngk::to_move(self)
    }

    fn status(&self) -> Status {
        Lyngk::status(self)
    }

    fn score(&self) -> [u32; 2] {
        self.removed()
    }

    fn is_turn_start(&self) -> bool {
        Lyngk::is_turn_start(self)
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        Lyngk::legal_actions(self, out)
    }

    fn apply(&mut self, action: Action) {
        Lyngk::apply(self, action)
    }

    fn position_hash(&self) -> u64 {
        Lyngk::position_hash(self)
    }

    fn legal_turns(&self, out: &mut Vec<Turn>) {
        Lyngk::legal_turns(self, out)
    }

    fn turn_actions(&self, turn: &Turn) -> Vec<Action> {
        Lyngk::turn_actions(self, turn)
    }

    fn format_turn(&self, turn: &Turn) -> String {
        turn.to_string()
    }

    fn parse_turn(&self, text: &str) -> Result<Turn, TurnError> {
        Lyngk::parse_turn(self, text)
    }

    /// A fresh game on the set-up drawn from `seed` (see [`Lyngk::from_seed`]).
    fn seeded_start(&self, seed: u64) -> Self {
        Lyngk::from_seed(seed)
    }

    fn setup_text(&self) -> Option<String> {
        Some(self.setup_string()).filter(|setup| !setup.is_empty())
    }

    fn encode(&self, out: &mut [f32]) {
        observation::encode(self, out)
    }

    fn transform(&self, sym: usize) -> Self {
        symmetries::transform(self, sym)
    }

    fn transform_action(&self, sym: usize, action: Action) -> Action {
        symmetries::transform_action(sym, action)
    }

    fn transform_observation(&self, sym: usize, input: &[f32], output: &mut [f32]) {
        symmetries::transform_observation(sym, input, output)
    }

    fn render_text(&self) -> String {
        render(self)
    }

    fn result_text(&self) -> String {
        Lyngk::result_text(self)
    }
}

/// The board as in the spec's drawing (one line per half-step, highest first), each point as
/// `name:stack` with the pieces bottom to top, then claims, scores and whose turn it is.
fn render(position: &Lyngk) -> String {
    const STRIDE: usize = 5;
    let mut rows: Vec<Vec<u8>> = vec![vec![b' '; 9 * STRIDE + 6]; 13];
    for point in Point::all() {
        let (q, r) = point.axial();
        let height = (2 * r + q + 6) as usize;
        let mut stack = position.stack(point);
        if let Some(m) = position.moving.filter(|m| m.origin == point) {
            stack = m.stack;
        }
        let text = if position.moving.is_some_and(|m| m.origin == point) {
            format!("{point}({stack})")
        } else {
            format!("{point}:{stack}")
        };
        let column = (q + 4) as usize * STRIDE;
        let row = &mut rows[12 - height];
        if row.len() < column + text.len() {
            row.resize(column + text.len(), b' ');
        }
        row[column..column + text.len()].copy_from_slice(text.as_bytes());
    }
    let mut out = String::new();
    for row in rows {
        let line = String::from_utf8(row).expect("ASCII drawing");
        let _ = writeln!(out, "{}", line.trim_end());
    }
    for player in Player::BOTH {
        let claims: Vec<String> = Colour::members(position.claims(player)).map(|c| c.to_string()).collect();
        let claims = if claims.is_empty() { "-".to_string() } else { claims.join(" ") };
        let _ = writeln!(
            out,
            "{player}: claims {claims}, 5-stacks removed {}",
            position.removed()[player.index()]
        );
    }
    if let Some(c) = position.claimed_now {
        let _ = writeln!(out, "claimed this turn: {c}");
    }
    if let Some(m) = position.moving {
        let used: Vec<String> = geometry::points(m.used).map(|p| p.to_string()).collect();
        let _ = writeln!(
            out,
            "moving {} from {} (shown in brackets), at LYNGK point {}, used {}",
            m.stack,
            m.origin,
            m.at,
            used.join(" ")
        );
    }
    if position.status().is_over() {
        let _ = writeln!(out, "{}", position.result_text());
    } else {
        let _ = writeln!(out, "to move: {}", position.to_move());
    }
    out
}
