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
//! turns still to come by weight ([`TimePlan`]).
//!
//! Bad input (a line that is no legal turn) is reported on the log stream and skipped: a
//! referee never sends one, and a crash would forfeit the game.
use std::io::{self, BufRead, Write};
use std::time::{Duration, Instant};

use gipfzero_games::dvonn::Dvonn;
use gipfzero_games::{Game, Player};

use crate::think::{error_text, AgentSource, Budget, GameClock, Thinker};

/// The thinking time CodeCup 2011 allowed for a whole game.
pub const CODECUP_GAME_TIME: Duration = Duration::from_secs(5);

/// What a placement turn gets beside a movement turn, by default: half, which leaves the 25
/// placements a little under half of the time (about 47 % of what the shipped network used).
/// Measured against PrimaDvonna at 5 s a game on the same 100 seeds (docs/RESULTS.md, "DVONN
/// at CodeCup time: the time plan"): weight 2 scored 20.5 %, 1 37.5 %, 0.5 55.5 %, 0.25
/// 50.0 %, 0.1 42.0 %; 0.5 then scored 48.5 % on 200 fresh seeds (the 55.5 % was partly the
/// luck of the best of five). The moves need the time; the placements need some of it too.
/// PrimaDvonna, the 2011 winner, spends about 3 % there, but the network does not play as
/// it does.
pub const DEFAULT_PLACEMENT_WEIGHT: f64 = 0.5;

/// Movement turns the player expects to make after the placements: what the placements'
/// shares leave for the movement phase. The games of the PrimaDvonna matches (docs/RESULTS.md)
/// gave the engine 11 to 24 movement turns, 17.8 on average.
const MOVEMENT_TURNS: f64 = 16.0;

/// Stacks on the board per movement turn still to come for the player to move, in the
/// estimate of [`expected_moves`].
const STACKS_PER_MOVE: f64 = 3.0;

/// The movement turns the player to move in `position` can expect to make, this one included:
/// no more than the stacks it can move (a stack that moves lands on another, and most of the
/// stacks that cannot move now never will), nor than a third of the stacks on the board, and
/// at least one.
///
/// Why this estimate: a turn gets the time left over the turns expected, so an estimate too
/// high leaves time unspent at the end and one too low spends it too early. Replayed over the
/// 83 games of the seventeenth session's PrimaDvonna matches (3,635 movement turns), sharing
/// the movement phase's time this way leaves 2.5 % of it unspent, and the least-served turn
/// (the last three aside) gets 0.68 of an even share; the plan before (a tenth of what is
/// left, whatever the position) left 15.6 % unspent and gave that turn 0.41. The movable
/// stacks alone leave 3.3 % and 0.63, a third of the stacks alone 8.1 % and 0.76.
pub fn expected_moves(position: &Dvonn) -> f64 {
    let movable = position.movable(position.to_move()).count_ones() as f64;
    let stacks = position.occupied().count_ones() as f64;
    movable.min(stacks / STACKS_PER_MOVE).max(1.0)
}

/// How the player shares a game's thinking time out over its turns.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TimePlan {
    /// Thinking time for the whole game.
    pub game_time: Duration,
    /// A placement turn's weight beside a movement turn's (0 gives the placements the least
    /// search there is, 1 an even share, more gives them more).
    pub placement_weight: f64,
}

impl TimePlan {
    /// The CodeCup plan for `game_time`.
    pub fn new(game_time: Duration) -> TimePlan {
        TimePlan { game_time, placement_weight: DEFAULT_PLACEMENT_WEIGHT }
    }

    /// The share of the time left that the turn at `position` gets: its weight over the
    /// weight of the turns the player still expects to make (this one included).
    pub fn share(&self, position: &Dvonn) -> f64 {
        if position.is_placing() {
            let placements = (49 - position.placed() as u32).div_ceil(2) as f64;
            let weight = self.placement_weight.max(0.0);
            weight / (weight * placements + MOVEMENT_TURNS)
        } else {
            1.0 / expected_moves(position)
        }
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
    plan: TimePlan,
    input: &mut impl BufRead,
    output: &mut impl Write,
    log: &mut impl Write,
) -> io::Result<CodeCupGame> {
    let mut thinker: Thinker<Dvonn, S> = Thinker::new(source, seed);
    let mut clock = GameClock::new(plan.game_time);
    let mut position = Dvonn::new();
    let mut side: Option<Player> = None;
    let mut record: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut legal = Vec::new();
    let quit = loop {
        if crate::read_line_lossy(input, &mut line)? == 0 {
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
            legal.clear();
            position.legal_turns(&mut legal);
            let turn = if legal.len() == 1 {
                // A forced turn (a pass) is played without a search: its time goes to the others.
                legal.swap_remove(0)
            } else {
                let started = Instant::now();
                let budget = clock.budget(plan.share(&position));
                let chosen = thinker.choose(&position, budget);
                let took = started.elapsed();
                clock.spend(took);
                log_turn(log, record.len() + 1, &position, budget, took, &thinker)?;
                match chosen {
                    Ok(turn) => turn,
                    Err(error) => {
                        writeln!(log, "no turn: {}", error_text(&error))?;
                        break;
                    }
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

/// One line on the log stream per turn thought: what the turn was given and what it took,
/// so that a game's time plan can be read back from its log.
fn log_turn<S: AgentSource>(
    log: &mut impl Write,
    turn: usize,
    position: &Dvonn,
    budget: Budget,
    took: Duration,
    thinker: &Thinker<Dvonn, S>,
) -> io::Result<()> {
    let phase = if position.is_placing() { "placement" } else { "move" };
    let asked = match budget {
        Budget::Time(time) => format!("{:.1} ms", time.as_secs_f64() * 1e3),
        _ => "no time".to_string(),
    };
    let simulations = thinker.last_simulations().map_or("-".to_string(), |n| n.to_string());
    let share = thinker.last_share().map_or("-".to_string(), |s| format!("{:.0} %", s * 100.0));
    writeln!(
        log,
        "turn {turn} ({phase}): asked {asked}, took {:.1} ms, {simulations} simulations, {share} evaluated",
        took.as_secs_f64() * 1e3,
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The part of the game time White's placements take under `weight`, the turns of the
    /// placement phase played in the order the rules list them.
    fn placements_part(weight: f64) -> f64 {
        let plan = TimePlan { placement_weight: weight, ..TimePlan::new(CODECUP_GAME_TIME) };
        let mut position = Dvonn::new();
        let mut left = 1.0;
        let mut turns = Vec::new();
        while position.is_placing() {
            if position.to_move() == Player::One {
                left *= 1.0 - plan.share(&position);
            }
            turns.clear();
            position.legal_turns(&mut turns);
            position.play(&turns[0]);
        }
        // The first move: all 49 stacks on the board, so the movable ones decide.
        let movable = position.movable(position.to_move()).count_ones() as f64;
        assert!(movable < 49.0 / STACKS_PER_MOVE, "{movable}");
        assert_eq!(plan.share(&position), 1.0 / movable);
        1.0 - left
    }

    #[test]
    fn the_plan_weighs_placements_against_moves() {
        let default = TimePlan::new(CODECUP_GAME_TIME);
        assert_eq!(default.placement_weight, 0.5);
        // Half a move's share: the placement is one of the 25 own placements, each weighing a
        // half, and 16 moves to come.
        assert_eq!(default.share(&Dvonn::new()), 0.5 / (0.5 * 25.0 + MOVEMENT_TURNS));
        assert_eq!(placements_part(0.0), 0.0);
        let (light, half, even, heavy) =
            (placements_part(0.1), placements_part(0.5), placements_part(1.0), placements_part(3.0));
        // The shares the documentation quotes (docs/ENGINE.md).
        assert!((0.1..0.2).contains(&light), "{light}");
        assert!((0.4..0.5).contains(&half), "{half}");
        assert!((0.55..0.65).contains(&even), "{even}");
        assert!((0.75..0.85).contains(&heavy), "{heavy}");
    }

    #[test]
    fn a_move_gets_the_time_left_over_the_moves_expected() {
        let plan = TimePlan::new(CODECUP_GAME_TIME);
        let share = |setup: &str| plan.share(&Dvonn::from_setup(setup, Player::One).unwrap());
        // One stack to move, and a third of five stacks is less than two: the last move.
        assert_eq!(share("c3:d d3:d e3:d f3:w g3:b"), 1.0);
        // Two stacks to move among seven: two moves expected.
        assert_eq!(share("c3:d d3:d e3:d f3:w g3:w h3:b i3:b"), 0.5);
        // Two stacks to move among five: a third of the stacks bounds the estimate.
        assert_eq!(share("c3:d d3:d e3:d f3:w g3:w"), 3.0 / 5.0);
        // No stack to move (White passes): still a share, never a division by zero.
        assert_eq!(share("c3:d d3:d e3:d f3:b"), 1.0);
    }
}
