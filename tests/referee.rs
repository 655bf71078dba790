//! `gipfzero match` through the built binary: two `gipfzero engine --codecup` processes play
//! each other under the referee, and a misbehaving program loses by forfeit. The records are
//! replayed with the rules engine to check that the reported results are the games played.
use std::process::{Command, Output};

use gipfzero_games::dvonn::Dvonn;
use gipfzero_games::{Game, Outcome, Player, Status};

fn gipfzero(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gipfzero"))
        .args(args)
        .output()
        .expect("the gipfzero binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("utf-8 output")
}

fn engine(agent: &str) -> String {
    format!("'{}' engine --codecup --agent {agent} --seed {{seed}}", env!("CARGO_BIN_EXE_gipfzero"))
}

fn records(path: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .expect("records written")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON record"))
        .collect()
}

/// A two-game `gipfzero match` between two (command, name) programs, its records at
/// `records`, with a generous clock (these tests are about the refereeing, not the clock)
/// and `extra` arguments.
fn two_game_match(player1: (&str, &str), player2: (&str, &str), records: &std::path::Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "match",
        "--player1",
        player1.0,
        "--player2",
        player2.0,
        "--name1",
        player1.1,
        "--name2",
        player2.1,
        "--games",
        "2",
        "--game-time",
        "60",
        "--start-delay",
        "0",
        "--records",
        records.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    gipfzero(&args)
}

/// The count after `label` in the summary line, e.g. `3 wins`.
fn count(summary: &str, label: &str) -> u32 {
    let words: Vec<&str> = summary.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    let at = words.iter().position(|w| *w == label).unwrap_or_else(|| panic!("no {label} in {summary}"));
    words[at - 1].parse().expect("a count")
}

#[test]
fn two_codecup_engines_play_a_refereed_match_that_the_records_replay() {
    let dir = std::env::temp_dir().join(format!("gipfzero-match-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("games.jsonl");
    let logs = dir.join("logs");
    let output = two_game_match(
        (&engine("rollout:20"), "rollout"),
        (&engine("random"), "random"),
        &path,
        &["--logs", logs.to_str().unwrap()],
    );
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}\n{}", stdout, text(&output.stderr));
    let games = records(&path);
    assert_eq!(games.len(), 2);
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    for (index, game) in games.iter().enumerate() {
        assert!(game["forfeit"].is_null(), "{game}");
        // Colours alternate: the first program plays White in the first game.
        let first = if index == 0 { Player::One } else { Player::Two };
        assert_eq!(game["first_agent_plays"], first.index() as u64 + 1);
        let mut position = Dvonn::new();
        for turn in game["turns"].as_array().unwrap() {
            let turn = position.parse_turn(turn.as_str().unwrap()).expect("a legal turn");
            position.play(&turn);
        }
        assert_eq!(position.placed(), 49);
        let Status::Over(outcome) = position.status() else { panic!("game {index} not over: {game}") };
        assert_eq!(game["score"], serde_json::json!(position.score()));
        assert_eq!(game["result"], position.result_text());
        assert_eq!(game["outcome"], outcome.value_for(Player::One) as i64);
        match outcome {
            Outcome::Win(winner) if winner == first => wins += 1,
            Outcome::Win(_) => losses += 1,
            Outcome::Draw => draws += 1,
        }
        for seconds in game["thinking_s"].as_array().unwrap() {
            assert!(seconds.as_f64().unwrap() > 0.0, "{game}");
        }
        let seed = 1 + index as u64;
        assert_eq!(game["seed"], seed);
        assert!(game["commands"][0].as_str().unwrap().ends_with(&format!("--seed {seed}")));
    }
    let summary = stdout.lines().find(|line| line.starts_with("rollout: ")).expect("a summary line");
    assert_eq!(
        (count(summary, "wins"), count(summary, "draws"), count(summary, "losses")),
        (wins, draws, losses),
        "{stdout}"
    );
    assert!(stdout.contains("Elo difference: "), "{stdout}");
    assert!(dir.join("logs/game-001-player1.log").is_file());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_misbehaving_program_loses_by_forfeit_with_its_reason() {
    let dir = std::env::temp_dir().join(format!("gipfzero-match-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Passes while the pieces are being placed (no player may), then exits.
    let script = dir.join("bad-player.sh");
    std::fs::write(&script, "#!/bin/sh\nread line\necho PASS\nread line\n").unwrap();
    let path = dir.join("games.jsonl");
    let output = two_game_match((&engine("random"), "random"), (&format!("sh '{}'", script.display()), "bad"), &path, &[]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}\n{}", stdout, text(&output.stderr));
    let summary = stdout.lines().find(|line| line.starts_with("random: ")).expect("a summary line");
    assert_eq!((count(summary, "wins"), count(summary, "losses")), (2, 0), "{stdout}");
    assert!(stdout.contains("forfeits: random 0, bad 2"), "{stdout}");
    for game in records(&path) {
        assert_eq!(game["forfeit"]["program"], 2, "{game}");
        let reason = game["forfeit"]["reason"].as_str().unwrap();
        assert!(reason.starts_with("illegal turn \"PASS\""), "{reason}");
        assert!(game["result"].as_str().unwrap().contains("forfeits"), "{game}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
