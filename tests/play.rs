//! Smoke tests of `gipfzero play`, `gipfzero engine` and `gipfzero render` through the built
//! binary: the wiring of arguments to `gipfzero-play` and `games::render` (the logic itself is
//! tested in those crates).
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn gipfzero(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gipfzero"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the gipfzero binary runs");
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(input.as_bytes())
        .expect("input written");
    child.wait_with_output().expect("the binary ends")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("utf-8 output")
}

#[test]
fn engine_answers_the_protocol_and_survives_bad_input() {
    let output = gipfzero(
        &["engine", "--agent", "rollout:5"],
        "protocol\nnonsense\nnewgame dvonn\nplay e3\ngo\nquit\n",
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let replies: Vec<String> = text(&output.stdout).lines().map(str::to_string).collect();
    assert_eq!(replies[0], "protocol gipfzero 1");
    assert!(replies[1].starts_with("error unknown command"));
    assert_eq!(replies[2..4], ["ok newgame dvonn dvonn", "ok e3"]);
    assert!(replies[4].starts_with("turn "), "{}", replies[4]);
    assert_eq!(replies[5], "bye");
}

#[test]
fn codecup_mode_plays_white_first() {
    let output = gipfzero(
        &["engine", "--codecup", "--agent", "greedy"],
        "Start\nQuit\n",
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let lines = text(&output.stdout);
    let first = lines.trim();
    assert_eq!(first.len(), 2, "one upper-case placement: {first}");
    assert_eq!(first, first.to_uppercase());
}

#[test]
fn play_takes_turns_and_reports_bad_input() {
    let output = gipfzero(&["play", "dvonn", "--second", "random"], "e3\nz9\nquit\n");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let out = text(&output.stdout);
    assert!(out.contains("player 2 (random) plays"), "{out}");
    assert!(out.contains("error: malformed turn"), "{out}");
    let bad = gipfzero(&["play", "dvonn", "--second", "alphago"], "");
    assert!(!bad.status.success());
    assert!(text(&bad.stderr).contains("alphago"));
}

#[test]
fn render_writes_svg_and_html() {
    let svg = gipfzero(
        &[
            "render",
            "lyngk",
            "--seed",
            "3",
            "--overlay",
            "rollout:1",
            "--overlay-simulations",
            "50",
        ],
        "",
    );
    assert!(svg.status.success(), "{}", text(&svg.stderr));
    let out = text(&svg.stdout);
    assert!(out.starts_with("<svg ") && out.trim_end().ends_with("</svg>"));
    assert!(out.contains('%'), "the overlay's shares");
    let html = gipfzero(&["render", "dvonn", "--moves", "e3 f3 g3", "--html"], "");
    assert!(html.status.success(), "{}", text(&html.stderr));
    let out = text(&html.stdout);
    assert_eq!(out.matches("<svg ").count(), 4);
    let bad = gipfzero(&["render", "dvonn", "--moves", "e3 e3"], "");
    assert_eq!(bad.status.code(), Some(2), "a refused record");
}

#[test]
fn a_missing_checkpoint_is_an_error_line_not_a_crash() {
    let output = gipfzero(
        &["engine", "--agent", "checkpoint:/nonexistent/net"],
        "newgame dvonn\ngo\nplay e3\nquit\n",
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let replies: Vec<String> = text(&output.stdout).lines().map(str::to_string).collect();
    assert_eq!(replies[0], "ok newgame dvonn dvonn");
    assert!(
        replies[1].starts_with("error cannot build the agent: checkpoint /nonexistent/net"),
        "{}",
        replies[1]
    );
    assert_eq!(replies[2..], ["ok e3", "bye"]);
    let bad = gipfzero(&["play", "dvonn", "--second", "checkpoint:"], "");
    assert!(!bad.status.success());
}
