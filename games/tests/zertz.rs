//! ZÈRTZ rules (shared/rules/zertz.md): the spec's known values, one hand-built position per
//! rule, and invariants over random games.
use std::collections::{HashMap, HashSet};

use gipfzero_games::zertz::{Cell, Colour, Setup, Variant, Zertz};
use gipfzero_games::{record, Action, Game, Outcome, Player, SplitMix64, Status, TurnError};
use proptest::prelude::*;

fn play(position: &Zertz, moves: &str) -> Zertz {
    match record::replay(position, moves) {
        Ok(replay) => replay.position,
        Err(error) => panic!("{error}\n{}", position.render_text()),
    }
}

fn texts(position: &Zertz) -> Vec<String> {
    record::sorted_turn_texts(position)
}

fn parse_error(position: &Zertz, text: &str) -> TurnError {
    position.parse_turn(text).expect_err(text)
}

fn illegal(position: &Zertz, text: &str, needle: &str) {
    match parse_error(position, text) {
        TurnError::Illegal(message) => {
            assert!(
                message.contains(needle),
                "{text}: \"{message}\" lacks \"{needle}\""
            )
        }
        other => panic!("{text}: expected an illegal turn, got {other:?}"),
    }
}

fn build(setup: Setup) -> Zertz {
    setup.build().unwrap_or_else(|e| panic!("{e}"))
}

/// Board marbles of each colour.
fn on_board(position: &Zertz) -> [u8; 3] {
    let mut count = [0u8; 3];
    for cell in position.variant().all_cells() {
        if let Some(colour) = position.marble(cell) {
            count[colour.index()] += 1;
        }
    }
    count
}

/// The action sequences of every turn from a turn start, with the position each leads to.
fn turn_action_sequences(position: &Zertz) -> Vec<(Vec<Action>, Zertz)> {
    fn walk(position: &Zertz, prefix: &mut Vec<Action>, out: &mut Vec<(Vec<Action>, Zertz)>) {
        let mut actions = Vec::new();
        position.legal_actions(&mut actions);
        for action in actions {
            let mut next = position.clone();
            next.apply(action);
            prefix.push(action);
            if next.is_turn_start() {
                out.push((prefix.clone(), next));
            } else {
                assert_eq!(
                    next.to_move(),
                    position.to_move(),
                    "the mover changed inside a turn"
                );
                walk(&next, prefix, out);
            }
            prefix.pop();
        }
    }
    let mut out = Vec::new();
    walk(position, &mut Vec::new(), &mut out);
    out
}

/// Turn sequences of length `depth`, counted through the action layer only.
fn perft_by_actions(position: &Zertz, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    turn_action_sequences(position)
        .iter()
        .map(|(_, next)| perft_by_actions(next, depth - 1))
        .sum()
}

// ---------------------------------------------------------------------------------------------
// Variants and boards

#[test]
fn variant_names() {
    for variant in Variant::ALL {
        assert_eq!(Variant::from_name(variant.name()).unwrap(), variant);
    }
    assert_eq!(Variant::from_name("tournament").unwrap(), Variant::R48);
    let error = Variant::from_name("37").unwrap_err().to_string();
    for name in [
        "standard",
        "40",
        "43",
        "44",
        "48",
        "tournament",
        "61",
        "blitz",
    ] {
        assert!(error.contains(name), "{error}");
    }
    assert_eq!(Zertz::new(Variant::R61).spec().variant, "61");
}

#[test]
fn boards_follow_the_column_table() {
    let group1 = ["a5", "b6", "c7"];
    let group2 = ["h1", "h2", "h3"];
    let group3 = ["d8", "e7", "f6", "g5"];
    let cases: [(Variant, usize, Vec<&str>, Vec<&str>); 6] = [
        (
            Variant::Standard,
            37,
            vec!["a4", "d7", "g1"],
            [&group1[..], &group2, &group3, &["h4"]].concat(),
        ),
        (
            Variant::R40,
            40,
            group1.to_vec(),
            [&group2[..], &group3, &["h4"]].concat(),
        ),
        (
            Variant::R43,
            43,
            [&group1[..], &group2].concat(),
            [&group3[..], &["h4"]].concat(),
        ),
        (
            Variant::R44,
            44,
            [&group1[..], &group3].concat(),
            [&group2[..], &["h4"]].concat(),
        ),
        (
            Variant::R48,
            48,
            [&group1[..], &group2, &group3, &["h4"]].concat(),
            vec!["a6", "h5", "i1"],
        ),
        (
            Variant::R61,
            61,
            vec!["a5", "e9", "i5", "e1"],
            vec!["a6", "e10", "j1"],
        ),
    ];
    for (variant, cells, present, absent) in cases {
        assert_eq!(variant.cells(), cells, "{variant}");
        assert_eq!(Zertz::new(variant).rings().len(), cells);
        for name in present {
            assert!(variant.cell(name).is_some(), "{variant} lacks {name}");
        }
        for name in absent {
            assert!(variant.cell(name).is_none(), "{variant} has {name}");
        }
        for cell in variant.all_cells() {
            assert_eq!(variant.cell(&variant.cell_name(cell)), Some(cell));
        }
    }
    assert_eq!(Variant::Blitz.cells(), 37);
    assert_eq!(Variant::Blitz.marbles(), [5, 7, 9]);
    assert_eq!(Variant::Standard.marbles(), [6, 8, 10]);
}

#[test]
fn free_rings_on_the_empty_boards() {
    let expected = [18, 19, 20, 20, 21, 24, 18];
    for (variant, free) in Variant::ALL.into_iter().zip(expected) {
        assert_eq!(
            Zertz::new(variant).free_ring_cells().len(),
            free,
            "{variant}"
        );
    }
}

#[test]
fn legal_first_turns() {
    let expected = [1944, 2223, 2520, 2580, 2961, 4320, 1944];
    for (variant, count) in Variant::ALL.into_iter().zip(expected) {
        let start = Zertz::new(variant);
        let mut turns = Vec::new();
        start.legal_turns(&mut turns);
        assert_eq!(turns.len(), count, "{variant}: turns");
        assert_eq!(
            turn_action_sequences(&start).len(),
            count,
            "{variant}: action sequences"
        );
        assert_eq!(texts(&start).len(), count, "{variant}: distinct texts");
    }
}

/// The spec's axial `(q, r)` of diagram 2 on the 37-ring board: column `q` (a = 0), height
/// `y = q + 2r + 1` (so `(3, -2)` is d1 and `(0, 1)` is a1), number `(y - lowest) / 2 + 1`.
fn diagram_name(q: i32, r: i32) -> String {
    let lowest = [3, 2, 1, 0, 1, 2, 3];
    let y = q + 2 * r + 1;
    format!(
        "{}{}",
        (b'a' + q as u8) as char,
        (y - lowest[q as usize]) / 2 + 1
    )
}

#[test]
fn official_diagram_two() {
    let rings: [(i32, i32); 25] = [
        (0, 1),
        (0, 2),
        (1, 0),
        (1, 1),
        (1, 2),
        (1, 3),
        (2, 0),
        (2, 1),
        (2, 2),
        (2, 3),
        (2, 4),
        (3, 1),
        (3, 2),
        (3, 3),
        (3, 4),
        (4, 0),
        (4, 1),
        (4, 2),
        (5, -1),
        (5, 0),
        (5, 1),
        (5, 2),
        (6, -2),
        (6, -1),
        (6, 1),
    ];
    let marbles = [
        ((1, 3), 'W'),
        ((2, 0), 'B'),
        ((2, 4), 'W'),
        ((5, 2), 'B'),
        ((6, 1), 'G'),
    ];
    let free = [
        (0, 1),
        (0, 2),
        (1, 0),
        (3, 4),
        (4, 0),
        (5, -1),
        (6, -2),
        (6, -1),
    ];
    let names: Vec<String> = rings.iter().map(|&(q, r)| diagram_name(q, r)).collect();
    let marble_text: Vec<String> = marbles
        .iter()
        .map(|&((q, r), c)| format!("{c}{}", diagram_name(q, r)))
        .collect();
    let position = build(
        Setup::new(Variant::Standard)
            .rings(&names.join(" "))
            .marbles(&marble_text.join(" ")),
    );
    let mut engine: Vec<String> = position
        .free_ring_cells()
        .iter()
        .map(|&c| position.cell_name(c))
        .collect();
    let mut expected: Vec<String> = free.iter().map(|&(q, r)| diagram_name(q, r)).collect();
    engine.sort();
    expected.sort();
    assert_eq!(engine, expected);
    // The looser reading ("vacant with any missing neighbour") gives 16: the test data does
    // tell the two rules apart.
    let ring_set: HashSet<(i32, i32)> = rings.iter().copied().collect();
    let steps = [(0, 1), (1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1)];
    let loose = rings
        .iter()
        .filter(|&&(q, r)| !marbles.iter().any(|m| m.0 == (q, r)))
        .filter(|&&(q, r)| {
            steps
                .iter()
                .any(|&(dq, dr)| !ring_set.contains(&(q + dq, r + dr)))
        })
        .count();
    assert_eq!(loose, 16);
}

// ---------------------------------------------------------------------------------------------
// The book's figure 5

/// Player A (one) is five marbles behind; the rings b1 b2 a3 b4 d3 are gone.
fn figure_five() -> Zertz {
    build(
        Setup::new(Variant::Standard)
            .removed("b1 b2 a3 b4 d3")
            .marbles("Wa1 Gd4")
            .captures(Player::One, [2, 1, 0])
            .captures(Player::Two, [1, 4, 3]),
    )
}

#[test]
fn figure_five_worked_example() {
    let start = figure_five();
    assert_eq!(start.pool(), [2, 2, 7]);
    // A places black on d5 and removes g1: B must jump it, and only that jump exists.
    let after_a = play(&start, "Bd5,g1");
    assert_eq!(texts(&after_a), ["xd4Bd6"]);
    illegal(&after_a, "Wc3,g2", "compulsory");
    let after_b = play(&after_a, "xd4Bd6");
    assert_eq!(after_b.captures(Player::Two), [1, 4, 4]);
    assert_eq!(
        after_b.status(),
        Status::Ongoing,
        "B gains only a black marble"
    );
    // A places white on a2 and removes b3: {a1, a2} is isolated, A holds 4 white and wins.
    assert!(after_b
        .free_ring_cells()
        .contains(&after_b.cell("b3").unwrap()));
    let end = play(&after_b, "Wa2,b3");
    assert_eq!(end.captures(Player::One), [4, 1, 0]);
    assert!(!end.has_ring(end.cell("a1").unwrap()) && !end.has_ring(end.cell("a2").unwrap()));
    assert_eq!(end.status(), Status::Over(Outcome::Win(Player::One)));
    assert_eq!(end.result_text(), "player 1 wins");
    // The official isolation note is checked against what the placement isolates.
    assert_eq!(
        after_b.parse_turn("Wa2,b3 x Wa1Wa2").unwrap(),
        after_b.parse_turn("Wa2,b3").unwrap()
    );
    illegal(&after_b, "Wa2,b3 x Wa1", "isolates Wa1Wa2");
    illegal(&after_b, "Wa2,c1 x Wa1Wa2", "isolates nothing");
    // A whole record with the notes and the spaced capture form.
    let record_end = play(&start, "Bd5,g1 x d4Bd6 Wa2,b3 x Wa1Wa2");
    assert_eq!(record_end, end);
}

// ---------------------------------------------------------------------------------------------
// Placing

#[test]
fn pool_marbles_come_before_own_captures() {
    // Only one grey is left in the pool; player one holds white and black captures.
    let position = build(
        Setup::new(Variant::Standard)
            .marbles("Wa1 Wa3 Gc1 Gc3 Gc5 Be1 Be3 Be5 Bg1 Bg3")
            .captures(Player::One, [2, 2, 3])
            .captures(Player::Two, [2, 2, 2]),
    );
    assert_eq!(position.pool(), [0, 1, 0]);
    let turns = texts(&position);
    assert!(!turns.is_empty() && turns.iter().all(|t| t.starts_with('G')));
    // With the pool empty now, player two places from their own captures: every colour.
    let next = play(&position, "Gd7,d1");
    let colours: HashSet<char> = texts(&next)
        .iter()
        .map(|t| t.chars().next().unwrap())
        .collect();
    assert_eq!(colours, HashSet::from(['W', 'G', 'B']));
    let after = play(&next, "Bd2,g4");
    assert_eq!(after.captures(Player::Two), [2, 2, 1]);
    assert_eq!(after.pool(), [0, 0, 0]);
}

#[test]
fn empty_pool_places_only_the_movers_captures() {
    let position = build(
        Setup::new(Variant::Standard)
            .marbles("Wa1 Gc1 Gc3 Gc5 Ge1 Be3 Be5 Bg1")
            .captures(Player::One, [2, 0, 5])
            .captures(Player::Two, [3, 4, 2]),
    );
    assert_eq!(position.pool(), [0, 0, 0]);
    let colours: HashSet<char> = texts(&position)
        .iter()
        .map(|t| t.chars().next().unwrap())
        .collect();
    assert_eq!(
        colours,
        HashSet::from(['W', 'B']),
        "never the opponent's grey"
    );
    illegal(&position, "Gd4,d1", "holds no grey");
    let after = play(&position, "Wd4,d1");
    assert_eq!(after.captures(Player::One), [1, 0, 5]);
    assert_eq!(after.captures(Player::Two), [3, 4, 2]);
}

/// Blitz board without column d: columns a, c, e, g full of marbles, b and f vacant, no jump
/// possible; the pool is empty and the one remaining marble is held by `holder`.
fn column_board(holder: Player) -> Zertz {
    build(
        Setup::new(Variant::Blitz)
            .removed("d1 d2 d3 d4 d5 d6 d7")
            .marbles(
                "Wa1 Wa2 Wa3 Wa4 Gc1 Gc2 Gc3 Gc4 Gc5 Gc6 Ge1 Be2 Be3 Be4 Be5 Be6 Bg1 Bg2 Bg3 Bg4",
            )
            .captures(holder, [1, 0, 0]),
    )
}

#[test]
fn a_player_without_a_turn_passes() {
    let position = column_board(Player::Two);
    assert_eq!(position.status(), Status::Ongoing);
    assert_eq!(texts(&position), ["pass"]);
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    assert_eq!(actions, [Action(370)]);
    let passed = play(&position, "pass");
    assert_eq!(passed.to_move(), Player::Two);
    assert_ne!(
        passed.position_hash(),
        position.position_hash(),
        "a pass changes the position"
    );
    assert!(texts(&passed).iter().all(|t| t.starts_with('W')));
    illegal(
        &Zertz::new(Variant::Standard),
        "pass",
        "only when no other turn",
    );
}

#[test]
fn neither_player_can_move_is_a_draw() {
    let position = column_board(Player::One);
    assert_eq!(position.status(), Status::Ongoing);
    let end = play(&position, "Wb3,b1");
    assert_eq!(end.status(), Status::Over(Outcome::Draw));
    assert_eq!(end.result_text(), "draw");
    let mut actions = Vec::new();
    end.legal_actions(&mut actions);
    assert!(actions.is_empty(), "no pass is played");
    // The same after the pass of the other order.
    let other = play(&column_board(Player::Two), "pass Wf3,f1");
    assert_eq!(other.status(), Status::Over(Outcome::Draw));
}

const RIM: &str = "Wa1 Wa2 Wa3 Ga4 Gb1 Gb5 Gc1 Gc6 Gd1 Bd7 Be1 Be6 Bf1 Bf5 Bg1 Bg2 Bg3 Bg4";

/// Every edge ring holds a marble, the 19 inner rings are vacant: no ring is free.
fn rim_board() -> Setup {
    Setup::new(Variant::Standard).marbles(RIM)
}

#[test]
fn no_free_ring_means_no_removal() {
    let position = build(rim_board());
    assert!(position.free_ring_cells().is_empty());
    let turns = texts(&position);
    assert_eq!(turns.len(), 3 * 19);
    assert!(turns.iter().all(|t| !t.contains(',')), "{turns:?}");
    illegal(&position, "Wd4,d1", "no ring is free");
    // In the action layer the placement alone ends the turn.
    let mut next = position.clone();
    let place = next.turn_actions(&next.parse_turn("Wd4").unwrap());
    assert_eq!(place.len(), 1);
    next.apply(place[0]);
    assert!(next.is_turn_start());
    assert_eq!(next.to_move(), Player::Two);
}

#[test]
fn the_ring_just_filled_cannot_be_removed() {
    let start = Zertz::new(Variant::Standard);
    let turns = texts(&start);
    let on_a1: Vec<&String> = turns.iter().filter(|t| t.starts_with("Wa1,")).collect();
    let on_d4: Vec<&String> = turns.iter().filter(|t| t.starts_with("Wd4,")).collect();
    assert_eq!(on_a1.len(), 17, "a1 is free but filled");
    assert_eq!(on_d4.len(), 18);
    illegal(&start, "Wa1,a1", "not a free ring");
    illegal(&start, "Wa1,d4", "not a free ring");
    illegal(&start, "Wa1", "must be removed");
}

#[test]
fn placing_needs_a_vacant_ring_and_an_available_colour() {
    let position = figure_five();
    illegal(&position, "Wb1,g1", "no ring");
    illegal(&position, "Wd4,g1", "already holds");
    let no_white = build(
        Setup::new(Variant::Standard)
            .marbles("Wa1 Wa3 Wc1 Wc3 We1 We3")
            .captures(Player::Two, [0, 0, 1]),
    );
    assert_eq!(no_white.pool(), [0, 8, 9]);
    illegal(&no_white, "Wd4,d1", "no white marble is left in the pool");
}

// ---------------------------------------------------------------------------------------------
// Capturing

/// White on d3 can jump e3 (grey) to f3, e4 (black) to d5 and d4 (grey) back to d3.
fn loop_position() -> Zertz {
    build(Setup::new(Variant::Standard).marbles("Wd3 Ge3 Be4 Gd4"))
}

#[test]
fn capturing_is_compulsory() {
    let position = loop_position();
    let turns = texts(&position);
    assert!(turns.iter().all(|t| t.starts_with('x')), "{turns:?}");
    illegal(&position, "Wa1,a2", "compulsory");
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    let n = 37;
    assert!(
        actions.iter().all(|a| (4 * n..10 * n).contains(&a.index())),
        "only jumps"
    );
}

#[test]
fn jumps_continue_and_the_start_ring_is_vacant_at_once() {
    let position = loop_position();
    let turns = texts(&position);
    // Landing back on d3 needs d3 vacant as soon as the marble left it.
    assert!(turns.contains(&"xd3Gf3Bd5Gd3".to_string()), "{turns:?}");
    // Stopping on f3 or d5 while a jump remains is not a turn.
    assert!(!turns.contains(&"xd3Gf3".to_string()));
    assert!(!turns.contains(&"xd3Gf3Bd5".to_string()));
    illegal(&position, "xd3Gf3", "must");
    illegal(&position, "xd3Gf3Bd5Gd3Gd5", "ends on d3");
    illegal(&position, "xd3Bf3Bd5Gd3", "is grey, not black");
    illegal(&position, "xd3Gf4", "not two steps in a line");
    // Free choice: a one-jump sequence is as legal as the three-jump one.
    assert!(turns.contains(&"xd4Bf4".to_string()));
    let after = play(&position, "xd3Gf3Bd5Gd3");
    assert_eq!(after.marble(after.cell("d3").unwrap()), Some(Colour::White));
    assert_eq!(after.captures(Player::One), [0, 2, 1]);
    assert_eq!(on_board(&after), [1, 0, 0]);
    // Inside the turn, the action layer offers only the jumping marble's jumps.
    let actions = position.turn_actions(&position.parse_turn("xd3Gf3Bd5Gd3").unwrap());
    let mut inside = position.clone();
    inside.apply(actions[0]);
    assert_eq!(inside.jumping_marble(), inside.cell("f3"));
    assert_eq!(inside.to_move(), Player::One);
    let mut legal = Vec::new();
    inside.legal_actions(&mut legal);
    assert_eq!(legal, [actions[1]]);
}

// ---------------------------------------------------------------------------------------------
// Isolation

/// Groups {a1 (grey), a2} and {g1 (white), g2} are cut off from the main board.
fn two_pockets() -> Zertz {
    build(
        Setup::new(Variant::Standard)
            .removed("b1 b2 b3 a3 f1 f2 f3 g3")
            .marbles("Ga1 Wg1")
            .to_move(Player::Two),
    )
}

#[test]
fn a_filled_group_goes_to_the_mover() {
    let position = two_pockets();
    let after = play(&position, "Wa2,d7");
    assert_eq!(after.captures(Player::Two), [1, 1, 0]);
    assert_eq!(after.captures(Player::One), [0, 0, 0]);
    for name in ["a1", "a2", "d7"] {
        assert!(!after.has_ring(after.cell(name).unwrap()), "{name}");
    }
    // The pocket that still has a vacant ring stays in play, marble and all.
    assert!(after.has_ring(after.cell("g2").unwrap()));
    assert_eq!(after.marble(after.cell("g1").unwrap()), Some(Colour::White));
    assert_eq!(after.status(), Status::Ongoing);
    assert_eq!(
        position.parse_turn("Wa2,d7 x Wa2Ga1").unwrap(),
        position.parse_turn("Wa2,d7").unwrap()
    );
}

#[test]
fn removing_a_ring_in_another_group_can_isolate_it() {
    let position = two_pockets();
    assert!(position
        .free_ring_cells()
        .contains(&position.cell("g2").unwrap()));
    let after = play(&position, "Wd4,g2");
    assert_eq!(after.captures(Player::Two), [1, 0, 0]);
    assert!(!after.has_ring(after.cell("g1").unwrap()));
    assert_eq!(after.marble(after.cell("a1").unwrap()), Some(Colour::Grey));
    assert!(after.has_ring(after.cell("a2").unwrap()));
}

#[test]
fn filling_every_ring_wins() {
    let position = build(Setup::new(Variant::Standard).rings("d4 d5").marbles("Gd5"));
    assert_eq!(texts(&position), ["Bd4", "Gd4", "Wd4"]);
    let end = play(&position, "Wd4");
    assert!(end.rings().is_empty());
    assert_eq!(end.captures(Player::One), [1, 1, 0]);
    assert_eq!(end.status(), Status::Over(Outcome::Win(Player::One)));
}

// ---------------------------------------------------------------------------------------------
// Goals

#[test]
fn goals_are_checked_for_the_mover() {
    // (variant, captures before, colour jumped, wins)
    let cases = [
        (Variant::Standard, [3, 0, 0], Colour::White, true),
        (Variant::Standard, [0, 4, 0], Colour::Grey, true),
        (Variant::Standard, [0, 0, 5], Colour::Black, true),
        (Variant::Standard, [3, 3, 2], Colour::Black, true),
        (Variant::Standard, [3, 0, 0], Colour::Grey, false),
        (Variant::Standard, [3, 3, 1], Colour::Black, false),
        (Variant::Standard, [2, 4, 4], Colour::Black, false),
        (Variant::Blitz, [2, 0, 0], Colour::White, true),
        (Variant::Blitz, [0, 3, 0], Colour::Grey, true),
        (Variant::Blitz, [0, 0, 4], Colour::Black, true),
        (Variant::Blitz, [2, 2, 1], Colour::Black, true),
        (Variant::Blitz, [2, 2, 0], Colour::Black, false),
        (Variant::Blitz, [1, 3, 0], Colour::White, false),
    ];
    for (variant, before, colour, wins) in cases {
        let position = build(
            Setup::new(variant)
                .marbles(&format!("Bd3 {}d4", colour.letter()))
                .captures(Player::One, before),
        );
        let end = play(&position, &format!("xd3{}d5", colour.letter()));
        let expected = if wins {
            Status::Over(Outcome::Win(Player::One))
        } else {
            Status::Ongoing
        };
        assert_eq!(end.status(), expected, "{variant} {before:?} + {colour}");
    }
    let at_goal = Setup::new(Variant::Standard)
        .captures(Player::Two, [4, 0, 0])
        .build();
    assert!(at_goal.is_err(), "a player already at a goal is refused");
}

// ---------------------------------------------------------------------------------------------
// Repetition

#[test]
fn third_occurrence_is_a_draw() {
    // The rim board with grey on c3 and black on d5: the pool is empty and no ring is ever
    // free, so the players can go round an 18-turn cycle (found by a search of this position's
    // turn graph), a pass included.
    let start = build(
        rim_board()
            .marbles(&format!("{RIM} Gc3 Bd5"))
            .captures(Player::One, [2, 1, 0])
            .captures(Player::Two, [1, 0, 0]),
    );
    let cycle = "Gc5 xc5Be4 Wf3 xf3Gd5 Wc5 xc5We4 pass Bf3 xf3Wd5 \
                 Gc5 xc5Be4 Wf3 xf3Gd5 Wc5 xc5We4 pass Bf3 xf3Wd5";
    let turns: Vec<&str> = cycle.split_whitespace().collect();
    assert_eq!(turns.len(), 18);
    let mut position = start.clone();
    let mut seen: HashMap<u64, usize> = HashMap::from([(start.position_hash(), 1)]);
    let mut draw_at = None;
    for (i, &text) in turns.iter().cycle().take(2 * turns.len()).enumerate() {
        let turn = position
            .parse_turn(text)
            .unwrap_or_else(|e| panic!("turn {i} {text}: {e}"));
        position.play(&turn);
        let count = seen.entry(position.position_hash()).or_insert(0);
        *count += 1;
        if i == turns.len() - 1 {
            assert_eq!(
                position.position_hash(),
                start.position_hash(),
                "the cycle closes"
            );
        }
        if *count == 3 {
            assert_eq!(position.status(), Status::Over(Outcome::Draw), "turn {i}");
            draw_at = Some(i);
            break;
        }
        assert_eq!(position.status(), Status::Ongoing, "turn {i}");
    }
    // The start counts as the first occurrence: the second return to it is the third.
    assert_eq!(draw_at, Some(2 * turns.len() - 1));
}

// ---------------------------------------------------------------------------------------------
// Perft: the turn layer and the action layer are written separately and must agree.

// Depth-2 counts from the start. Besides the two layers here, they were checked by a separate
// 30-line script over the column table alone (no engine code): after the first placement and
// removal nothing can be captured, so the count is a sum over first turns of
// 3 colours × Σ over vacant rings v of max(1, free rings other than v).
const PERFT_2: [(Variant, u64); 7] = [
    (Variant::Standard, 3_277_260),
    (Variant::Blitz, 3_277_260),
    (Variant::R40, 4_327_668),
    (Variant::R43, 5_608_800),
    (Variant::R44, 5_889_240),
    (Variant::R48, 7_824_600),
    (Variant::R61, 17_000_496),
];

#[test]
fn perft_depth_two_turns_and_actions_agree() {
    for &(variant, expected) in &PERFT_2[..3] {
        let start = Zertz::new(variant);
        assert_eq!(record::perft(&start, 2), expected, "{variant}: turns");
        assert_eq!(perft_by_actions(&start, 2), expected, "{variant}: actions");
    }
}

#[test]
fn perft_depth_two_large_boards() {
    for &(variant, expected) in &PERFT_2[3..] {
        let start = Zertz::new(variant);
        assert_eq!(record::perft(&start, 2), expected, "{variant}: turns");
        assert_eq!(perft_by_actions(&start, 2), expected, "{variant}: actions");
    }
}

#[test]
fn perft_depth_three_small_position() {
    // Deeper, through captures and isolation, from a position with jumps about.
    let start = play(&loop_position(), "xd4Bf4");
    assert_eq!(record::perft(&start, 3), perft_by_actions(&start, 3));
}

// ---------------------------------------------------------------------------------------------
// Random games

/// Checks that must hold in every position reached.
fn check_position(position: &Zertz, before: &Zertz) {
    let variant = position.variant();
    let board = on_board(position);
    for (c, on) in board.into_iter().enumerate() {
        let held = position.captures(Player::One)[c] + position.captures(Player::Two)[c];
        assert_eq!(
            position.pool()[c] + on + held,
            variant.marbles()[c],
            "marbles conserved"
        );
    }
    for cell in variant.all_cells() {
        if position.has_ring(cell) {
            assert!(before.has_ring(cell), "a ring reappeared");
        } else {
            assert_eq!(position.marble(cell), None, "a marble without a ring");
        }
    }
    for c in 0..3 {
        assert!(
            position.pool()[c] <= before.pool()[c],
            "the pool never refills"
        );
    }
    if before.pool().iter().any(|&n| n > 0) {
        for player in Player::BOTH {
            let (now, then) = (position.captures(player), before.captures(player));
            assert!(
                (0..3).all(|c| now[c] >= then[c]),
                "captures only grow while the pool has marbles"
            );
        }
    }
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    assert_eq!(actions.is_empty(), position.status().is_over());
    assert!(
        actions.windows(2).all(|w| w[0] < w[1]),
        "sorted and distinct"
    );
    assert!(actions
        .iter()
        .all(|a| a.index() < position.spec().action_count));
}

/// The position rebuilt from its visible parts: a validated set-up must accept it.
fn rebuilt(position: &Zertz) -> Zertz {
    let variant = position.variant();
    let rings: Vec<String> = position
        .rings()
        .iter()
        .map(|&c| position.cell_name(c))
        .collect();
    let marbles: Vec<String> = variant
        .all_cells()
        .into_iter()
        .filter_map(|c| {
            position
                .marble(c)
                .map(|m| format!("{}{}", m.letter(), position.cell_name(c)))
        })
        .collect();
    build(
        Setup::new(variant)
            .rings(&rings.join(" "))
            .marbles(&marbles.join(" "))
            .pool(position.pool())
            .captures(Player::One, position.captures(Player::One))
            .captures(Player::Two, position.captures(Player::Two))
            .to_move(position.to_move()),
    )
}

#[test]
fn random_playouts_keep_the_invariants() {
    let mut rng = SplitMix64::new(2024);
    let mut actions = Vec::new();
    for variant in Variant::ALL {
        let mut outcomes = HashMap::new();
        for _ in 0..1500 {
            let mut position = Zertz::new(variant);
            let mut starts: Vec<u64> = vec![position.position_hash()];
            loop {
                position.legal_actions(&mut actions);
                if actions.is_empty() {
                    break;
                }
                let before = position.clone();
                let action = actions[rng.below(actions.len() as u64) as usize];
                position.apply(action);
                check_position(&position, &before);
                if !position.is_turn_start() {
                    assert_eq!(position.to_move(), before.to_move());
                    continue;
                }
                if position.status() == Status::Ongoing {
                    // No full group left, nobody at a goal, marbles conserved: a valid set-up.
                    assert_eq!(rebuilt(&position).position_hash(), position.position_hash());
                }
                // Repetition, counted here over the whole game.
                let hash = position.position_hash();
                let seen = starts.iter().filter(|&&h| h == hash).count();
                starts.push(hash);
                if seen >= 2 {
                    assert_eq!(position.status(), Status::Over(Outcome::Draw));
                } else if position.status() == Status::Over(Outcome::Draw) {
                    assert_eq!(
                        position.pool(),
                        [0, 0, 0],
                        "a draw without repetition: nobody can move"
                    );
                }
            }
            *outcomes
                .entry(format!("{:?}", position.status()))
                .or_insert(0) += 1;
        }
        println!("{variant}: {outcomes:?}");
    }
}

#[test]
fn random_games_agree_between_turns_actions_and_notation() {
    for variant in Variant::ALL {
        for seed in 0..5 {
            let game = record::random_game(&Zertz::new(variant), seed, 1000);
            let mut position = Zertz::new(variant);
            let mut record_text = Vec::new();
            for turn in &game.turns {
                let mut turns = Vec::new();
                position.legal_turns(&mut turns);
                assert!(turns.contains(turn));
                // Every listed turn is an action sequence and every action sequence a turn.
                let sequences = turn_action_sequences(&position);
                assert_eq!(sequences.len(), turns.len(), "{variant} seed {seed}");
                let by_actions: HashMap<Vec<Action>, &Zertz> =
                    sequences.iter().map(|(a, p)| (a.clone(), p)).collect();
                let texts: HashSet<String> =
                    turns.iter().map(|t| position.format_turn(t)).collect();
                assert_eq!(texts.len(), turns.len(), "two turns share a text");
                for listed in &turns {
                    let actions = position.turn_actions(listed);
                    let mut played = position.clone();
                    played.play(listed);
                    assert_eq!(by_actions.get(&actions), Some(&&played));
                    let text = position.format_turn(listed);
                    assert_eq!(&position.parse_turn(&text).unwrap(), listed, "{text}");
                    if let Some(spaced) = text.strip_prefix('x') {
                        assert_eq!(
                            &position.parse_turn(&format!("x {spaced}")).unwrap(),
                            listed
                        );
                    }
                }
                record_text.push(position.format_turn(turn));
                position.play(turn);
            }
            assert_eq!(position, game.position);
            let replayed = record::replay(&Zertz::new(variant), &record_text.join("\n")).unwrap();
            assert_eq!(replayed.position, position);
            assert_eq!(replayed.turns, game.turns);
        }
    }
}

#[test]
fn equal_positions_hash_equal() {
    let start = Zertz::new(Variant::Standard);
    let one = play(&start, "Wd4,a1 Gc3,g4");
    let two = play(&start, "Wd4,g4 Gc3,a1");
    assert_eq!(one, two);
    assert_eq!(one.position_hash(), two.position_hash());
    let three = play(&start, "Wd4,g4 Bc3,a1");
    assert_ne!(one.position_hash(), three.position_hash());
}

// ---------------------------------------------------------------------------------------------
// Symmetries

/// Heights per column from the spec's table, to check adjacency independently of the engine.
fn adjacent(variant: Variant, a: Cell, b: Cell) -> bool {
    let lows: &[i32] = match variant {
        Variant::Standard | Variant::Blitz | Variant::R40 | Variant::R44 => &[3, 2, 1, 0, 1, 2, 3],
        Variant::R43 | Variant::R48 => &[3, 2, 1, 0, 1, 2, 3, 4],
        Variant::R61 => &[4, 3, 2, 1, 0, 1, 2, 3, 4],
    };
    let place = |cell: Cell| {
        let name = variant.cell_name(cell);
        let q = (name.as_bytes()[0] - b'a') as i32;
        let number: i32 = name[1..].parse().unwrap();
        (q, lows[q as usize] + 2 * (number - 1))
    };
    let ((qa, ya), (qb, yb)) = (place(a), place(b));
    (qa == qb && (ya - yb).abs() == 2) || ((qa - qb).abs() == 1 && (ya - yb).abs() == 1)
}

/// The number of adjacency-preserving permutations of the board, by backtracking.
fn count_automorphisms(variant: Variant) -> usize {
    let cells = variant.all_cells();
    let n = cells.len();
    let adj: Vec<Vec<bool>> = cells
        .iter()
        .map(|&a| cells.iter().map(|&b| adjacent(variant, a, b)).collect())
        .collect();
    fn extend(i: usize, image: &mut Vec<usize>, used: &mut Vec<bool>, adj: &[Vec<bool>]) -> usize {
        let n = adj.len();
        if i == n {
            return 1;
        }
        let mut total = 0;
        for j in 0..n {
            if used[j]
                || adj[i].iter().filter(|&&x| x).count() != adj[j].iter().filter(|&&x| x).count()
            {
                continue;
            }
            if (0..i).all(|k| adj[i][k] == adj[j][image[k]]) {
                image.push(j);
                used[j] = true;
                total += extend(i + 1, image, used, adj);
                used[j] = false;
                image.pop();
            }
        }
        total
    }
    extend(0, &mut Vec::with_capacity(n), &mut vec![false; n], &adj)
}

#[test]
fn symmetries_are_the_boards_automorphisms() {
    let expected = [12, 2, 2, 4, 6, 12, 12];
    for (variant, count) in Variant::ALL.into_iter().zip(expected) {
        let start = Zertz::new(variant);
        assert_eq!(start.spec().symmetry_count, count, "{variant}");
        assert_eq!(
            count_automorphisms(variant),
            count,
            "{variant}: independent count"
        );
        let cells = variant.all_cells();
        for sym in 0..count {
            // The cell permutation, read through the place-white actions.
            let image: Vec<usize> = (0..cells.len())
                .map(|i| start.transform_action(sym, Action(i as u16)).index())
                .collect();
            let distinct: HashSet<usize> = image.iter().copied().collect();
            assert_eq!(distinct.len(), cells.len());
            for a in 0..cells.len() {
                for b in 0..cells.len() {
                    assert_eq!(
                        adjacent(variant, cells[a], cells[b]),
                        adjacent(variant, cells[image[a]], cells[image[b]]),
                        "{variant} symmetry {sym}"
                    );
                }
            }
            if sym == 0 {
                assert!(
                    image.iter().enumerate().all(|(i, &j)| i == j),
                    "identity first"
                );
            }
        }
    }
}

#[test]
fn symmetries_map_positions_actions_and_observations() {
    let mut rng = SplitMix64::new(99);
    for variant in Variant::ALL {
        let spec = Zertz::new(variant).spec();
        let mut observed = vec![0.0; spec.observation_len()];
        let mut mapped = vec![0.0; spec.observation_len()];
        let mut expected = vec![0.0; spec.observation_len()];
        for _ in 0..15 {
            let mut position = Zertz::new(variant);
            let mut actions = Vec::new();
            loop {
                position.legal_actions(&mut actions);
                if actions.is_empty() {
                    break;
                }
                let action = actions[rng.below(actions.len() as u64) as usize];
                if rng.below(4) == 0 {
                    position.encode(&mut observed);
                    for sym in 0..spec.symmetry_count {
                        let image = position.transform(sym);
                        image.encode(&mut expected);
                        position.transform_observation(sym, &observed, &mut mapped);
                        assert_eq!(mapped, expected, "{variant} symmetry {sym}");
                        let mut image_actions = Vec::new();
                        image.legal_actions(&mut image_actions);
                        let mut moved: Vec<Action> = actions
                            .iter()
                            .map(|&a| position.transform_action(sym, a))
                            .collect();
                        moved.sort();
                        assert_eq!(moved, image_actions);
                        let mut after = position.clone();
                        after.apply(action);
                        let mut image_after = image.clone();
                        image_after.apply(position.transform_action(sym, action));
                        assert_eq!(after.transform(sym), image_after);
                    }
                    assert_eq!(position.transform(0), position);
                }
                position.apply(action);
            }
        }
    }
}

#[test]
fn observation_planes() {
    let position = play(&loop_position(), "");
    let spec = position.spec();
    assert_eq!((spec.planes, spec.height, spec.width), (18, 7, 7));
    assert_eq!(spec.action_count, 371);
    let mut planes = vec![0.0; spec.observation_len()];
    position.encode(&mut planes);
    let sum_of = |planes: &[f32], p: usize| planes[p * 49..(p + 1) * 49].iter().sum::<f32>();
    let area = 49;
    assert_eq!(sum_of(&planes, 0), 37.0);
    assert_eq!(sum_of(&planes, 1), 37.0);
    assert_eq!(
        (sum_of(&planes, 2), sum_of(&planes, 3), sum_of(&planes, 4)),
        (1.0, 2.0, 1.0)
    );
    assert_eq!(planes[5 * area], 5.0 / 6.0, "pool white");
    assert_eq!(sum_of(&planes, 14), 49.0, "player one to move");
    // Inside a capture: the jumping marble is marked; after a placement, the removal flag.
    let actions = position.turn_actions(&position.parse_turn("xd3Gf3Bd5Gd3").unwrap());
    let mut inside = position.clone();
    inside.apply(actions[0]);
    inside.encode(&mut planes);
    assert_eq!(sum_of(&planes, 16), 1.0);
    let mut placing = Zertz::new(Variant::Standard);
    placing.apply(placing.turn_actions(&placing.parse_turn("Wd4,d1").unwrap())[0]);
    assert!(placing.must_remove());
    placing.encode(&mut planes);
    assert_eq!(sum_of(&planes, 15), 49.0);
    assert_eq!(sum_of(&planes, 17), 18.0, "free rings");
    assert_eq!(sum_of(&planes, 2), 1.0);
}

// ---------------------------------------------------------------------------------------------
// Notation

#[test]
fn record_lines_split_into_turns() {
    let position = Zertz::new(Variant::Standard);
    assert_eq!(
        position.split_turns("Wd4,d1 x d1Gd3Wd5  xe3Gc4 pass"),
        ["Wd4,d1", "x d1Gd3Wd5", "xe3Gc4", "pass"]
    );
    assert_eq!(
        position.split_turns("Wa2,b3 x Wa1Wa2 Bd4"),
        ["Wa2,b3 x Wa1Wa2", "Bd4"]
    );
    assert_eq!(
        position.split_turns("Wa2,b3 xWa1Wa2 x d4Bd6"),
        ["Wa2,b3 xWa1Wa2", "x d4Bd6"]
    );
    assert_eq!(
        position.split_turns("xd4Bd6 x Wa1"),
        ["xd4Bd6", "x Wa1"],
        "a note follows placements only"
    );
    assert_eq!(position.split_turns("Wd4 x"), ["Wd4", "x"]);
    assert!(position.split_turns("  ").is_empty());
}

#[test]
fn malformed_turns_say_what_was_expected() {
    let position = Zertz::new(Variant::Standard);
    for (text, needle) in [
        ("", "a colour"),
        ("Qd4,d1", "a colour"),
        ("Wd9,d1", "d9 is not a cell of the 37-ring board"),
        ("Wh1,d1", "not a cell"),
        ("Wd4;d1", "expected ','"),
        ("Wd4,", "a cell"),
        ("x", "a cell"),
        ("xd4", "a colour"),
        ("xd4G", "a cell"),
        ("wd4,d1", "a colour"),
        ("Wd4,d1 x", "a colour"),
        ("Pass", "a colour"),
    ] {
        match parse_error(&position, text) {
            TurnError::Malformed(message) => assert!(message.contains(needle), "{text}: {message}"),
            other => panic!("{text}: {other:?}"),
        }
    }
    assert!(Zertz::new(Variant::R48).parse_turn("Wh1,a1").is_ok());
    illegal(&position, "xd4Gd6", "no capture is possible");
}

fn mid_game() -> Zertz {
    record::random_game(&Zertz::new(Variant::Standard), 5, 12).position
}

proptest! {
    #[test]
    fn parser_never_panics(text in "\\PC{0,24}") {
        let position = mid_game();
        let _ = position.parse_turn(&text);
        let _ = position.split_turns(&text);
    }

    #[test]
    fn mutated_turns_are_refused_or_legal(index in 0usize..10_000, at in 0usize..16, byte in 0u8..128, cut in 0usize..2) {
        let position = loop_position();
        for position in [position, mid_game(), figure_five()] {
            let texts = texts(&position);
            let mut text = texts[index % texts.len()].clone().into_bytes();
            let at = at % (text.len() + 1);
            if cut == 0 { text.insert(at, byte) } else if at < text.len() { text[at] = byte }
            let text = String::from_utf8(text).unwrap();
            if let Ok(turn) = position.parse_turn(&text) {
                let mut turns = Vec::new();
                position.legal_turns(&mut turns);
                prop_assert!(turns.contains(&turn), "{} parsed to an illegal turn", text);
            }
        }
    }
}
