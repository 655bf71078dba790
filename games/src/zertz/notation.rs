//! The official ZÈRTZ notation: `Wd4,d1` (place white on d4, remove d1), `Wd4` (no free
//! ring), `xd1Gd3Wd5` (the marble on d1 jumps over grey to d3, then over white to d5), `pass`.
//!
//! Reading checks legality step by step through the action layer, so an illegal turn is
//! refused with the rule it breaks. The official form `x d1Gd3` (space after `x`) and an
//! isolation note after a placement (`Wd4,d1 x Wa1Wa2`) are accepted; the note is checked
//! against the marbles the placement actually isolates. A capture's text names its start and
//! every landing, which fixes each jump, so two different capture sequences never share a text.
//!
//! Why a module of its own rather than part of [`super::turn`] (where DVONN and LYNGK keep
//! their notation): reading plays the turn on a copy of the position and writing a capture
//! names the marbles it jumps, so the notation sits above [`super::position`], which knows
//! nothing of it.
use super::geometry::{cells, Cell};
use super::position::Zertz;
use super::turn::{Step, Turn};
use super::variant::Colour;
use crate::error::TurnError;
use crate::game::{Action, Game};

pub(crate) fn format_turn(position: &Zertz, turn: &Turn) -> String {
    let geometry = position.geometry();
    match turn {
        Turn::Place {
            colour,
            cell,
            removed,
        } => {
            let mut text = format!("{}{}", colour.letter(), geometry.name(*cell));
            if let Some(removed) = removed {
                text.push(',');
                text.push_str(&geometry.name(*removed));
            }
            text
        }
        Turn::Capture { start, landings } => {
            let mut text = format!("x{}", geometry.name(*start));
            let mut at = *start;
            for &landing in landings {
                let over = geometry
                    .jump_direction(at, landing)
                    .and_then(|d| geometry.step(at, d))
                    .and_then(|over| position.marble(over));
                let letter = over.map_or('?', |c| c.letter());
                text.push(letter);
                text.push_str(&geometry.name(landing));
                at = landing;
            }
            text
        }
        Turn::Pass => "pass".to_string(),
    }
}

/// A placement token's first character is a colour; an isolation note is `x` then a colour.
fn is_isolation_note(token: &str) -> bool {
    token
        .strip_prefix('x')
        .is_some_and(|rest| rest.trim_start().starts_with(['W', 'G', 'B']))
}

/// Splits a record line into turns: a lone `x` joins the token after it (`x d1Gd3`), and an
/// isolation note joins the placement before it (`Wd4,d1 x Wa1Wa2`).
pub(crate) fn split_turns(text: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut start = None;
    for (i, ch) in text.char_indices() {
        match (ch.is_whitespace(), start) {
            (true, Some(s)) => {
                words.push((s, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        words.push((s, text.len()));
    }
    let mut turns: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let (s, mut e) = words[i];
        if &text[s..e] == "x" && i + 1 < words.len() {
            e = words[i + 1].1;
            i += 1;
        }
        i += 1;
        let after_placement = turns
            .last()
            .is_some_and(|&(ps, _)| text[ps..].starts_with(['W', 'G', 'B']));
        match turns.last_mut() {
            Some(last) if after_placement && is_isolation_note(&text[s..e]) => last.1 = e,
            _ => turns.push((s, e)),
        }
    }
    turns.into_iter().map(|(s, e)| &text[s..e]).collect()
}

/// A cursor over one turn's text.
struct Reader<'a> {
    position: &'a Zertz,
    text: &'a str,
    at: usize,
}

impl Reader<'_> {
    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    fn malformed(&self, expected: &str) -> TurnError {
        let found = match self.rest().chars().next() {
            Some(ch) => format!("'{ch}'"),
            None => "the end".to_string(),
        };
        TurnError::Malformed(format!(
            "\"{}\": expected {expected} at position {}, found {found}",
            self.text,
            self.at + 1
        ))
    }

    fn skip_spaces(&mut self) {
        let rest = self.rest();
        self.at += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, ch: char) -> bool {
        if self.rest().starts_with(ch) {
            self.at += ch.len_utf8();
            true
        } else {
            false
        }
    }

    fn at_end(&self) -> bool {
        self.rest().is_empty()
    }

    fn colour(&mut self) -> Result<Colour, TurnError> {
        match self.rest().chars().next().and_then(Colour::from_letter) {
            Some(colour) => {
                self.at += 1;
                Ok(colour)
            }
            None => Err(self.malformed("a colour W, G or B")),
        }
    }

    fn cell(&mut self) -> Result<Cell, TurnError> {
        let rest = self.rest();
        let mut len = 0;
        if rest.starts_with(|c: char| c.is_ascii_lowercase()) {
            len = 1 + rest[1..].bytes().take_while(u8::is_ascii_digit).count();
        }
        if len < 2 {
            return Err(self.malformed("a cell such as d4"));
        }
        let name = &rest[..len];
        let geometry = self.position.geometry();
        let cell = geometry.cell(name).ok_or_else(|| {
            TurnError::Malformed(format!(
                "\"{}\": {name} is not a cell of the {}-ring board",
                self.text, geometry.cells
            ))
        })?;
        self.at += len;
        Ok(cell)
    }

    /// One or more `colour cell` pairs up to the end of the text.
    fn pairs(&mut self) -> Result<Vec<(Colour, Cell)>, TurnError> {
        let mut pairs = Vec::new();
        loop {
            pairs.push((self.colour()?, self.cell()?));
            if self.at_end() {
                return Ok(pairs);
            }
        }
    }
}

/// What the text says, before any rule is checked.
enum Written {
    Pass,
    Place {
        colour: Colour,
        cell: Cell,
        removed: Option<Cell>,
        note: Option<Vec<(Colour, Cell)>>,
    },
    Capture {
        start: Cell,
        jumps: Vec<(Colour, Cell)>,
    },
}

fn read(position: &Zertz, text: &str) -> Result<Written, TurnError> {
    if text == "pass" {
        return Ok(Written::Pass);
    }
    let mut reader = Reader {
        position,
        text,
        at: 0,
    };
    if reader.eat('x') {
        reader.skip_spaces();
        let start = reader.cell()?;
        let jumps = reader.pairs()?;
        return Ok(Written::Capture { start, jumps });
    }
    let colour = reader.colour()?;
    let cell = reader.cell()?;
    let removed = if reader.eat(',') {
        Some(reader.cell()?)
    } else {
        None
    };
    reader.skip_spaces();
    let note = if reader.at_end() {
        None
    } else if reader.eat('x') {
        reader.skip_spaces();
        Some(reader.pairs()?)
    } else {
        return Err(reader.malformed("',' and a ring, or an isolation note \"x Wa1…\""));
    };
    Ok(Written::Place {
        colour,
        cell,
        removed,
        note,
    })
}

fn illegal(message: String) -> TurnError {
    TurnError::Illegal(message)
}

/// Applies `step` to `position` if it is among its legal actions.
fn try_step(position: &mut Zertz, step: Step, legal: &mut Vec<Action>) -> bool {
    position.legal_actions(legal);
    if legal.contains(&position.action(step)) {
        position.apply_step(step);
        true
    } else {
        false
    }
}

fn names(position: &Zertz, set: impl Iterator<Item = Cell>) -> String {
    set.map(|c| position.cell_name(c))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(crate) fn parse_turn(position: &Zertz, text: &str) -> Result<Turn, TurnError> {
    let text = text.trim();
    let written = read(position, text)?;
    if position.status().is_over() {
        return Err(illegal("the game is over".into()));
    }
    if !position.is_turn_start() {
        return Err(illegal("the position is inside a turn".into()));
    }
    let name = |cell: Cell| position.cell_name(cell);
    let mut legal = Vec::new();
    position.legal_actions(&mut legal);
    let pass_only = legal == [position.action(Step::Pass)];
    let can_capture = legal
        .iter()
        .any(|&a| matches!(position.step_of(a), Step::Jump(..)));
    let mut after = position.clone();
    match written {
        Written::Pass => {
            if pass_only {
                Ok(Turn::Pass)
            } else {
                Err(illegal(
                    "a pass is allowed only when no other turn is possible".into(),
                ))
            }
        }
        Written::Place {
            colour,
            cell,
            removed,
            note,
        } => {
            if can_capture {
                return Err(illegal(
                    "a capture is possible, and capturing is compulsory".into(),
                ));
            }
            if !position.has_ring(cell) {
                return Err(illegal(format!("{} has no ring any more", name(cell))));
            }
            if let Some(on) = position.marble(cell) {
                return Err(illegal(format!(
                    "{} already holds a {on} marble",
                    name(cell)
                )));
            }
            if !try_step(&mut after, Step::Place(colour, cell), &mut legal) {
                return Err(illegal(if position.pool().iter().any(|&n| n > 0) {
                    format!("no {colour} marble is left in the pool")
                } else {
                    format!(
                        "the pool is empty and {} holds no {colour} marble",
                        position.to_move()
                    )
                }));
            }
            match (after.must_remove(), removed) {
                (true, None) => {
                    return Err(illegal(format!(
                        "a free ring must be removed (free: {})",
                        names(&after, cells(after.free_rings()))
                    )))
                }
                (false, Some(r)) => {
                    return Err(illegal(format!(
                        "no ring is free after placing, so {} cannot be removed",
                        name(r)
                    )))
                }
                (true, Some(r)) => {
                    if !try_step(&mut after, Step::Remove(r), &mut legal) {
                        return Err(illegal(format!(
                            "{} is not a free ring (free: {})",
                            name(r),
                            names(&after, cells(after.free_rings()))
                        )));
                    }
                }
                (false, None) => {}
            }
            if let Some(mut note) = note {
                let mut isolated: Vec<(Colour, Cell)> = Vec::new();
                for c in Colour::ALL {
                    let before =
                        position.marbles[c.index()] | if c == colour { cell.bit() } else { 0 };
                    isolated.extend(cells(before & !after.marbles[c.index()]).map(|x| (c, x)));
                }
                note.sort();
                isolated.sort();
                if note != isolated {
                    let show = |list: &[(Colour, Cell)]| {
                        let text: String = list
                            .iter()
                            .map(|&(c, x)| format!("{}{}", c.letter(), name(x)))
                            .collect();
                        if text.is_empty() {
                            "nothing".to_string()
                        } else {
                            text
                        }
                    };
                    return Err(illegal(format!(
                        "the isolation note says {} but the placement isolates {}",
                        show(&note),
                        show(&isolated)
                    )));
                }
            }
            Ok(Turn::Place {
                colour,
                cell,
                removed,
            })
        }
        Written::Capture { start, jumps } => {
            if !can_capture {
                return Err(illegal("no capture is possible here".into()));
            }
            let geometry = position.geometry();
            let mut at = start;
            for (i, &(colour, landing)) in jumps.iter().enumerate() {
                if i > 0 && after.jumping_marble() != Some(at) {
                    return Err(illegal(format!(
                        "the capture ends on {}: no further jump",
                        name(at)
                    )));
                }
                let d = geometry.jump_direction(at, landing).ok_or_else(|| {
                    illegal(format!(
                        "{} is not two steps in a line from {}",
                        name(landing),
                        name(at)
                    ))
                })?;
                let over = geometry.step(at, d).expect("a jump passes over a cell");
                let jumped = after.marble(over);
                if !try_step(&mut after, Step::Jump(at, d), &mut legal) {
                    return Err(illegal(format!(
                        "the marble on {} cannot jump to {}",
                        name(at),
                        name(landing)
                    )));
                }
                let jumped = jumped.expect("a legal jump passes over a marble");
                if jumped != colour {
                    return Err(illegal(format!(
                        "the marble jumped on {} is {jumped}, not {colour}",
                        name(over)
                    )));
                }
                at = landing;
            }
            if let Some(cell) = after.jumping_marble() {
                return Err(illegal(format!(
                    "the marble on {} can jump again, and must",
                    name(cell)
                )));
            }
            Ok(Turn::Capture {
                start,
                landings: jumps.iter().map(|j| j.1).collect(),
            })
        }
    }
}
