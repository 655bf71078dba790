//! The CodeCup 2011 DVONN protocol against a scripted referee with a baseline opponent.
mod common;

use std::time::Duration;

use common::Peer;
use gipfzero_games::dvonn::Dvonn;
use gipfzero_games::{Game, Player};
use gipfzero_mcts::{Agent, RandomAgent};
use gipfzero_play::codecup::{run_codecup, CodeCupGame, TimePlan, CODECUP_GAME_TIME};
use gipfzero_play::Baseline;

type Program = Peer<std::io::Result<(CodeCupGame, String)>>;

fn program(agent: &str, game_time: Duration) -> Program {
    let source = Baseline::new(agent).unwrap();
    Peer::spawn(move |input, output| {
        let mut log = Vec::new();
        let game = run_codecup(source, 4, TimePlan::new(game_time), input, output, &mut log)?;
        Ok((game, String::from_utf8(log).unwrap()))
    })
}

/// Referees one game: the program plays `side`, a random agent the other side. Checks every
/// line the program writes and returns the referee's record.
fn referee(peer: &Program, side: Player, seed: u64) -> (Vec<String>, Dvonn) {
    let mut opponent = RandomAgent::new(seed);
    let mut position = Dvonn::new();
    let mut record = Vec::new();
    if side == Player::One {
        peer.send("Start");
    }
    while !position.status().is_over() {
        if position.to_move() == side {
            let line = peer.receive();
            assert_eq!(line, line.to_uppercase(), "turns are written in upper case");
            let turn = position
                .parse_turn(&line)
                .unwrap_or_else(|e| panic!("{line}: {e}"));
            position.play(&turn);
            record.push(line);
        } else {
            let turn = opponent.choose_turn(&position).unwrap();
            let line = position.format_turn(&turn).to_uppercase();
            position.play(&turn);
            peer.send(&line);
            record.push(line);
        }
    }
    // Nobody writes once nobody can move.
    assert_eq!(peer.try_receive(Duration::from_millis(200)), None);
    peer.send("Quit");
    (record, position)
}

#[test]
fn plays_white_within_the_game_time() {
    let peer = program("rollout:1000", CODECUP_GAME_TIME);
    let (record, end) = referee(&peer, Player::One, 1);
    let (game, log) = peer.finish().unwrap();
    assert!(game.quit);
    assert_eq!(game.side, Some(Player::One));
    assert_eq!(game.record, record);
    assert_eq!(game.position, end);
    // White writes the forced 49th placement and then its first move.
    assert_eq!(record[48].len(), 2, "{}", record[48]);
    assert!(game.thinking < CODECUP_GAME_TIME, "{:?}", game.thinking);
    assert!(log.contains("game ended"), "{log}");
}

#[test]
fn plays_black_reading_whites_first_turn() {
    let peer = program("rollout:1000", Duration::from_millis(800));
    let (record, end) = referee(&peer, Player::Two, 2);
    let (game, _) = peer.finish().unwrap();
    assert_eq!(game.side, Some(Player::Two));
    assert_eq!(game.record, record);
    assert_eq!(game.position, end);
    assert!(
        game.thinking < Duration::from_millis(800),
        "{:?}",
        game.thinking
    );
}

#[test]
fn bad_lines_are_logged_and_skipped() {
    let peer = program("greedy", CODECUP_GAME_TIME);
    // As Black: White's first turn, then lines no referee would send.
    peer.send("E3");
    let reply = peer.receive();
    assert_eq!(reply.len(), 2, "{reply}");
    for bad in [
        "E3", "Z9", "C3D4", "PASS", "hello", "\u{e9}", "Start", &reply,
    ] {
        peer.send(bad);
    }
    let free = if reply == "A1" { "B1" } else { "A1" };
    peer.send(free);
    let next = peer.receive();
    peer.send("Quit");
    let (game, log) = peer.finish().unwrap();
    assert_eq!(
        game.record[..4],
        ["E3".to_string(), reply, free.to_string(), next]
    );
    assert_eq!(log.matches("ignored").count(), 8, "{log}");
}

#[test]
fn a_line_that_is_not_utf8_is_logged_and_skipped() {
    // As White: the first turn, then stray bytes where Black's turn should be, then Quit.
    let mut input: &[u8] = b"Start\n\xff\xfe\nQuit\n";
    let (mut output, mut log) = (Vec::new(), Vec::new());
    let game = run_codecup(Baseline::new("greedy").unwrap(), 4, TimePlan::new(CODECUP_GAME_TIME), &mut input, &mut output, &mut log).unwrap();
    let log = String::from_utf8(log).unwrap();
    assert!(game.quit, "{log}");
    assert_eq!(game.record.len(), 1, "{:?}", game.record);
    assert_eq!(log.matches("ignored").count(), 1, "{log}");
}

#[test]
fn the_input_may_end_without_quit() {
    let peer = program("random", CODECUP_GAME_TIME);
    peer.send("Start");
    let first = peer.receive();
    let (game, _) = peer.finish().unwrap();
    assert!(!game.quit);
    assert_eq!(game.record, [first]);
}
