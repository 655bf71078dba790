//! The terminal game: people's commands, bad input, undo, hints, agents against each other.
use gipfzero_games::dvonn::Dvonn;
use gipfzero_games::lyngk::Lyngk;
use gipfzero_games::record::replay;
use gipfzero_games::zertz::{Variant, Zertz};
use gipfzero_games::{Game, SplitMix64};
use gipfzero_mcts::{GreedyAgent, RandomAgent};
use gipfzero_play::terminal::{play, Ending, Hinter, Options, Played, Seat};
use gipfzero_play::{AgentSource, Baseline};

fn run<G: Game>(
    start: &G,
    seats: [Seat<G>; 2],
    hinter: Option<Hinter<'_, G>>,
    input: &str,
) -> (Played<G>, String) {
    let mut output = Vec::new();
    let played = play(
        start,
        seats,
        hinter,
        &Options::default(),
        &mut input.as_bytes(),
        &mut output,
    )
    .unwrap();
    (played, String::from_utf8(output).unwrap())
}

#[test]
fn a_person_plays_against_an_agent_with_help_errors_and_undo() {
    let start = Dvonn::new();
    let input = "help\n\ne33\nc3d4\ne3\nmoves\nrecord\nundo\nundo\nf3\nquit\n";
    let (played, output) = run(
        &start,
        [Seat::Human, Seat::Agent(Box::new(RandomAgent::new(1)))],
        None,
        input,
    );
    assert_eq!(played.ending, Ending::Quit);
    assert!(output.contains("Type a turn in record notation"), "help");
    assert!(output.contains("error: malformed turn"), "e33");
    assert!(
        output.contains("error: illegal turn"),
        "c3d4 during placement"
    );
    // e3, the agent's answer, undone, then f3 and the agent's answer.
    assert_eq!(played.record.len(), 2);
    assert_eq!(played.record[0], "f3");
    assert!(output.contains("Undone: back before turn 1."));
    assert!(output.contains("error: there is no turn of yours to take back"));
    assert!(output.contains(&format!("player 2 (random) plays {}", played.record[1])));
    assert!(output.contains(&format!("Record: {}", played.record.join(" "))));
    // The board after every turn: the drawing of the final position is the last one shown.
    assert!(output.contains(&played.position.render_text()));
}

#[test]
fn any_input_is_answered_without_a_crash() {
    let mut rng = SplitMix64::new(7);
    let alphabet: Vec<char> = "abcdefghijk0123456789-,x WGBRIKpasundohelp\u{e9}\u{1F600}\t;:"
        .chars()
        .collect();
    let mut input = String::new();
    for _ in 0..300 {
        let length = rng.below(12) as usize;
        for _ in 0..length {
            input.push(alphabet[rng.below(alphabet.len() as u64) as usize]);
        }
        input.push('\n');
    }
    let (played, _) = run(
        &Lyngk::from_seed(1),
        [Seat::Human, Seat::Human],
        None,
        &input,
    );
    assert!(matches!(
        played.ending,
        Ending::InputEnded | Ending::Quit | Ending::Over
    ));
    let (played, _) = run(
        &Zertz::new(Variant::Standard),
        [Seat::Human, Seat::Agent(Box::new(GreedyAgent::new(2)))],
        None,
        &input,
    );
    assert!(matches!(
        played.ending,
        Ending::InputEnded | Ending::Quit | Ending::Over
    ));
    let (_, output) = run(
        &Dvonn::new(),
        [Seat::Human, Seat::Human],
        None,
        "\u{0}\u{7f}\n\u{200b}\n",
    );
    assert_eq!(output.matches("error:").count(), 2);
}

#[test]
fn hints_list_legal_turns_with_their_shares() {
    let start = Dvonn::new();
    let source = Baseline::new("rollout:50").unwrap();
    let hinter: Hinter<'_, Dvonn> = Box::new(move |position: &Dvonn| source.hints(position, 60, 1).map_err(|e| e.to_string()));
    let (_, output) = run(&start, [Seat::Human, Seat::Human], Some(hinter), "hint\n");
    let lines: Vec<&str> = output.lines().filter(|l| l.ends_with('%')).collect();
    assert_eq!(lines.len(), 5, "{output}");
    for line in lines {
        // The first line follows the prompt: the turn is the word before the share.
        let turn = line.split_whitespace().rev().nth(1).unwrap();
        assert!(start.parse_turn(turn).is_ok(), "{line}");
    }
    let (_, output) = run(&start, [Seat::Human, Seat::Human], None, "hint\n");
    assert!(output.contains("error: no hints"));
}

#[test]
fn two_agents_play_a_whole_game_and_the_record_replays() {
    for (first, second) in [("greedy", "random"), ("random", "rollout:5")] {
        let start = Lyngk::from_seed(9);
        let seats = [first, second]
            .map(|spec| Seat::Agent(Baseline::new(spec).unwrap().agent(&start, None, 3).unwrap()));
        let (played, output) = run(&start, seats, None, "");
        assert_eq!(played.ending, Ending::Over);
        assert!(output.contains(&format!("Game over: {}", played.position.result_text())));
        assert_eq!(
            replay(&start, &played.record.join(" ")).unwrap().position,
            played.position
        );
    }
}

#[test]
fn undo_between_two_people_takes_back_one_turn() {
    let (played, output) = run(
        &Dvonn::new(),
        [Seat::Human, Seat::Human],
        None,
        "e3\nf3\nundo\ng3\n",
    );
    assert_eq!(played.record, ["e3", "g3"]);
    assert_eq!(played.ending, Ending::InputEnded);
    assert!(output.contains("Undone: back before turn 2."));
}
