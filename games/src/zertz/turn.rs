//! Turns and their place in the fixed action space.
//!
//! A ZÈRTZ turn ([`Turn`]) is a placement with the removal of a free ring, a chain of jumps,
//! or a pass; the search sees it as a short sequence of decisions ([`Step`]) from a fixed
//! action space (see `docs/games/zertz.md`; `n` cells on the variant's board): placements
//! `colour · n + cell`, removals `3n + cell`, jumps `4n + 6 · cell + direction`, and the pass,
//! `10n`. Neither needs a position, so this module knows nothing of one; the record notation
//! is in [`super::notation`], because reading a ZÈRTZ turn means checking it against the
//! position step by step.
use super::geometry::{Cell, DIRECTIONS};
use super::variant::Colour;
use crate::game::Action;

/// A whole turn as a player states it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Turn {
    /// A marble from the pool (or, with the pool empty, from the mover's captures) on a vacant
    /// ring, and the free ring removed (`None` when no ring is free).
    Place {
        colour: Colour,
        cell: Cell,
        removed: Option<Cell>,
    },
    /// The marble on `start` jumps, landing on each of `landings` in turn.
    Capture { start: Cell, landings: Vec<Cell> },
    /// Only when no other turn is possible.
    Pass,
}

/// One decision of the action space (see `docs/games/zertz.md`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    Place(Colour, Cell),
    Remove(Cell),
    Jump(Cell, usize),
    Pass,
}

/// Size of the action space of a board of `cells` cells.
pub(crate) const fn action_count(cells: usize) -> usize {
    10 * cells + 1
}

impl Step {
    /// The action of this step on a board of `n` cells.
    pub(crate) fn action(self, n: usize) -> Action {
        let index = match self {
            Step::Place(colour, cell) => colour.index() * n + cell.index(),
            Step::Remove(cell) => 3 * n + cell.index(),
            Step::Jump(cell, d) => 4 * n + cell.index() * DIRECTIONS + d,
            Step::Pass => 10 * n,
        };
        Action(index as u16)
    }

    /// The step `action` stands for on a board of `n` cells.
    pub(crate) fn of(action: Action, n: usize) -> Step {
        let a = action.index();
        if a < 3 * n {
            Step::Place(Colour::ALL[a / n], Cell((a % n) as u8))
        } else if a < 4 * n {
            Step::Remove(Cell((a - 3 * n) as u8))
        } else if a < 10 * n {
            let j = a - 4 * n;
            Step::Jump(Cell((j / DIRECTIONS) as u8), j % DIRECTIONS)
        } else {
            Step::Pass
        }
    }
}
