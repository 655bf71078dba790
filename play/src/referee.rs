//! A referee for the CodeCup 2011 DVONN protocol: two external programs, each a child process
//! speaking the protocol of [`crate::codecup`] on its standard input and output, play one game
//! while gipfzero's own rules engine checks every turn and a clock times each side.
//!
//! Why the project has its own: to measure its CodeCup player against other programs (such as
//! PrimaDvonna, the 2011 winner) under the competition's conditions, with every turn refereed
//! by the same rules the network was trained on and every fault named, not trusted to the
//! players or to an old referee.
//!
//! The rules of the game as refereed here:
//! - White's program is sent `Start`; after that each program is sent exactly the opponent's
//!   turns, in upper case, and the last turn of a finished game is not sent. Both get `Quit` at
//!   the end, then a little time to exit before they are killed.
//! - A program's turn must be one line in CodeCup notation (upper case: `E3`, `C3D4`, `PASS`)
//!   and legal. A malformed or illegal line, output while the opponent is to move, a closed
//!   output or an exit before the game is over, or running out of time forfeits the game: the
//!   other program wins, whatever the pieces said, and the fault is recorded with its reason.
//! - The clock: each program has `game_time` for the whole game, counted while it is to move
//!   (from the moment its input was written, or its own previous turn was read, to the moment
//!   its turn is read: as the program's own wall clock would see it). Starting the programs
//!   is not counted: they are given `start_delay` before the first line, as a competition
//!   starts its players before the clock runs. Each program's CPU time (user + system, from
//!   `/proc` on Linux) is reported too: on a shared machine it says what the wall clock
//!   cannot.
//!
//! Nothing here panics or hangs on a misbehaving program: reading happens on a thread per
//! program, waited for with the time the program has left.
use std::fmt;
use std::io::{self, BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

use gipfzero_games::dvonn::{colour_name, Dvonn};
use gipfzero_games::{Game, Outcome, Player, Status, TurnError};

/// How games are refereed.
#[derive(Clone, Debug, PartialEq)]
pub struct RefereeSettings {
    /// Thinking time of each program for the whole game.
    pub game_time: Duration,
    /// Time the programs get to start before White is sent `Start` (not counted).
    pub start_delay: Duration,
    /// How long a program may take to exit after `Quit` before it is killed.
    pub quit_wait: Duration,
}

impl Default for RefereeSettings {
    fn default() -> Self {
        RefereeSettings {
            game_time: crate::codecup::CODECUP_GAME_TIME,
            // A network player loads libtorch first: about 0.3 s of CPU, seconds of wall
            // time on a loaded machine, which would otherwise count as its thinking.
            start_delay: Duration::from_secs(2),
            quit_wait: Duration::from_secs(2),
        }
    }
}

/// One program of a game: a shell command line (run as `sh -c "exec COMMAND"`) and where its
/// standard error goes (a file, else nowhere).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramSpec {
    pub command: String,
    pub stderr: Option<PathBuf>,
}

/// What a program did wrong, losing the game by it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The program could not be started.
    Start(String),
    /// A line that is no turn in CodeCup notation.
    Malformed { line: String, reason: String },
    /// A well-formed turn that the rules forbid.
    Illegal { line: String, reason: String },
    /// A line written while the opponent was to move.
    OutOfTurn { line: String },
    /// The program ended, or closed its output, before the game was over.
    Exited { status: String },
    /// Its output could not be read (not UTF-8, a read error) or its input not written.
    Broken { reason: String },
    /// The game's thinking time ran out while it was to move.
    TimeUp { limit: Duration },
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::Start(reason) => write!(f, "could not be started: {reason}"),
            Fault::Malformed { line, reason } => write!(f, "malformed turn {line:?}: {reason}"),
            Fault::Illegal { line, reason } => write!(f, "illegal turn {line:?}: {reason}"),
            Fault::OutOfTurn { line } => write!(f, "wrote {line:?} while the opponent was to move"),
            Fault::Exited { status } => write!(f, "ended before the game was over ({status})"),
            Fault::Broken { reason } => write!(f, "broken pipe: {reason}"),
            Fault::TimeUp { limit } => write!(f, "time up: used its {:.3} s for the game", limit.as_secs_f64()),
        }
    }
}

/// A forfeited game: who lost it and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forfeit {
    pub player: Player,
    pub fault: Fault,
}

/// A refereed game.
#[derive(Clone, Debug)]
pub struct RefereedGame {
    /// The position reached (the end of the game, or where a forfeit stopped it).
    pub position: Dvonn,
    /// The turns played, in record notation (lower case), every placement included.
    pub turns: Vec<String>,
    pub forfeit: Option<Forfeit>,
    /// Time each program spent to move, White first.
    pub thinking: [Duration; 2],
    /// CPU time of each program over the whole game, start-up included, where the platform
    /// tells (White first).
    pub cpu: [Option<Duration>; 2],
}

impl RefereedGame {
    /// The result: a forfeit loses, otherwise the pieces decide.
    pub fn outcome(&self) -> Outcome {
        match (&self.forfeit, self.position.status()) {
            (Some(forfeit), _) => Outcome::Win(forfeit.player.other()),
            (None, Status::Over(outcome)) => outcome,
            (None, Status::Ongoing) => unreachable!("a game without a forfeit is refereed to its end"),
        }
    }

    /// The result in words: the pieces, and the forfeit if there was one.
    pub fn result_text(&self) -> String {
        match &self.forfeit {
            None => self.position.result_text(),
            Some(forfeit) => format!(
                "{} forfeits ({}) at white {} - black {}",
                colour_name(forfeit.player),
                forfeit.fault,
                self.position.score()[0],
                self.position.score()[1]
            ),
        }
    }
}

/// Why a game could not be refereed (the referee's own trouble, not a program's).
#[derive(Debug, thiserror::Error)]
pub enum RefereeError {
    #[error("cannot open {} for a program's standard error", path.display())]
    Log {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// Plays one game between `programs` (White first) and referees it.
pub fn referee_game(programs: [&ProgramSpec; 2], settings: &RefereeSettings) -> Result<RefereedGame, RefereeError> {
    let mut game = RefereedGame {
        position: Dvonn::new(),
        turns: Vec::new(),
        forfeit: None,
        thinking: [Duration::ZERO; 2],
        cpu: [None; 2],
    };
    // Both log files first: the referee's own trouble stops it before any program runs.
    let [white_log, black_log] = [log_stream(programs[0])?, log_stream(programs[1])?];
    let white = Program::start(programs[0], white_log);
    let black = Program::start(programs[1], black_log);
    // White's failure to start is looked at first; a program that did start is stopped.
    let started = match (white, black) {
        (Ok(white), Ok(black)) => Ok([white, black]),
        (Err(reason), black) => Err((Player::One, reason, black.ok())),
        (Ok(white), Err(reason)) => Err((Player::Two, reason, Some(white))),
    };
    let mut running = match started {
        Ok(running) => running,
        Err((player, reason, survivor)) => {
            if let Some(program) = survivor {
                program.finish(settings.quit_wait);
            }
            game.forfeit = Some(Forfeit { player, fault: Fault::Start(reason) });
            return Ok(game);
        }
    };
    std::thread::sleep(settings.start_delay);
    game.forfeit = play(&mut running, &mut game, settings);
    for (index, program) in running.into_iter().enumerate() {
        game.cpu[index] = program.cpu_time();
        program.finish(settings.quit_wait);
    }
    Ok(game)
}

/// The game itself, until it is over or forfeited.
fn play(programs: &mut [Program; 2], game: &mut RefereedGame, settings: &RefereeSettings) -> Option<Forfeit> {
    let forfeit = |player: Player, fault: Fault| Some(Forfeit { player, fault });
    if let Err(fault) = programs[0].send("Start") {
        return forfeit(Player::One, fault);
    }
    while !game.position.status().is_over() {
        let mover = game.position.to_move();
        let (me, other) = (mover.index(), mover.other().index());
        let left = settings.game_time.saturating_sub(game.thinking[me]);
        let asked = Instant::now();
        let received = programs[me].receive(left);
        game.thinking[me] += asked.elapsed();
        let line = match received {
            Ok(line) => line,
            Err(fault) => {
                let fault = match fault {
                    Fault::TimeUp { .. } => Fault::TimeUp { limit: settings.game_time },
                    fault => fault,
                };
                return forfeit(mover, fault);
            }
        };
        // Whatever the opponent wrote meanwhile was written out of turn.
        if let Some(fault) = programs[other].unasked() {
            return forfeit(mover.other(), fault);
        }
        let text = line.trim();
        let turn = match read_turn(&game.position, text) {
            Ok(turn) => turn,
            Err(fault) => return forfeit(mover, fault),
        };
        game.turns.push(game.position.format_turn(&turn));
        game.position.play(&turn);
        if !game.position.status().is_over() {
            if let Err(fault) = programs[other].send(text) {
                return forfeit(mover.other(), fault);
            }
        }
    }
    None
}

/// A turn in CodeCup notation, checked against the rules.
fn read_turn(position: &Dvonn, text: &str) -> Result<<Dvonn as Game>::Turn, Fault> {
    let turn = position.parse_turn(text).map_err(|error| match error {
        TurnError::Malformed(reason) => Fault::Malformed { line: text.to_string(), reason },
        TurnError::Illegal(reason) => Fault::Illegal { line: text.to_string(), reason },
    })?;
    let canonical = position.format_turn(&turn).to_uppercase();
    if canonical != text {
        return Err(Fault::Malformed {
            line: text.to_string(),
            reason: format!("CodeCup writes it {canonical} (upper case, no separator)"),
        });
    }
    Ok(turn)
}

/// Where a program's standard error goes: its file, created, or nowhere.
fn log_stream(spec: &ProgramSpec) -> Result<Stdio, RefereeError> {
    match &spec.stderr {
        Some(path) => std::fs::File::create(path)
            .map(Stdio::from)
            .map_err(|source| RefereeError::Log { path: path.clone(), source }),
        None => Ok(Stdio::null()),
    }
}

/// What the reading thread saw on a program's standard output.
enum Output {
    Line(String),
    End,
    Broken(String),
}

/// A running program: its input, and its output lines as a reading thread passes them on.
struct Program {
    child: Child,
    input: Option<ChildStdin>,
    output: Receiver<Output>,
}

impl Program {
    /// Starts `spec` with its standard error going to `stderr`, or says why it cannot be
    /// started.
    fn start(spec: &ProgramSpec, stderr: Stdio) -> Result<Program, String> {
        let spawned = Command::new("sh")
            .arg("-c")
            .arg(format!("exec {}", spec.command))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(error) => return Err(format!("sh -c {:?}: {error}", spec.command)),
        };
        let input = child.stdin.take();
        let stdout = child.stdout.take().expect("standard output is piped");
        let (sender, output) = mpsc::channel();
        // The thread ends with the program's output; it is never joined, so a program that
        // leaves its output open cannot hold the referee.
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut bytes = Vec::new();
                let seen = match reader.read_until(b'\n', &mut bytes) {
                    Ok(0) => Output::End,
                    Ok(_) => match String::from_utf8(bytes) {
                        Ok(line) => Output::Line(line),
                        Err(error) => Output::Broken(format!("output is not UTF-8 ({error})")),
                    },
                    Err(error) => Output::Broken(format!("cannot read its output: {error}")),
                };
                let last = !matches!(seen, Output::Line(_));
                if sender.send(seen).is_err() || last {
                    break;
                }
            }
        });
        Ok(Program { child, input, output })
    }

    /// Writes one line to the program.
    fn send(&mut self, line: &str) -> Result<(), Fault> {
        let Some(input) = self.input.as_mut() else {
            return Err(Fault::Broken { reason: "its input is closed".into() });
        };
        match writeln!(input, "{line}").and_then(|()| input.flush()) {
            Ok(()) => Ok(()),
            Err(_) => Err(self.exited()),
        }
    }

    /// The next line, waiting at most `time`.
    fn receive(&mut self, time: Duration) -> Result<String, Fault> {
        match self.output.recv_timeout(time) {
            Ok(seen) => self.line(seen),
            Err(RecvTimeoutError::Timeout) => Err(Fault::TimeUp { limit: time }),
            Err(RecvTimeoutError::Disconnected) => Err(self.exited()),
        }
    }

    /// A fault when the program wrote something (or ended) without being asked.
    fn unasked(&mut self) -> Option<Fault> {
        match self.output.try_recv() {
            Ok(seen) => Some(match self.line(seen) {
                Ok(line) => Fault::OutOfTurn { line: line.trim().to_string() },
                Err(fault) => fault,
            }),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(self.exited()),
        }
    }

    fn line(&mut self, seen: Output) -> Result<String, Fault> {
        match seen {
            Output::Line(line) => Ok(line),
            Output::End => Err(self.exited()),
            Output::Broken(reason) => Err(Fault::Broken { reason }),
        }
    }

    /// The fault of a program whose output or input closed: its exit status, once it has
    /// one (it is given a moment; a program that closed its output but runs on says so).
    fn exited(&mut self) -> Fault {
        let deadline = Instant::now() + Duration::from_millis(500);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break status.to_string(),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
                Ok(None) => break "closed its output but still runs".to_string(),
                Err(error) => break format!("status unknown: {error}"),
            }
        };
        Fault::Exited { status }
    }

    /// CPU time (user + system) the program has used so far: Linux's `/proc/PID/stat`.
    fn cpu_time(&self) -> Option<Duration> {
        process_cpu_time(self.child.id())
    }

    /// Sends `Quit`, closes the input, waits up to `wait` for the program to end, then kills
    /// it; it is reaped either way.
    fn finish(mut self, wait: Duration) {
        if let Some(mut input) = self.input.take() {
            let _ = writeln!(input, "Quit").and_then(|()| input.flush());
        }
        let deadline = Instant::now() + wait;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// User + system CPU time of process `pid` (all its threads), from `/proc/PID/stat`; `None`
/// off Linux or when the process is gone.
pub fn process_cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let fields: Vec<&str> = stat.get(stat.rfind(')')? + 1..)?.split_whitespace().collect();
    // Fields 14 and 15 of the file (utime, stime) are the 12th and 13th after the name.
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // SAFETY: sysconf only reads a configuration value.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (per_second > 0).then(|| Duration::from_secs_f64(ticks as f64 / per_second as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(command: &str) -> ProgramSpec {
        ProgramSpec { command: command.to_string(), stderr: None }
    }

    fn settings(game_time_ms: u64) -> RefereeSettings {
        RefereeSettings {
            game_time: Duration::from_millis(game_time_ms),
            start_delay: Duration::ZERO,
            quit_wait: Duration::from_millis(200),
        }
    }

    /// A program that plays the given lines, one per turn it is asked for (after reading
    /// `reads` lines first), then waits for `Quit`.
    fn scripted(reads: usize, lines: &[&str]) -> ProgramSpec {
        let mut script = String::new();
        for _ in 0..reads {
            script.push_str("read x; ");
        }
        for line in lines {
            script.push_str(&format!("echo {line}; read x; "));
        }
        program(&format!("sh -c '{script}'"))
    }

    fn referee(white: &ProgramSpec, black: &ProgramSpec, game_time_ms: u64) -> RefereedGame {
        referee_game([white, black], &settings(game_time_ms)).expect("no referee trouble")
    }

    #[test]
    fn an_illegal_turn_loses_with_its_reason() {
        // White places at E3; Black places there too.
        let game = referee(&scripted(1, &["E3"]), &scripted(1, &["E3"]), 10_000);
        assert_eq!(game.turns, ["e3"]);
        let forfeit = game.forfeit.clone().expect("Black forfeits");
        assert_eq!(forfeit.player, Player::Two);
        assert!(matches!(&forfeit.fault, Fault::Illegal { line, .. } if line == "E3"), "{:?}", forfeit.fault);
        assert_eq!(game.outcome(), Outcome::Win(Player::One));
        assert!(game.result_text().starts_with("black forfeits (illegal turn \"E3\""), "{}", game.result_text());
    }

    #[test]
    fn lower_case_and_nonsense_are_malformed() {
        let game = referee(&scripted(1, &["e3"]), &scripted(1, &["A1"]), 10_000);
        let forfeit = game.forfeit.expect("White forfeits");
        assert_eq!(forfeit.player, Player::One);
        assert!(matches!(&forfeit.fault, Fault::Malformed { reason, .. } if reason.contains("E3")), "{:?}", forfeit.fault);
        let game = referee(&scripted(1, &["hello"]), &scripted(1, &["A1"]), 10_000);
        assert!(matches!(game.forfeit.expect("forfeit").fault, Fault::Malformed { .. }));
    }

    #[test]
    fn a_program_that_exits_or_cannot_start_loses() {
        let game = referee(&scripted(1, &["E3"]), &program("sh -c 'read x; exit 3'"), 10_000);
        let forfeit = game.forfeit.expect("Black forfeits");
        assert_eq!(forfeit.player, Player::Two);
        assert!(matches!(&forfeit.fault, Fault::Exited { status } if status.contains('3')), "{:?}", forfeit.fault);
        let game = referee(&program("/nonexistent/player"), &scripted(1, &["E3"]), 10_000);
        let forfeit = game.forfeit.expect("White forfeits");
        assert_eq!(forfeit.player, Player::One);
        assert!(matches!(forfeit.fault, Fault::Exited { .. }), "{:?}", forfeit.fault);
    }

    #[test]
    fn a_silent_program_runs_out_of_time_and_is_stopped() {
        let game = referee(&program("sleep 60"), &scripted(1, &["E3"]), 200);
        let forfeit = game.forfeit.expect("White forfeits");
        assert_eq!(forfeit.player, Player::One);
        assert_eq!(forfeit.fault, Fault::TimeUp { limit: Duration::from_millis(200) });
        assert!(game.thinking[0] >= Duration::from_millis(200));
        assert_eq!(game.thinking[1], Duration::ZERO);
    }

    #[test]
    fn output_out_of_turn_loses() {
        // Black writes a line at once, before White has moved (the start delay lets it).
        let settings = RefereeSettings { start_delay: Duration::from_millis(300), ..settings(10_000) };
        let (white, black) = (scripted(1, &["E3", "A1"]), program("sh -c 'echo C1; read x; read x'"));
        let game = referee_game([&white, &black], &settings).expect("no referee trouble");
        let forfeit = game.forfeit.expect("Black forfeits");
        assert_eq!(forfeit.player, Player::Two);
        assert_eq!(forfeit.fault, Fault::OutOfTurn { line: "C1".into() });
    }

    #[test]
    fn cpu_time_of_this_process_is_readable() {
        if cfg!(target_os = "linux") {
            assert!(process_cpu_time(std::process::id()).is_some());
        }
    }
}
