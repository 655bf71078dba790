//! The engine protocol: scripted sessions, every game and variant, and bad input.
mod common;

use common::Peer;
use gipfzero_games::dvonn::Dvonn;
use gipfzero_games::lyngk::Lyngk;
use gipfzero_games::record::{replay, sorted_turn_texts};
use gipfzero_games::zertz::{Variant, Zertz};
use gipfzero_games::Game;
use gipfzero_mcts::{Agent, GreedyAgent, RandomAgent};
use gipfzero_play::engine::run_engine;
use gipfzero_play::Baseline;

fn engine(agent: &str) -> Peer<std::io::Result<()>> {
    let source = Baseline::new(agent).unwrap();
    Peer::spawn(move |input, output| run_engine(source, 9, input, output))
}

/// Runs a whole session from a script and returns the replies.
fn session(agent: &str, script: &str) -> Vec<String> {
    let mut input = script.as_bytes();
    let mut output = Vec::new();
    run_engine(Baseline::new(agent).unwrap(), 1, &mut input, &mut output).unwrap();
    String::from_utf8(output)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The engine plays one side with `agent`, the test the other with `opponent`, until the
/// game ends; returns the record as the engine kept it and the final position.
fn play_against<G: Game>(
    peer: &Peer<std::io::Result<()>>,
    newgame: &str,
    start: &G,
    opponent: &mut dyn Agent<G>,
    engine_side: usize,
    go: &str,
) -> (Vec<String>, G) {
    assert!(peer.ask(newgame).starts_with("ok newgame"));
    let mut position = start.clone();
    let mut record = Vec::new();
    while !position.status().is_over() {
        let text = if position.to_move().index() == engine_side {
            let reply = peer.ask(go);
            reply
                .strip_prefix("turn ")
                .unwrap_or_else(|| panic!("{reply}"))
                .to_string()
        } else {
            let turn = opponent.choose_turn(&position).unwrap();
            let text = position.format_turn(&turn);
            assert_eq!(peer.ask(&format!("play {text}")), format!("ok {text}"));
            text
        };
        let turn = position
            .parse_turn(&text)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        position.play(&turn);
        record.push(text);
        assert!(record.len() < 2000, "the game does not end");
    }
    let status = peer.ask("status");
    assert!(status.starts_with("status over"), "{status}");
    assert!(status.ends_with(&position.result_text()), "{status}");
    (record, position)
}

#[test]
fn a_scripted_session_plays_a_whole_game_against_a_baseline() {
    let peer = engine("rollout:8");
    assert_eq!(peer.ask("protocol"), "protocol gipfzero 1");
    let start = Dvonn::new();
    let (record, end) = play_against(
        &peer,
        "newgame dvonn",
        &start,
        &mut GreedyAgent::new(3),
        0,
        "go simulations 8",
    );
    // The engine's record and a replay of it agree with the game as played here.
    assert_eq!(peer.ask("record"), format!("record {}", record.join(" ")));
    let replayed = replay(&start, &record.join(" ")).unwrap();
    assert_eq!(replayed.position, end);
    assert!(peer.ask("go").starts_with("error the game is over"));
    // The same engine plays the other side of a LYNGK game with a time budget.
    let start = Lyngk::from_seed(12);
    let (_, end) = play_against(
        &peer,
        "newgame lyngk seed 12",
        &start,
        &mut RandomAgent::new(5),
        1,
        "go time 5",
    );
    assert!(end.status().is_over());
    assert_eq!(peer.ask("quit"), "bye");
    peer.finish().unwrap();
}

#[test]
fn every_game_and_variant_starts_and_lists_its_turns() {
    for variant in Variant::ALL {
        let replies = session(
            "random",
            &format!("newgame zertz variant {variant}\nmoves\ngo\nstatus\n"),
        );
        assert_eq!(
            replies[0],
            format!("ok newgame zertz {}", Zertz::new(variant).spec().variant)
        );
        assert_eq!(
            replies[1],
            format!(
                "moves {}",
                sorted_turn_texts(&Zertz::new(variant)).join(" ")
            )
        );
        assert!(replies[2].starts_with("turn "), "{}", replies[2]);
        assert_eq!(replies[3], "status ongoing 2");
    }
    let setup = Lyngk::from_seed(3).setup_string();
    let replies = session(
        "greedy",
        &format!("newgame lyngk setup {setup}\nmoves\nnewgame dvonn\nmoves\n"),
    );
    assert_eq!(replies[0], "ok newgame lyngk lyngk");
    assert_eq!(
        replies[1],
        format!(
            "moves {}",
            sorted_turn_texts(&Lyngk::from_seed(3)).join(" ")
        )
    );
    assert_eq!(replies[2], "ok newgame dvonn dvonn");
    assert_eq!(
        replies[3],
        format!("moves {}", sorted_turn_texts(&Dvonn::new()).join(" "))
    );
}

#[test]
fn show_undo_and_hint() {
    let replies = session(
        "rollout:10",
        "newgame dvonn\nplay e3\nshow\nundo\nundo\nstatus\nhint simulations 60\n",
    );
    assert_eq!(replies[0], "ok newgame dvonn dvonn");
    assert_eq!(replies[1], "ok e3");
    let mut position = Dvonn::new();
    position.play(&position.parse_turn("e3").unwrap());
    let text = position.render_text();
    let drawing: Vec<&str> = text.lines().collect();
    assert_eq!(&replies[2..2 + drawing.len()], &drawing[..]);
    let rest = &replies[2 + drawing.len()..];
    assert_eq!(rest[0], "end");
    assert_eq!(rest[1], "ok undo");
    assert_eq!(rest[2], "error no turn to take back");
    assert_eq!(rest[3], "status ongoing 1");
    let words: Vec<&str> = rest[4].split(' ').collect();
    assert_eq!(words[0], "hint");
    assert!(words.len() >= 3 && words.len() % 2 == 1, "{}", rest[4]);
    let legal = sorted_turn_texts(&Dvonn::new());
    let mut total = 0.0;
    for pair in words[1..].chunks(2) {
        assert!(legal.contains(&pair[0].to_string()), "{}", pair[0]);
        total += pair[1].parse::<f64>().unwrap();
    }
    assert!((total - 1.0).abs() < 0.05, "shares add up to {total}");
}

#[test]
fn a_line_that_is_not_utf8_is_a_bad_line_not_the_end() {
    // Stray bytes from the other program: an error reply, and the session answers on.
    let mut input: &[u8] = b"newgame dvonn\n\xff\xfe\nprotocol\n";
    let mut output = Vec::new();
    run_engine(Baseline::new("random").unwrap(), 1, &mut input, &mut output).unwrap();
    let replies: Vec<String> = String::from_utf8(output).unwrap().lines().map(str::to_string).collect();
    assert_eq!(replies.len(), 3, "{replies:#?}");
    assert_eq!(replies[0], "ok newgame dvonn dvonn");
    assert!(replies[1].starts_with("error unknown command \"\u{FFFD}\u{FFFD}\""), "{}", replies[1]);
    assert_eq!(replies[2], "protocol gipfzero 1");
}

#[test]
fn bad_input_gets_an_error_line_and_the_session_goes_on() {
    let script = "\
play e3
go
frobnicate
newgame
newgame chess
newgame dvonn variant 48
newgame lyngk seed
newgame lyngk seed x
newgame lyngk setup IIB
newgame zertz variant 99
newgame zertz colour red
newgame dvonn
play
play z9
play c3d4
play e3
play e3
go simulations 0
go simulations
go time soon
go fast
hint time 5
# a comment

\u{1F600} é
protocol
";
    let replies = session("random", script);
    let errors = replies.iter().filter(|r| r.starts_with("error ")).count();
    assert_eq!(replies.len(), 24, "{replies:#?}");
    assert_eq!(errors, 21, "{replies:#?}");
    assert_eq!(replies[0], "error no game: start one with newgame <game>");
    assert!(replies[2].starts_with("error unknown command \"frobnicate\""));
    assert!(replies[4].contains("unknown game \"chess\""));
    assert!(replies[5].contains("zertz only"));
    assert_eq!(replies[11], "ok newgame dvonn dvonn");
    assert!(
        replies[13].starts_with("error malformed turn"),
        "{}",
        replies[13]
    );
    assert!(
        replies[14].starts_with("error illegal turn"),
        "{}",
        replies[14]
    );
    assert_eq!(replies[15], "ok e3");
    assert!(replies[16].contains("already occupied"), "{}", replies[16]);
    assert_eq!(replies[23], "protocol gipfzero 1");
}

#[test]
fn the_input_may_end_at_any_point() {
    assert!(session("random", "newgame lyngk\ngo").len() == 2);
    assert!(session("random", "").is_empty());
    let position_after = session("random", "newgame zertz\ngo\ngo\nstatus");
    assert!(position_after[3].starts_with("status ongoing"));
}
