//! The CodeCup 2011 DVONN competition protocol, so the program can play in that referee.
//!
//! The referee talks to a player through one line per turn: the first line the program reads
//! is `Start` when it plays White, otherwise it is White's first turn. Turns are written in
//! upper case (`E3`, `C3D4`, `PASS`). All 49 placements are written, the forced last one
//! too (by White, who makes it; Black reads it), and White then also makes the first move,
//! so White writes two lines in a row there — the engine simply writes a turn whenever it is
//! to move. A player without a move writes `PASS` only while the opponent can still move;
//! once nobody can, nothing more is written. `Quit` on the input ends the program. The whole
//! game allows 5 seconds of thinking, so the time is a [`GameClock`] shared out over the
//! turns still to come.
//!
//! Bad input (a line that is no legal turn) is reported on the log stream and skipped: a
//! referee never sends one, and a crash would forfeit the game.
use std::io::{self, BufRead, Write};
use std::time::{Duration, Instant};

use gipfzero_games::dvonn::Dvonn;
use gipfzero_games::{Game, Player};

use crate::think::{error_text, AgentSource, GameClock, Thinker};

/// The thinking time CodeCup 2011 allowed for a whole game.
pub const CODECUP_GAME_TIME: Duration = Duration::from_secs(5);

/// About how many more turns the player to move will make: half the placements still to
/// come plus a typical movement phase, or a typical rest of the movement phase. Only the
/// shape matters: early turns get less than an even share, the placement phase (where little
/// is decided) less than the movement phase.
fn own_turns_left(position: &Dvonn) -> u32 {
    if position.is_placing() {
        (49 - position.placed() as u32).div_ceil(2) + 16
    } else {
        10
    }
}

/// How the session ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeCupGame {
    /// The side played, if the first line came.
    pub side: Option<Player>,
    pub position: Dvonn,
    /// The turns of the game in the referee's notation.
    pub record: Vec<String>,
    /// Thinking time used.
    pub thinking: Duration,
    /// True when the input said `Quit` (false when it just ended).
    pub quit: bool,
}

/// Plays one game of DVONN over the CodeCup protocol: reads the referee from `input`, writes
/// turns to `output`, and diagnostics to `log`.
pub fn run_codecup<S: AgentSource>(
    source: S,
    seed: u64,
    game_time: Duration,
    input: &mut impl BufRead,
    output: &mut impl Write,
    log: &mut impl Write,
) -> io::Result<CodeCupGame> {
    let mut thinker: Thinker<Dvonn, S> = Thinker::new(source, seed);
    let mut clock = GameClock::new(game_time);
    let mut position = Dvonn::new();
    let mut side: Option<Player> = None;
    let mut record: Vec<String> = Vec::new();
    let mut line = String::new();
    let quit = loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            break false;
        }
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        if text == "Quit" {
            break true;
        }
        match side {
            None if text == "Start" => side = Some(Player::One),
            None => {
                side = Some(Player::Two);
                read_turn(&mut position, text, &mut record, log)?;
            }
            Some(me) if position.to_move() == me && !position.status().is_over() => {
                writeln!(log, "ignored \"{text}\": it is our turn")?;
            }
            Some(_) => read_turn(&mut position, text, &mut record, log)?,
        }
        let me = side.expect("set above");
        while position.to_move() == me && !position.status().is_over() {
            let started = Instant::now();
            let chosen = thinker.choose(&position, clock.budget(own_turns_left(&position)));
            clock.spend(started.elapsed());
            let turn = match chosen {
                Ok(turn) => turn,
                Err(error) => {
                    writeln!(log, "no turn: {}", error_text(&error))?;
                    break;
                }
            };
            let text = position.format_turn(&turn).to_uppercase();
            position.play(&turn);
            record.push(text.clone());
            writeln!(output, "{text}")?;
            output.flush()?;
        }
    };
    writeln!(
        log,
        "game ended: {} ({} ms thinking)",
        position.result_text(),
        clock.used().as_millis()
    )?;
    Ok(CodeCupGame {
        side,
        position,
        record,
        thinking: clock.used(),
        quit,
    })
}

/// Plays the opponent's turn `text`; a move that arrives while the forced last placement is
/// still open brings that placement in first (as records leave it out).
fn read_turn(
    position: &mut Dvonn,
    text: &str,
    record: &mut Vec<String>,
    log: &mut impl Write,
) -> io::Result<()> {
    if position.status().is_over() {
        return writeln!(log, "ignored \"{text}\": the game is over");
    }
    if let Some(implied) = position.implied_turn_before(text) {
        record.push(position.format_turn(&implied).to_uppercase());
        position.play(&implied);
    }
    match position.parse_turn(text) {
        Ok(turn) => {
            record.push(position.format_turn(&turn).to_uppercase());
            position.play(&turn);
        }
        Err(error) => writeln!(log, "ignored \"{text}\": {error}")?,
    }
    Ok(())
}
