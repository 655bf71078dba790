//! A game in the terminal: people type turns in record notation, agents answer, and the board
//! is drawn after every turn.
//!
//! Nothing a person types can end the program by accident: every line is a command, a turn
//! that is played, or an error message that says what was wrong and how to get help. The loop
//! reads and writes through the caller's streams, so tests play whole games with strings.
use std::io::{self, BufRead, Write};

use gipfzero_games::{Game, Status};
use gipfzero_mcts::Agent;

/// Who plays one side.
pub enum Seat<G: Game> {
    /// Someone at the keyboard.
    Human,
    Agent(Box<dyn Agent<G>>),
}

impl<G: Game> Seat<G> {
    fn name(&self) -> String {
        match self {
            Seat::Human => "you".to_string(),
            Seat::Agent(agent) => agent.name(),
        }
    }
}

/// The turns a search prefers in a position, with their visit shares, best first.
pub type Hinter<'a, G> = Box<dyn FnMut(&G) -> Result<Vec<(<G as Game>::Turn, f32)>, String> + 'a>;

/// Settings of a terminal game.
#[derive(Clone, Debug)]
pub struct Options {
    /// A game still running after this many turns stops (agents against each other never
    /// loop forever).
    pub max_turns: usize,
    /// How many turns `hint` lists.
    pub hints: usize,
    /// Draw the board after every turn.
    pub show_board: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_turns: 1000,
            hints: 5,
            show_board: true,
        }
    }
}

/// How a terminal game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The rules ended it.
    Over,
    /// Someone typed `quit`.
    Quit,
    /// The input ended before the game did.
    InputEnded,
    /// The turn limit was reached.
    TurnLimit,
}

/// The game as played: its turns in record notation and how it ended.
#[derive(Clone, Debug)]
pub struct Played<G: Game> {
    pub position: G,
    pub record: Vec<String>,
    pub ending: Ending,
}

const HELP: &str = "\
Type a turn in record notation to play it, or one of:
  help          this text
  moves         the legal turns
  hint          the turns the search likes, with their share of its visits
  undo          take back your last turn (and the agent's answer)
  board         draw the board again
  record        the turns played so far
  quit          end the game";

/// Plays a game from `start` between the two seats (player one first), reading people's
/// lines from `input` and writing everything to `output`.
pub fn play<G: Game>(
    start: &G,
    mut seats: [Seat<G>; 2],
    mut hinter: Option<Hinter<'_, G>>,
    options: &Options,
    input: &mut impl BufRead,
    output: &mut impl Write,
) -> io::Result<Played<G>> {
    let mut position = start.clone();
    // Positions before each turn, for undo, and the record.
    let mut history: Vec<G> = Vec::new();
    let mut record: Vec<String> = Vec::new();
    for (i, seat) in seats.iter_mut().enumerate() {
        if let Seat::Agent(agent) = seat {
            agent.new_game();
        }
        writeln!(
            output,
            "{}: {}",
            gipfzero_games::Player::BOTH[i],
            seat.name()
        )?;
    }
    if seats.iter().any(|s| matches!(s, Seat::Human)) {
        writeln!(output, "Type help for the commands.")?;
    }
    if options.show_board {
        write!(output, "{}", position.render_text())?;
    }
    let ending = loop {
        if let Status::Over(_) = position.status() {
            writeln!(output, "Game over: {}", position.result_text())?;
            break Ending::Over;
        }
        if record.len() >= options.max_turns {
            writeln!(
                output,
                "Stopped after {} turns: {}",
                record.len(),
                position.result_text()
            )?;
            break Ending::TurnLimit;
        }
        let mover = position.to_move();
        let turn = match &mut seats[mover.index()] {
            Seat::Agent(agent) => match agent.choose_turn(&position) {
                Ok(turn) => {
                    writeln!(
                        output,
                        "{mover} ({}) plays {}",
                        agent.name(),
                        position.format_turn(&turn)
                    )?;
                    turn
                }
                Err(error) => {
                    writeln!(
                        output,
                        "error: {} could not choose a turn: {}",
                        agent.name(),
                        crate::think::error_text(&error)
                    )?;
                    break Ending::Quit;
                }
            },
            Seat::Human => {
                write!(output, "{mover} > ")?;
                output.flush()?;
                let mut line = String::new();
                if crate::read_line_lossy(input, &mut line)? == 0 {
                    writeln!(output)?;
                    writeln!(output, "Input ended; the game stops here.")?;
                    break Ending::InputEnded;
                }
                let line = line.trim();
                match line {
                    "" => continue,
                    "help" | "?" => {
                        writeln!(output, "{HELP}")?;
                        continue;
                    }
                    "quit" | "exit" | "resign" => break Ending::Quit,
                    "board" => {
                        write!(output, "{}", position.render_text())?;
                        continue;
                    }
                    "record" => {
                        writeln!(
                            output,
                            "{}",
                            if record.is_empty() {
                                "(no turns yet)".to_string()
                            } else {
                                record.join(" ")
                            }
                        )?;
                        continue;
                    }
                    "moves" => {
                        writeln!(
                            output,
                            "{}",
                            gipfzero_games::record::sorted_turn_texts(&position).join(" ")
                        )?;
                        continue;
                    }
                    "hint" => {
                        write_hint(&position, hinter.as_mut(), options.hints, output)?;
                        continue;
                    }
                    "undo" => {
                        // Back to the last position before this one where a person was to move.
                        let target = (0..history.len())
                            .rev()
                            .find(|&i| matches!(seats[history[i].to_move().index()], Seat::Human));
                        match target {
                            Some(i) => {
                                position = history[i].clone();
                                history.truncate(i);
                                record.truncate(i);
                                writeln!(output, "Undone: back before turn {}.", i + 1)?;
                                if options.show_board {
                                    write!(output, "{}", position.render_text())?;
                                }
                            }
                            None => {
                                writeln!(output, "error: there is no turn of yours to take back")?
                            }
                        }
                        continue;
                    }
                    text => match position.parse_turn(text) {
                        Ok(turn) => turn,
                        Err(error) => {
                            writeln!(output, "error: {error}. Type moves for the legal turns, help for the commands.")?;
                            continue;
                        }
                    },
                }
            }
        };
        history.push(position.clone());
        record.push(position.format_turn(&turn));
        position.play(&turn);
        if options.show_board {
            write!(output, "{}", position.render_text())?;
        }
    };
    writeln!(output, "Record: {}", record.join(" "))?;
    output.flush()?;
    Ok(Played {
        position,
        record,
        ending,
    })
}

fn write_hint<G: Game>(
    position: &G,
    hinter: Option<&mut Hinter<'_, G>>,
    count: usize,
    output: &mut impl Write,
) -> io::Result<()> {
    let Some(hinter) = hinter else {
        return writeln!(output, "error: no hints in this game (no search to ask)");
    };
    match hinter(position) {
        Ok(shares) if shares.is_empty() => writeln!(output, "no turns to hint"),
        Ok(shares) => {
            for (turn, share) in shares.iter().take(count) {
                writeln!(
                    output,
                    "  {:<16} {:5.1}%",
                    position.format_turn(turn),
                    100.0 * share
                )?;
            }
            Ok(())
        }
        Err(error) => writeln!(output, "error: the hint failed: {error}"),
    }
}
