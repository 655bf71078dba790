//! Turns in record notation (`e3`, `c3d4`, `pass`) and their place in the action space.
//!
//! Every DVONN turn is a single decision, so a turn is exactly one action. The action space
//! (see `docs/games/dvonn.md`) is: placements 0..49 (the space's dense index), moves
//! 49..343 (`49 + 6·origin + direction`; the distance is the stack's height, so it needs no
//! index of its own), and the pass, 343.
use std::fmt;

use super::geometry::{Cell, Direction, CELL_COUNT};
use crate::error::TurnError;
use crate::game::Action;

/// First move action.
pub const MOVE_BASE: usize = CELL_COUNT;
/// The pass action.
pub const PASS: usize = MOVE_BASE + 6 * CELL_COUNT;
/// Size of the action space.
pub const ACTION_COUNT: usize = PASS + 1;

/// A DVONN turn as a record writes it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Turn {
    /// Phase 1: put the next piece on an empty space.
    Place(Cell),
    /// Phase 2: move the stack on `from` onto the stack on `to`.
    Move { from: Cell, to: Cell },
    /// Phase 2, only without a legal move.
    Pass,
}

impl fmt::Display for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Turn::Place(cell) => write!(f, "{cell}"),
            Turn::Move { from, to } => write!(f, "{from}{to}"),
            Turn::Pass => f.write_str("pass"),
        }
    }
}

impl Turn {
    /// Reads the notation without looking at a position: `e3`, `c3d4` or `c3-d4`, `pass`,
    /// in either case.
    pub fn parse_syntax(text: &str) -> Result<Turn, TurnError> {
        let expected = "expected a space (e3), a move (c3d4 or c3-d4) or pass";
        if text.eq_ignore_ascii_case("pass") {
            return Ok(Turn::Pass);
        }
        let cell = |part: &str| Cell::from_name(part).map_err(|why| TurnError::Malformed(format!("{why}; {expected}")));
        match (text.len(), text.get(..2), text.get(2..3)) {
            (2, _, _) => Ok(Turn::Place(cell(text)?)),
            (4, Some(from), _) => Ok(Turn::Move { from: cell(from)?, to: cell(&text[2..])? }),
            (5, Some(from), Some("-")) => Ok(Turn::Move { from: cell(from)?, to: cell(&text[3..])? }),
            _ => Err(TurnError::Malformed(format!("\"{text}\": {expected}"))),
        }
    }
}

/// An action decoded without a position: a move is still an origin and a direction.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Decoded {
    Place(Cell),
    Move(Cell, Direction),
    Pass,
}

impl Decoded {
    pub(crate) fn of(action: Action) -> Decoded {
        let index = action.index();
        if index < MOVE_BASE {
            Decoded::Place(Cell::ALL[index])
        } else if index < PASS {
            let k = index - MOVE_BASE;
            Decoded::Move(Cell::ALL[k / 6], Direction::ALL[k % 6])
        } else {
            debug_assert_eq!(index, PASS, "action {index} is outside the DVONN action space");
            Decoded::Pass
        }
    }

    pub(crate) fn action(self) -> Action {
        Action(match self {
            Decoded::Place(cell) => cell.index(),
            Decoded::Move(from, direction) => MOVE_BASE + 6 * from.index() + direction.index(),
            Decoded::Pass => PASS,
        } as u16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_round_trip() {
        for index in 0..ACTION_COUNT {
            let action = Action(index as u16);
            assert_eq!(Decoded::of(action).action(), action);
        }
    }

    #[test]
    fn syntax() {
        let c = |s| Cell::from_name(s).unwrap();
        assert_eq!(Turn::parse_syntax("e3"), Ok(Turn::Place(c("e3"))));
        assert_eq!(Turn::parse_syntax("E3"), Ok(Turn::Place(c("e3"))));
        assert_eq!(Turn::parse_syntax("c3d4"), Ok(Turn::Move { from: c("c3"), to: c("d4") }));
        assert_eq!(Turn::parse_syntax("C3-D4"), Ok(Turn::Move { from: c("c3"), to: c("d4") }));
        assert_eq!(Turn::parse_syntax("PASS"), Ok(Turn::Pass));
        for bad in ["", "e", "a5", "c3d", "c3+d4", "c3--d4", "c3d4e5", "é3", "c3dé", "passe", "-"] {
            assert!(matches!(Turn::parse_syntax(bad), Err(TurnError::Malformed(_))), "{bad}");
        }
    }
}
