//! ZÈRTZ (shared/rules/zertz.md): marbles placed on a shrinking board of rings.
//!
//! How it fits together (the layout of [`crate::dvonn`] and [`crate::lyngk`]):
//! - `geometry`: each board derived from the spec's column table: cells are bits of a `u64`,
//!   neighbours are shifts, symmetries are found by testing the lattice's twelve operations.
//! - `variant`: the spec's variant table ([`Variant`]: board, marbles, goals) and the marble
//!   [`Colour`]s.
//! - `turn`: whole turns ([`Turn`]) and the fixed action space (place, remove, jump, pass).
//! - `position`: the position ([`Zertz`]) and the rules over bitboards: the action layer
//!   used by the search and the turn layer used by records.
//! - `notation`: the official notation (`Wd4,d1`, `xd1Gd3Wd5`, `pass`). Unlike DVONN's and
//!   LYNGK's it is not in `turn`: reading a turn checks it step by step on the position, so
//!   it sits above `position`, which knows nothing of it.
//! - `observation` and `symmetries`: the network's view and the board's symmetries.
//! - `setup`: [`Setup`] builds and validates arbitrary positions (tests, puzzles, the
//!   search's tests).
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
mod variant;

use std::sync::OnceLock;

pub use geometry::Cell;
pub use observation::PLANES;
pub use position::Zertz;
pub use setup::Setup;
pub use turn::Turn;
pub use variant::{Colour, Variant};

use crate::error::TurnError;
use crate::game::{Action, Game, Player, Spec, Status};
use position::Phase;

/// The network contract of `variant` (the `SPEC` of the other engines, one per variant).
fn spec(variant: Variant) -> &'static Spec {
    const VARIANTS: usize = Variant::ALL.len();
    static SPECS: [OnceLock<Spec>; VARIANTS] = [const { OnceLock::new() }; VARIANTS];
    SPECS[variant.index()].get_or_init(|| {
        let geometry = &variant.rules().geometry;
        Spec {
            game: "zertz",
            variant: variant.name(),
            action_count: turn::action_count(geometry.cells),
            planes: PLANES,
            height: geometry.height,
            width: geometry.width,
            symmetry_count: geometry.symmetries.len(),
        }
    })
}

impl Game for Zertz {
    type Turn = Turn;

    fn spec(&self) -> &'static Spec {
        spec(self.rules.variant)
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
