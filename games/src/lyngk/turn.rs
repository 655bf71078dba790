//! Turns, their record notation, and the fixed action space.
//!
//! A turn is an optional claim plus one move written as its path of points (start, every
//! LYNGK point, landing), or a pass. The search sees the same turn as a short sequence of
//! actions: `[claim] start continuation*`. A start names the origin and the first direction;
//! each continuation names the direction taken from the current LYNGK point. Whether the
//! point a line reaches is a landing or a LYNGK point is decided by the position (a point
//! topped by the moving colour can never be landed on), so directions alone spell the path.
use std::fmt;

use super::geometry::{Direction, Point, POINTS};
use super::stack::Colour;
use crate::game::Action;

/// Actions 0–4: claim a colour.
pub const CLAIM_BASE: u16 = 0;
/// Actions 5–262: start a move from an origin point in a first direction (`origin * 6 + dir`).
pub const START_BASE: u16 = CLAIM_BASE + Colour::COUNT as u16;
/// Actions 263–268: go on from the current LYNGK point in a direction.
pub const CONTINUE_BASE: u16 = START_BASE + (POINTS * 6) as u16;
/// Action 269: pass.
pub const PASS: u16 = CONTINUE_BASE + 6;
/// Size of the action space.
pub const ACTION_COUNT: usize = PASS as usize + 1;

/// One action decoded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Claim(Colour),
    Start(Point, Direction),
    Continue(Direction),
    Pass,
}

impl Step {
    pub fn action(self) -> Action {
        Action(match self {
            Step::Claim(c) => CLAIM_BASE + c.index() as u16,
            Step::Start(p, d) => START_BASE + (p.index() * 6 + d.index()) as u16,
            Step::Continue(d) => CONTINUE_BASE + d.index() as u16,
            Step::Pass => PASS,
        })
    }

    /// Decodes an action of the action space (`None` outside it).
    pub fn from_action(action: Action) -> Option<Step> {
        let a = action.0;
        Some(if a < START_BASE {
            Step::Claim(Colour::new((a - CLAIM_BASE) as usize)?)
        } else if a < CONTINUE_BASE {
            let i = (a - START_BASE) as usize;
            Step::Start(Point::new(i / 6)?, Direction::new(i % 6)?)
        } else if a < PASS {
            Step::Continue(Direction::new((a - CONTINUE_BASE) as usize)?)
        } else if a == PASS {
            Step::Pass
        } else {
            return None;
        })
    }
}

/// The most points a path can have: the start, a LYNGK point for each of the (at most 7)
/// other stacks topped by the moving colour, and the landing.
pub const MAX_PATH: usize = 9;

/// The points of one move: start, LYNGK points, landing. Unused slots stay at `a1` so that
/// equal paths compare and hash equal.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Path {
    len: u8,
    points: [Point; MAX_PATH],
}

impl Path {
    pub fn new(points: &[Point]) -> Option<Path> {
        if points.len() < 2 || points.len() > MAX_PATH {
            return None;
        }
        let mut path = Path::default();
        for &p in points {
            path.push(p);
        }
        Some(path)
    }

    pub fn points(&self) -> &[Point] {
        &self.points[..self.len as usize]
    }

    pub(crate) fn push(&mut self, point: Point) {
        self.points[self.len as usize] = point;
        self.len += 1;
    }

    pub(crate) fn pop(&mut self) {
        self.len -= 1;
        self.points[self.len as usize] = Point::default();
    }

    pub fn start(&self) -> Point {
        self.points[0]
    }

    pub fn landing(&self) -> Point {
        self.points[self.len as usize - 1]
    }

    /// The LYNGK points passed through.
    pub fn lyngk_points(&self) -> &[Point] {
        &self.points[1..self.len as usize - 1]
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.points().iter().enumerate() {
            if i > 0 {
                f.write_str("-")?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

/// A move with the claim made before it, if any.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub claim: Option<Colour>,
    pub path: Path,
}

/// A whole turn.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Turn {
    Move(Move),
    Pass,
}

impl fmt::Display for Turn {
    /// Record notation: `b1-b2`, `b4-b1-c3-e2`, `R,b1-b2`, `pass`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Turn::Pass => f.write_str("pass"),
            Turn::Move(m) => {
                if let Some(c) = m.claim {
                    write!(f, "{c},")?;
                }
                write!(f, "{}", m.path)
            }
        }
    }
}

/// Reads a turn in record notation without checking it against a position; every refusal
/// says what was expected.
pub fn parse_turn_text(text: &str) -> Result<Turn, String> {
    if text == "pass" {
        return Ok(Turn::Pass);
    }
    let (claim, rest) = match text.split_once(',') {
        Some((letter, rest)) => {
            let mut chars = letter.chars();
            let colour = match (chars.next(), chars.next()) {
                (Some(l), None) => Colour::from_letter(l),
                _ => None,
            };
            let Some(colour) = colour else {
                return Err(format!(
                    "\"{letter}\" before the comma is not a colour to claim (expected one of I, B, R, G, K)"
                ));
            };
            (Some(colour), rest)
        }
        None => (None, text),
    };
    let mut points = Vec::new();
    for name in rest.split('-') {
        let Some(point) = Point::parse(name) else {
            return Err(format!(
                "\"{name}\" is not a point (expected a column a–i and a number, like e4)"
            ));
        };
        points.push(point);
    }
    if points.len() < 2 {
        return Err(format!(
            "\"{text}\": a move needs at least a start and a landing point joined by '-' (like b1-b2), or 'pass'"
        ));
    }
    let path = Path::new(&points).ok_or_else(|| {
        format!("\"{text}\": a path has at most {MAX_PATH} points (start, LYNGK points, landing)")
    })?;
    Ok(Turn::Move(Move { claim, path }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_decode_to_what_encoded_them() {
        for a in 0..ACTION_COUNT as u16 {
            let step = Step::from_action(Action(a)).unwrap();
            assert_eq!(step.action(), Action(a));
        }
        assert_eq!(Step::from_action(Action(ACTION_COUNT as u16)), None);
    }

    #[test]
    fn notation_reads_claims_paths_and_passes() {
        assert_eq!(parse_turn_text("pass"), Ok(Turn::Pass));
        let t = parse_turn_text("R,b1-b2").unwrap();
        assert_eq!(t.to_string(), "R,b1-b2");
        assert_eq!(parse_turn_text("b4-b1-c3-e2").unwrap().to_string(), "b4-b1-c3-e2");
        for bad in ["", "b1", "b1-", "W,b1-b2", "RB,b1-b2", "b1-z9", "Pass", "b1--b2", ",b1-b2"] {
            assert!(parse_turn_text(bad).is_err(), "{bad}");
        }
    }
}
