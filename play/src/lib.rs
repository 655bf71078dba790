//! Playing, seeing and talking to other engines, for any of the games.
//!
//! Everything here reads from a [`std::io::BufRead`] and writes to a [`std::io::Write`], so
//! the command line wires it to the terminal and the tests drive it with strings:
//! - [`terminal`]: a game in the terminal, people against agents or agents against each other,
//!   with `help`, `undo`, `hint` and a clear answer to any bad input.
//! - [`engine`]: gipfzero's own line protocol (documented in `docs/ENGINE.md`), so that other
//!   programs can set up games, send turns and ask for replies.
//! - [`codecup`]: the CodeCup 2011 DVONN competition protocol; [`referee`]: two programs that
//!   speak it, played against each other and refereed.
//! - [`think`]: thinking budgets (simulations or time) and where agents come from;
//!   [`hint`]: turns with the share of the search's visits they received.
//!
//! The crate is generic over [`gipfzero_games::Game`] and [`gipfzero_mcts::Agent`]; it knows
//! nothing of networks, so a checkpoint plugs in through [`think::AgentSource`].
pub mod codecup;
pub mod engine;
pub mod hint;
pub mod referee;
pub mod terminal;
pub mod think;

pub use hint::turn_shares;
pub use think::{error_text, AgentSource, Baseline, BaselineError, Budget, GameClock, ThinkError, Thinker, TimeTally, TimedAgent};

use std::io::{self, BufRead};

/// Reads one line into `line` (cleared first), any bytes that are not UTF-8 replaced by
/// U+FFFD: a stray byte from the other side is then a bad line, answered like any other,
/// instead of an I/O error that ends the game or the session. Returns the bytes read, 0 at
/// the end of the input.
pub fn read_line_lossy(input: &mut impl BufRead, line: &mut String) -> io::Result<usize> {
    let mut bytes = Vec::new();
    let read = input.read_until(b'\n', &mut bytes)?;
    line.clear();
    line.push_str(&String::from_utf8_lossy(&bytes));
    Ok(read)
}
