//! LYNGK rules tests: the spec's known values, one hand-built position per rule, and
//! invariants over many random games checked against a naive reference move generator.
use std::collections::{BTreeSet, HashMap, HashSet};

use gipfzero_games::lyngk::observation::{CELLS, PLANES};
use gipfzero_games::lyngk::{Colour, Direction, Lyngk, Piece, Point, Step, Turn, CANONICAL_PIECES, POINTS};
use gipfzero_games::{record, Action, Game, Outcome, Player, SplitMix64, Status, TurnError};

fn pos(stacks: &str, claims: [&str; 2], to_move: Player) -> Lyngk {
    Lyngk::from_position(stacks, claims, [0, 0], to_move).unwrap()
}

fn p1(stacks: &str, claims: [&str; 2]) -> Lyngk {
    pos(stacks, claims, Player::One)
}

fn moves(g: &Lyngk) -> Vec<String> {
    record::sorted_turn_texts(g)
}

fn point(name: &str) -> Point {
    Point::parse(name).unwrap()
}

fn stack_text(g: &Lyngk, name: &str) -> String {
    g.stack(point(name)).to_string()
}

fn played(g: &Lyngk, text: &str) -> Lyngk {
    let turn = g.parse_turn(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let mut next = g.clone();
    next.play(&turn);
    next
}

fn illegal(g: &Lyngk, text: &str) -> String {
    match g.parse_turn(text) {
        Err(TurnError::Illegal(why)) => why,
        other => panic!("{text} should be illegal, got {other:?}"),
    }
}

fn has(g: &Lyngk, text: &str) -> bool {
    moves(g).iter().any(|m| m == text)
}

// ---------------------------------------------------------------------------------------
// Geometry: the spec's known values, derived independently from the column table.

/// The spec's column table as (column, lowest half-step height, count).
const TABLE: [(i32, i32, i32); 9] = [(0, 6, 1), (1, 3, 4), (2, 0, 7), (3, 1, 6), (4, 0, 7), (5, 1, 6), (6, 0, 7), (7, 3, 4), (8, 6, 1)];

fn table_points() -> Vec<(i32, i32)> {
    TABLE.iter().flat_map(|&(x, h0, n)| (0..n).map(move |k| (x, h0 + 2 * k))).collect()
}

fn table_adjacent(a: (i32, i32), b: (i32, i32)) -> bool {
    let (dx, dh) = ((a.0 - b.0).abs(), (a.1 - b.1).abs());
    (dx == 0 && dh == 2) || (dx == 1 && dh == 1)
}

#[test]
fn board_has_43_points_in_the_spec_order() {
    let names: Vec<String> = Point::all().map(|p| p.to_string()).collect();
    assert_eq!(names.len(), 43);
    let expected: Vec<String> = TABLE
        .iter()
        .flat_map(|&(x, _, n)| (1..=n).map(move |k| format!("{}{}", (b'a' + x as u8) as char, k)))
        .collect();
    assert_eq!(names, expected);
}

#[test]
fn adjacency_matches_the_spec_definition() {
    let table = table_points();
    for p in Point::all() {
        let engine: BTreeSet<usize> = Direction::ALL.iter().filter_map(|&d| p.neighbour(d)).map(|q| q.index()).collect();
        let spec: BTreeSet<usize> =
            (0..POINTS).filter(|&q| table_adjacent(table[p.index()], table[q])).collect();
        assert_eq!(engine, spec, "neighbours of {p}");
    }
}

#[test]
fn known_values_distances_and_star_tips() {
    let table = table_points();
    let centre = point("e4").index();
    // Breadth-first distances over the spec's adjacency.
    let mut distance = vec![usize::MAX; POINTS];
    distance[centre] = 0;
    let mut frontier = vec![centre];
    while let Some(p) = frontier.pop() {
        for q in 0..POINTS {
            if table_adjacent(table[p], table[q]) && distance[q] > distance[p] + 1 {
                distance[q] = distance[p] + 1;
                frontier.push(q);
            }
        }
    }
    let count = |d: usize| distance.iter().filter(|&&x| x == d).count();
    assert_eq!([count(0), count(1), count(2), count(3), count(4)], [1, 6, 12, 18, 6]);
    let tips: BTreeSet<String> = Point::all()
        .filter(|p| Direction::ALL.iter().filter(|&&d| p.neighbour(d).is_some()).count() == 2)
        .map(|p| p.to_string())
        .collect();
    let expected: BTreeSet<String> = ["a1", "c1", "c7", "g1", "g7", "i1"].iter().map(|s| s.to_string()).collect();
    assert_eq!(tips, expected);
    for p in Point::all() {
        assert_eq!(p.distance_from_centre() as usize, distance[p.index()], "{p}");
    }
}

#[test]
fn the_board_has_12_symmetries_and_1440_with_colours() {
    let g = Lyngk::from_seed(5);
    assert_eq!(g.spec().symmetry_count, 1440);
    assert_eq!(gipfzero_games::lyngk::geometry::board_symmetry_count(), 12);
    assert_eq!(gipfzero_games::lyngk::symmetries::symmetry_count(), 1440);
    let table = table_points();
    let mut images = HashSet::new();
    for board in 0..12 {
        let sym = board * 120;
        // A symmetry keeps adjacency: read the point map off the start action of each point.
        let image: Vec<usize> = Point::all()
            .map(|p| match Step::from_action(g.transform_action(sym, Step::Start(p, Direction::ALL[0]).action())) {
                Some(Step::Start(q, _)) => q.index(),
                other => panic!("{other:?}"),
            })
            .collect();
        for a in 0..POINTS {
            for b in 0..POINTS {
                assert_eq!(table_adjacent(table[a], table[b]), table_adjacent(table[image[a]], table[image[b]]));
            }
        }
        assert!(images.insert(image), "board symmetry {board} repeats another");
    }
    assert_eq!(g.transform(0), g);
}

// ---------------------------------------------------------------------------------------
// Set-up.

#[test]
fn set_up_strings_are_checked() {
    let good = "BRKGBRWIWRIIWGBKIBGKRKGGIRKBRGRGBKBGIBIKIRK";
    let g = Lyngk::from_setup(good).unwrap();
    assert_eq!(g.setup_string(), good);
    assert_eq!(stack_text(&g, "a1"), "B");
    assert_eq!(stack_text(&g, "b1"), "R");
    assert_eq!(stack_text(&g, "i1"), "K");
    assert_eq!(g.pieces_on_board(), 43);
    let short = &good[..42];
    assert!(Lyngk::from_setup(short).unwrap_err().0.contains("43 letters"));
    let bad_letter = format!("X{}", &good[1..]);
    assert!(Lyngk::from_setup(&bad_letter).unwrap_err().0.contains("'X' for point a1"));
    let four_jokers = format!("W{}", &good[1..]);
    let err = Lyngk::from_setup(&four_jokers).unwrap_err().0;
    assert!(err.contains("7 'B'"), "{err}");
}

#[test]
fn seeded_set_up_is_the_documented_shuffle() {
    for seed in [0u64, 1, 42, u64::MAX] {
        let mut letters: Vec<char> = CANONICAL_PIECES.chars().collect();
        let mut rng = SplitMix64::new(seed);
        for i in (1..letters.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            letters.swap(i, j);
        }
        let expected: String = letters.into_iter().collect();
        assert_eq!(Lyngk::from_seed(seed).setup_string(), expected);
    }
    assert_eq!(CANONICAL_PIECES, format!("{}{}{}{}{}WWW", "I".repeat(8), "B".repeat(8), "R".repeat(8), "G".repeat(8), "K".repeat(8)));
    // Pinned after checking the line above against docs/games/lyngk.md.
    assert_eq!(Lyngk::from_seed(0).setup_string(), "BRKGBRWIWRIIWGBKIBGKRKGGIRKBRGRGBKBGIBIKIRK");
    assert_ne!(Lyngk::from_seed(1).setup_string(), Lyngk::from_seed(0).setup_string());
    let any = p1("e1=R e2=I", ["R", ""]);
    assert_eq!(any.seeded_start(42), Lyngk::from_seed(42));
    // Records carry the set-up through the Game trait; a hand-built position has none.
    assert_eq!(Lyngk::from_seed(0).setup_text().as_deref(), Some("BRKGBRWIWRIIWGBKIBGKRKGGIRKBRGRGBKBGIBIKIRK"));
    assert_eq!(any.setup_text(), None);
}

#[test]
fn hand_built_positions_are_validated() {
    let bad = [
        ("e4=RR", ["", ""]),
        ("e4=IBRGKW", ["", ""]),
        ("e4=R e4=B", ["", ""]),
        ("z9=R", ["", ""]),
        ("e4=X", ["", ""]),
        ("e4=", ["", ""]),
        ("e4", ["", ""]),
        ("e1=R", ["RBG", ""]),
        ("e1=R", ["R", "R"]),
        ("e1=R", ["W", ""]),
        ("a1=W b1=W b2=W b3=W", ["", ""]),
    ];
    for (stacks, claims) in bad {
        assert!(Lyngk::from_position(stacks, claims, [0, 0], Player::One).is_err(), "{stacks} {claims:?}");
    }
    assert!(Lyngk::from_position("e1=R", ["", ""], [5, 4], Player::One).is_err());
    let g = Lyngk::from_position("e1=WRW e2=B", ["R", "BG"], [1, 2], Player::Two).unwrap();
    assert_eq!(g.to_move(), Player::Two);
    assert_eq!(g.score(), [1, 2]);
    assert_eq!(stack_text(&g, "e1"), "WRW");
}

// ---------------------------------------------------------------------------------------
// The spec's worked example and the LYNGK rule.

#[test]
fn worked_chained_move_b4_b1_c3_e2() {
    let g = p1("b4=B b1=IB c3=B e2=R", ["B", ""]);
    assert!(has(&g, "b4-b1-c3-e2"), "{:?}", moves(&g));
    let turn = g.parse_turn("b4-b1-c3-e2").unwrap();
    let actions = g.turn_actions(&turn);
    let b4 = point("b4");
    // Down column b, then up-right to c3, then down-right across d2 to e2.
    assert_eq!(
        actions,
        vec![
            Step::Start(b4, Direction::ALL[3]).action(),
            Step::Continue(Direction::ALL[1]).action(),
            Step::Continue(Direction::ALL[2]).action(),
        ]
    );
    let after = played(&g, "b4-b1-c3-e2");
    assert_eq!(stack_text(&after, "e2"), "RB");
    assert_eq!(stack_text(&after, "b4"), ".");
    assert_eq!(stack_text(&after, "b1"), "IB");
    assert_eq!(stack_text(&after, "c3"), "B");
    assert_eq!(after.to_move(), Player::Two);
}

#[test]
fn lyngk_chains_only_for_the_movers_own_colour() {
    // Blue neutral: b4 cannot chain through b1 (and cannot land on it: blue would repeat).
    let neutral = p1("b4=B b1=IB c3=B e2=R", ["", ""]);
    assert!(!moves(&neutral).iter().any(|m| m.starts_with("b4-b1")));
    let why = illegal(&neutral, "b4-b1-c3-e2");
    assert!(why.contains("only for a colour the mover has claimed"), "{why}");
    // Blue held by the opponent: player 1 may not move b4 at all.
    let opponents = p1("b4=B b1=IB c3=B e2=R", ["", "B"]);
    assert!(!moves(&opponents).iter().any(|m| m.contains("b4-")));
    assert!(illegal(&opponents, "b4-b1-c3-e2").contains("claimed by player 2"));
    // A claim made this turn counts at once.
    assert!(has(&neutral, "B,b4-b1-c3-e2"));
}

#[test]
fn each_lyngk_point_is_used_once_and_blocks_its_line_afterwards() {
    // d4 runs down-right to e4 (blue), up to e6 (blue). Coming back down from e6 reaches e4
    // again: used, so the line ends there and e2 beyond it is not reachable that way.
    let g = p1("d4=B e4=B e6=B e2=R", ["B", ""]);
    let all = moves(&g);
    assert!(all.contains(&"d4-e4-e2".to_string()), "{all:?}");
    assert!(!all.iter().any(|m| m.starts_with("d4-e4-e6-")), "{all:?}");
    assert!(illegal(&g, "d4-e4-e6-e4-e2").contains("e4"));
}

#[test]
fn the_vacated_origin_is_crossed_like_an_empty_point_and_paths_are_distinct_moves() {
    let g = p1("e3=B e5=B e1=R", ["B", ""]);
    let all = moves(&g);
    // e3 up to e5, then back down across e4, e3 (its own origin) and e2 to e1.
    assert!(all.contains(&"e3-e5-e1".to_string()), "{all:?}");
    // The direct move to the same landing is another move.
    assert!(all.contains(&"e3-e1".to_string()));
    let a = played(&g, "e3-e5-e1");
    let b = played(&g, "e3-e1");
    assert_eq!(stack_text(&a, "e1"), "RB");
    assert_eq!(a.position_hash(), b.position_hash());
}

#[test]
fn a_joker_is_never_a_lyngk_point_but_can_be_landed_on() {
    let g = p1("d4=B e4=W e1=R", ["B", ""]);
    let all = moves(&g);
    assert!(all.contains(&"d4-e4".to_string()), "{all:?}");
    assert!(!all.iter().any(|m| m.starts_with("d4-e4-")));
    assert_eq!(stack_text(&played(&g, "d4-e4"), "e4"), "WB");
}

#[test]
fn dead_end_chains_are_not_moves_and_their_start_is_not_offered() {
    // b4 down to b1 (blue, a LYNGK point); every line from b1 is empty.
    let g = p1("b4=B b1=B g1=R g2=I", ["B", ""]);
    assert!(!moves(&g).iter().any(|m| m.starts_with("b4-b1")));
    let mut actions = Vec::new();
    g.legal_actions(&mut actions);
    assert!(!actions.contains(&Step::Start(point("b4"), Direction::ALL[3]).action()));
    assert!(actions.contains(&Step::Start(point("g1"), Direction::ALL[0]).action()));
}

#[test]
fn inside_a_chain_only_continuations_with_a_complete_move_are_offered() {
    // e1 up to e3 (LYNGK point); from e3: up reaches e5 (red, a landing), down-right
    // reaches f2 (blue, another LYNGK point) with a dead end behind it.
    let g = p1("e1=B e3=B e5=R f2=B", ["B", ""]);
    let mut actions = Vec::new();
    let mut inside = g.clone();
    inside.apply(Step::Start(point("e1"), Direction::ALL[0]).action());
    assert!(!inside.is_turn_start());
    assert_eq!(inside.to_move(), Player::One);
    inside.legal_actions(&mut actions);
    let continuations: Vec<Action> = actions.clone();
    assert!(continuations.contains(&Step::Continue(Direction::ALL[0]).action()));
    assert!(!continuations.contains(&Step::Continue(Direction::ALL[2]).action()), "f2 leads nowhere");
    assert!(actions.iter().all(|a| matches!(Step::from_action(*a), Some(Step::Continue(_)))));
    // Turns are only listed and read at a turn start.
    assert!(moves(&inside).is_empty());
    assert!(illegal(&inside, "e3-e5").contains("under way"));
    assert_eq!(inside.status(), Status::Ongoing);
}

#[test]
fn a_claimed_5_stack_left_on_the_board_is_a_lyngk_point_for_its_claimer_and_never_moves() {
    // The neutral 5-stack at e4 (black on top) was built before black was claimed.
    let g = p1("e1=K e4=IBRGK e7=R", ["K", ""]);
    let all = moves(&g);
    assert!(all.contains(&"e1-e4-e7".to_string()), "{all:?}");
    assert!(!all.iter().any(|m| m.starts_with("e4-") || m.ends_with("-e4")), "{all:?}");
    let after = played(&g, "e1-e4-e7");
    assert_eq!(after.score(), [0, 0]);
    assert_eq!(stack_text(&after, "e4"), "IBRGK");
}

// ---------------------------------------------------------------------------------------
// Moving.

#[test]
fn moves_run_straight_across_empty_points_to_the_first_occupied_point() {
    let g = p1("e1=R e4=B e7=G", ["", ""]);
    assert_eq!(moves(&g), s(&[
        // Without a claim, then with each of the five claims.
        "B,e1-e4", "B,e4-e1", "B,e4-e7", "B,e7-e4",
        "G,e1-e4", "G,e4-e1", "G,e4-e7", "G,e7-e4",
        "I,e1-e4", "I,e4-e1", "I,e4-e7", "I,e7-e4",
        "K,e1-e4", "K,e4-e1", "K,e4-e7", "K,e7-e4",
        "R,e1-e4", "R,e4-e1", "R,e4-e7", "R,e7-e4",
        "e1-e4", "e4-e1", "e4-e7", "e7-e4",
    ]));
    assert!(illegal(&g, "e1-e7").contains("stops at e4"));
    assert!(illegal(&g, "e1-e3").contains("empty"));
    assert!(illegal(&g, "e1-f3").contains("not on one line"));
    assert!(illegal(&g, "e2-e4").contains("no piece on e2"));
}

fn s(items: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = items.iter().map(|x| x.to_string()).collect();
    v.sort();
    v
}

#[test]
fn a_single_joker_never_moves_nor_does_a_joker_topped_stack() {
    let g = p1("e1=W e2=R e3=BW", ["", ""]);
    let all = moves(&g);
    assert!(!all.iter().any(|m| m.starts_with("e1-") || m.contains(",e1-")));
    assert!(!all.iter().any(|m| m.starts_with("e3-") || m.contains(",e3-")));
    assert!(all.contains(&"e2-e1".to_string()));
    assert!(illegal(&g, "e1-e2").contains("joker"));
}

#[test]
fn stacks_hold_at_most_five_and_no_colour_twice_but_jokers_may_share() {
    let g = p1("e1=IBRG e2=KB e4=W e5=WR", ["G", ""]);
    // IBRG (own green top) onto KB: 6 high. Onto W at e4 (crossing nothing): no line.
    assert!(illegal(&g, "e2-e1").contains("higher than 5"));
    assert!(illegal(&g, "e1-e2").contains("higher than 5"));
    // Two jokers in one stack: WR (neutral, 2 high) lands on the single W at e4.
    assert!(has(&g, "e5-e4"));
    assert_eq!(stack_text(&played(&g, "e5-e4"), "e4"), "WWR");
    // KB onto IBRG would repeat blue and be 6 high.
    let repeat = p1("e1=IBR e2=KB g7=G g6=I", ["B", ""]);
    let why = illegal(&repeat, "e2-e1");
    assert!(why.contains("twice"), "{why}");
    assert!(!has(&repeat, "e1-e2") && !has(&repeat, "e2-e1"));
}

#[test]
fn a_neutral_single_lands_only_on_a_single_piece() {
    let g = p1("e1=R e2=IB e5=G e6=K", ["", ""]);
    assert!(!has(&g, "e1-e2"));
    assert!(illegal(&g, "e1-e2").contains("no higher than itself"));
    assert!(has(&g, "e5-e6"));
    // Owned, the same single may land on the stack.
    let owned = p1("e1=R e2=IB", ["R", ""]);
    assert!(has(&owned, "e1-e2"));
}

#[test]
fn a_neutral_topped_stack_lands_only_on_a_stack_no_higher_than_itself() {
    let g = p1("e1=IB e2=GK e4=RWI", ["", ""]);
    // IB onto GK (equal height) and onto a single is fine; GK onto RWI (higher) is not.
    assert!(has(&g, "e1-e2"));
    assert!(illegal(&g, "e2-e4").contains("no higher than itself"));
    // RWI is higher than GK, so it may land on it.
    assert!(has(&g, "e4-e2"));
    // Owned (black), GK may land on the higher stack.
    let owned = p1("e1=IB e2=GK e4=RWI", ["K", ""]);
    assert!(has(&owned, "e2-e4"));
}

#[test]
fn the_top_decides_who_moves_a_stack() {
    // Player 2 holds red: only player 2 moves the red-topped BR; either player moves the
    // neutral-topped IK.
    let one = p1("e1=BR e2=IK", ["", "R"]);
    assert!(!moves(&one).iter().any(|m| m.contains("e1-")), "{:?}", moves(&one));
    assert!(illegal(&one, "e1-e2").contains("claimed by player 2"));
    assert!(has(&one, "e2-e1"));
    let two = pos("e1=BR e2=IK", ["", "R"], Player::Two);
    assert!(has(&two, "e1-e2") && has(&two, "e2-e1"), "{:?}", moves(&two));
}

// ---------------------------------------------------------------------------------------
// Claims.

#[test]
fn claiming_is_optional_and_each_claim_move_pair_is_a_distinct_turn() {
    let g = p1("e1=R e2=I", ["", ""]);
    let mut expected = vec!["e1-e2".to_string(), "e2-e1".to_string()];
    for c in ["B", "G", "I", "K", "R"] {
        expected.push(format!("{c},e1-e2"));
        expected.push(format!("{c},e2-e1"));
    }
    expected.sort();
    assert_eq!(moves(&g), expected);
    let after = played(&g, "G,e1-e2");
    assert_eq!(after.claims(Player::One), Colour::GREEN.bit());
    assert_eq!(stack_text(&after, "e2"), "IR");
}

#[test]
fn a_claim_is_followed_by_a_move_in_the_same_turn() {
    let g = p1("e1=R e2=I", ["", ""]);
    let mut after_claim = g.clone();
    after_claim.apply(Step::Claim(Colour::GREEN).action());
    assert!(!after_claim.is_turn_start());
    assert_eq!(after_claim.to_move(), Player::One);
    let mut actions = Vec::new();
    after_claim.legal_actions(&mut actions);
    let steps: Vec<Step> = actions.iter().map(|&a| Step::from_action(a).unwrap()).collect();
    assert_eq!(
        steps,
        vec![Step::Start(point("e1"), Direction::ALL[0]), Step::Start(point("e2"), Direction::ALL[3])]
    );
    assert!(illegal(&g, "pass").contains("may not pass"));
}

#[test]
fn at_most_two_claims_per_player_and_only_neutral_colours() {
    let g = p1("e1=R e2=I", ["RG", "B"]);
    let all = moves(&g);
    assert!(all.iter().all(|m| !m.contains(',')), "{all:?}");
    assert!(illegal(&g, "K,e1-e2").contains("already holds 2"));
    let h = p1("e1=R e2=I", ["R", "B"]);
    assert!(illegal(&h, "B,e1-e2").contains("already claimed"));
    assert!(illegal(&h, "R,e1-e2").contains("already claimed"));
    assert!(has(&h, "K,e1-e2") && has(&h, "G,e1-e2") && has(&h, "I,e1-e2"));
    assert!(!has(&h, "B,e1-e2"));
}

#[test]
fn claiming_is_forced_when_it_is_the_only_way_to_move_and_counts_for_the_5_stack() {
    // Red single cannot land on the 4-stack while neutral; black is player 2's. Claiming red
    // makes it land, and the 5-stack with player 1's red on top is removed at once.
    let g = p1("e1=R e2=IBGK", ["", "K"]);
    assert_eq!(moves(&g), vec!["R,e1-e2".to_string()]);
    let mut actions = Vec::new();
    g.legal_actions(&mut actions);
    assert_eq!(actions, vec![Step::Claim(Colour::RED).action()]);
    assert!(illegal(&g, "e1-e2").contains("no higher than itself"));
    let after = played(&g, "R,e1-e2");
    assert_eq!(after.score(), [1, 0]);
    assert_eq!(stack_text(&after, "e2"), ".");
    assert_eq!(after.pieces_on_board(), 0);
    assert_eq!(after.status(), Status::Over(Outcome::Win(Player::One)));
    assert_eq!(after.result_text(), "player 1 wins: 5-stacks 1 - 0");
}

#[test]
fn a_claim_then_a_chained_move_completing_an_own_5_stack_scores_in_the_same_turn() {
    // The rule book's figure 5 situation: claim black, chain through the black single at e3
    // and complete the 5-stack at e5 with black on top.
    let g = p1("e1=K e3=K e5=IBRG", ["", ""]);
    assert!(!moves(&g).iter().any(|m| m.starts_with("e1-")));
    let after = played(&g, "K,e1-e3-e5");
    assert_eq!(after.score(), [1, 0]);
    assert_eq!(after.claims(Player::One), Colour::BLACK.bit());
    assert_eq!(stack_text(&after, "e5"), ".");
    assert_eq!(stack_text(&after, "e3"), "K");
}

#[test]
fn a_colour_claimed_this_turn_starts_chains_at_once() {
    let g = p1("e1=B e3=B e5=R", ["", ""]);
    assert!(has(&g, "B,e1-e3-e5"));
    assert!(!moves(&g).iter().any(|m| m.starts_with("e1-e3")));
}

// ---------------------------------------------------------------------------------------
// 5-stacks.

#[test]
fn an_own_topped_5_stack_is_removed_at_once_and_scores() {
    let g = p1("e1=IBWG e2=R", ["R", ""]);
    // R (owned) onto IBWG: a full 5-stack with a joker, red on top: removed.
    let after = played(&g, "e2-e1");
    assert_eq!(after.score(), [1, 0]);
    assert_eq!(stack_text(&after, "e1"), ".");
    // Same move by neutral red: a single may not land on a stack at all.
    let neutral = p1("e1=IBWG e2=R e7=K", ["", ""]);
    assert!(!has(&neutral, "e2-e1"));
}

#[test]
fn a_neutral_topped_5_stack_stays_as_an_obstacle_for_nobody() {
    // Neutral green-topped IBRG lands on the single black: 5 high, neutral top, stays.
    let g = p1("e1=IBRG e2=K e7=I", ["", ""]);
    let after = played(&g, "e1-e2");
    assert_eq!(stack_text(&after, "e2"), "KIBRG");
    assert_eq!(after.score(), [0, 0]);
    // Nothing lands on it and it never moves (e7 reaches it down the column).
    assert!(!moves(&after).iter().any(|m| m.contains("e2")), "{:?}", moves(&after));
    // Claiming green later gives nobody a point for it.
    let later = p1("e2=KIBRG e7=I", ["G", ""]);
    assert_eq!(later.score(), [0, 0]);
    assert_eq!(later.controlled_stacks(Player::One), [0, 0, 0, 0]);
}

// ---------------------------------------------------------------------------------------
// Passing and the end of the game.

#[test]
fn a_player_without_any_move_passes_and_moves_again_when_able() {
    // Player 1 holds I and G (none on the board) and may claim no more; the black single at
    // e7 is neutral but blocked: its only line ends on player 2's 2-stack at e6.
    let g = p1("e7=K e6=RB e3=W c7=W", ["IG", "RB"]);
    assert_eq!(moves(&g), vec!["pass".to_string()]);
    let mut actions = Vec::new();
    g.legal_actions(&mut actions);
    assert_eq!(actions, vec![Step::Pass.action()]);
    assert!(illegal(&g, "e7-e6").contains("must pass"));
    let after = played(&g, "pass");
    assert_eq!(after.to_move(), Player::Two);
    assert_eq!(after.status(), Status::Ongoing);
    assert!(illegal(&after, "pass").contains("may not pass"));
    // Player 2 moves the 2-stack out of the column: player 1 must move again.
    let again = played(&after, "e6-c7");
    assert_eq!(stack_text(&again, "c7"), "WRB");
    assert_eq!(again.to_move(), Player::One);
    assert_eq!(moves(&again), vec!["e7-e3".to_string()]);
}

#[test]
fn the_game_ends_when_neither_player_can_move() {
    // Heights 3 and 4 can never meet (7 > 5).
    let g = p1("e1=IBR e2=GWWK", ["R", "K"]);
    assert!(g.status().is_over());
    assert!(moves(&g).is_empty());
    let mut actions = Vec::new();
    g.legal_actions(&mut actions);
    assert!(actions.is_empty());
    // player 2 controls a 4-stack, player 1 a 3-stack: 4 comes first.
    assert_eq!(g.status(), Status::Over(Outcome::Win(Player::Two)));
    assert_eq!(g.result_text(), "player 2 wins: 5-stacks 0 - 0, controlled stacks of 4 0 - 1");
}

fn over(stacks: &str, claims: [&str; 2], removed: [u32; 2]) -> Lyngk {
    let g = Lyngk::from_position(stacks, claims, removed, Player::One).unwrap();
    assert!(g.status().is_over(), "{}", g.render_text());
    g
}

#[test]
fn the_most_removed_5_stacks_win_before_any_tie_break() {
    let g = over("e1=IBRG e4=BKWI", ["G", "I"], [1, 0]);
    assert_eq!(g.status(), Status::Over(Outcome::Win(Player::One)));
    let g = over("e1=IBRG e4=RKWI", ["G", "I"], [1, 2]);
    assert_eq!(g.status(), Status::Over(Outcome::Win(Player::Two)));
    assert_eq!(g.result_text(), "player 2 wins: 5-stacks 1 - 2");
}

#[test]
fn ties_are_broken_by_controlled_stacks_of_4_then_3_then_2_then_1() {
    // 4-stacks equal (one each), 3-stacks decide for player 1.
    let g = over("e1=IBRG e4=BKWI e7=KIB e3=RGK", ["G", "I"], [0, 0]);
    assert_eq!(g.controlled_stacks(Player::One), [1, 0, 0, 0]);
    let g = over("e1=IBRG e4=BKWI e7=KIG", ["G", "I"], [0, 0]);
    assert_eq!(g.controlled_stacks(Player::One), [1, 1, 0, 0]);
    assert_eq!(g.controlled_stacks(Player::Two), [1, 0, 0, 0]);
    assert_eq!(g.status(), Status::Over(Outcome::Win(Player::One)));
    assert_eq!(g.result_text(), "player 1 wins: 5-stacks 0 - 0, controlled stacks of 3 1 - 0");
    // Single pieces decide when all else is equal: a1 and c1 share no line.
    let g = over("a1=I c1=K", ["I", "K"], [0, 0]);
    assert_eq!(g.status(), Status::Over(Outcome::Draw));
    assert_eq!(g.result_text(), "draw: 5-stacks 0 - 0, controlled stacks equal");
    let g = over("a1=I c1=R", ["I", "K"], [0, 0]);
    assert_eq!(g.status(), Status::Over(Outcome::Win(Player::One)));
    assert_eq!(g.result_text(), "player 1 wins: 5-stacks 0 - 0, controlled stacks of 1 1 - 0");
    // 2-stacks before singles.
    let g = over("a1=IR c1=KW e4=G", ["R", "KG"], [0, 0]);
    assert_eq!(g.controlled_stacks(Player::One), [0, 0, 1, 0]);
    assert_eq!(g.status(), Status::Over(Outcome::Win(Player::One)));
}

#[test]
fn five_stacks_on_the_board_never_count() {
    let g = over("e1=IBRGK e4=BKWRI", ["K", "I"], [0, 0]);
    assert_eq!(g.controlled_stacks(Player::One), [0, 0, 0, 0]);
    assert_eq!(g.status(), Status::Over(Outcome::Draw));
    assert_eq!(g.score(), [0, 0]);
}

// ---------------------------------------------------------------------------------------
// Reference model: a naive generator that walks neighbour by neighbour and knows nothing of
// bitboards, packed stacks or actions.

struct Reference {
    board: Vec<Vec<Piece>>,
    claims: [Vec<Colour>; 2],
}

impl Reference {
    fn of(g: &Lyngk) -> Reference {
        Reference {
            board: Point::all().map(|p| g.stack(p).pieces().collect()).collect(),
            claims: [Player::One, Player::Two].map(|pl| Colour::ALL.into_iter().filter(|c| g.claims(pl) & c.bit() != 0).collect()),
        }
    }

    fn claimable(&self, player: usize) -> Vec<Colour> {
        if self.claims[player].len() >= 2 {
            return vec![];
        }
        Colour::ALL.into_iter().filter(|c| !self.claims[0].contains(c) && !self.claims[1].contains(c)).collect()
    }

    fn moves(&self, player: usize, claim: Option<Colour>) -> Vec<Vec<Point>> {
        let mut own = self.claims[player].clone();
        own.extend(claim);
        let mut out = Vec::new();
        for origin in Point::all() {
            let moving = &self.board[origin.index()];
            let Some(Piece::Coloured(top)) = moving.last().copied() else { continue };
            if self.claims[1 - player].contains(&top) {
                continue;
            }
            let is_own = own.contains(&top);
            for d in Direction::ALL {
                self.walk(origin, origin, d, moving, is_own, &mut vec![origin], &mut out);
            }
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn walk(&self, origin: Point, from: Point, d: Direction, moving: &[Piece], own: bool, path: &mut Vec<Point>, out: &mut Vec<Vec<Point>>) {
        let mut at = from;
        let target = loop {
            match at.neighbour(d) {
                None => return,
                Some(next) if next == origin || self.board[next.index()].is_empty() => at = next,
                Some(next) => break next,
            }
        };
        let stack = &self.board[target.index()];
        if own && stack.last() == moving.last() {
            if path[1..].contains(&target) {
                return;
            }
            path.push(target);
            for d in Direction::ALL {
                self.walk(origin, target, d, moving, own, path, out);
            }
            path.pop();
            return;
        }
        let colours = |s: &[Piece]| s.iter().filter_map(|p| p.colour()).collect::<Vec<_>>();
        let repeat = colours(moving).iter().any(|c| colours(stack).contains(c));
        let fits = stack.len() + moving.len() <= 5 && !repeat && (own || stack.len() <= moving.len());
        if fits {
            let mut full = path.clone();
            full.push(target);
            out.push(full);
        }
    }

    fn turn_texts(&self, player: usize) -> Vec<String> {
        let name = |path: &Vec<Point>| path.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("-");
        let mut out: Vec<String> = self.moves(player, None).iter().map(name).collect();
        for c in self.claimable(player) {
            out.extend(self.moves(player, Some(c)).iter().map(|m| format!("{c},{}", name(m))));
        }
        out.sort();
        out
    }

    fn legal_turn_texts(&self, player: usize) -> Vec<String> {
        let mine = self.turn_texts(player);
        if !mine.is_empty() {
            return mine;
        }
        if self.turn_texts(1 - player).is_empty() {
            vec![]
        } else {
            vec!["pass".into()]
        }
    }
}

/// Every complete action sequence from a turn start, with the position it leads to.
fn action_sequences(g: &Lyngk, prefix: &mut Vec<Action>, out: &mut Vec<(Vec<Action>, Lyngk)>) {
    let mut actions = Vec::new();
    g.legal_actions(&mut actions);
    assert!(!actions.is_empty(), "a dead end inside a turn after {prefix:?}");
    let mut sorted = actions.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted, actions, "legal actions must be ascending and distinct");
    for a in actions {
        let mut next = g.clone();
        next.apply(a);
        prefix.push(a);
        if next.is_turn_start() {
            assert_ne!(next.to_move(), g.to_move(), "a turn hands over the move");
            out.push((prefix.clone(), next));
        } else {
            assert_eq!(next.to_move(), g.to_move(), "the mover keeps the move inside a turn");
            action_sequences(&next, prefix, out);
        }
        prefix.pop();
    }
}

fn check_position(g: &Lyngk, removed_before: u32) {
    let mut total = 0;
    for p in Point::all() {
        let s = g.stack(p);
        assert!(s.height() <= 5);
        let colours: Vec<Colour> = s.pieces().filter_map(|x| x.colour()).collect();
        let distinct: HashSet<_> = colours.iter().collect();
        assert_eq!(distinct.len(), colours.len(), "a colour repeats at {p}: {s}");
        total += s.height() as u32;
        // Jokers never move, so play only ever puts them under other pieces.
        assert!(s.height() <= 1 || s.top() != Piece::Joker, "a joker on top of {s} at {p}");
    }
    assert_eq!(total, g.pieces_on_board());
    let [a, b] = g.score();
    assert_eq!(total + 5 * (a + b), 43, "pieces conserved");
    assert!(a + b >= removed_before);
    for player in Player::BOTH {
        assert!(g.claims(player).count_ones() <= 2);
    }
    assert_eq!(g.claims(Player::One) & g.claims(Player::Two), 0);
}

#[test]
fn random_games_agree_with_the_reference_and_keep_every_invariant() {
    let mut games = 0;
    let mut claims_seen = 0;
    let mut chains_seen = 0;
    let mut passes_seen = 0;
    for seed in 0..150u64 {
        let mut g = Lyngk::from_seed(seed);
        let mut rng = SplitMix64::new(seed ^ 0xA5A5);
        while !g.status().is_over() {
            check_position(&g, 0);
            let reference = Reference::of(&g);
            let texts = moves(&g);
            assert_eq!(texts, reference.legal_turn_texts(g.to_move().index()), "\n{}", g.render_text());
            let mut turns = Vec::new();
            g.legal_turns(&mut turns);
            // Every turn parses back to itself, and the action tree gives exactly the turns.
            let mut by_actions: HashMap<Vec<Action>, Turn> = HashMap::new();
            for (i, t) in turns.iter().enumerate() {
                // Parsing lists the turns again: check a sample of them.
                if i % 16 == 0 {
                    let text = g.format_turn(t);
                    assert_eq!(g.parse_turn(&text).as_ref(), Ok(t), "{text}");
                }
                assert!(by_actions.insert(g.turn_actions(t), *t).is_none(), "two turns share actions");
            }
            let mut sequences = Vec::new();
            action_sequences(&g, &mut Vec::new(), &mut sequences);
            assert_eq!(sequences.len(), turns.len());
            for (seq, reached) in &sequences {
                let turn = by_actions.get(seq).unwrap_or_else(|| panic!("{seq:?} is no listed turn"));
                let mut via_turn = g.clone();
                via_turn.play(turn);
                assert_eq!(&via_turn, reached);
                assert_eq!(via_turn.position_hash(), reached.position_hash());
            }
            let turn = turns[rng.below(turns.len() as u64) as usize];
            let text = g.format_turn(&turn);
            claims_seen += text.contains(',') as u32;
            chains_seen += (text.matches('-').count() > 1) as u32;
            passes_seen += (text == "pass") as u32;
            let before = g.clone();
            g.play(&turn);
            check_reference_effect(&before, &text, &g);
        }
        check_position(&g, 0);
        games += 1;
    }
    assert_eq!(games, 150);
    assert!(claims_seen > 100 && chains_seen > 100 && passes_seen > 0, "{claims_seen} {chains_seen} {passes_seen}");
}

/// The board after `text` as the rules describe it: origin emptied, the moving stack on top
/// of the landing, removed when 5 high with an own colour on top.
fn check_reference_effect(before: &Lyngk, text: &str, after: &Lyngk) {
    let player = before.to_move().index();
    let mut board = Reference::of(before);
    let mut score = before.score();
    if text != "pass" {
        let (claim, path) = match text.split_once(',') {
            Some((c, rest)) => (Colour::from_letter(c.chars().next().unwrap()), rest),
            None => (None, text),
        };
        board.claims[player].extend(claim);
        board.claims[player].sort();
        let points: Vec<Point> = path.split('-').map(point).collect();
        let moving = std::mem::take(&mut board.board[points[0].index()]);
        let landing = points.last().unwrap().index();
        board.board[landing].extend(moving);
        let top = board.board[landing].last().unwrap().colour().unwrap();
        if board.board[landing].len() == 5 && board.claims[player].contains(&top) {
            board.board[landing].clear();
            score[player] += 1;
        }
    }
    let expected = Reference { board: board.board, claims: board.claims };
    let got = Reference::of(after);
    assert_eq!(expected.board, got.board, "{text}");
    assert_eq!(expected.claims, got.claims, "{text}");
    assert_eq!(after.score(), score, "{text}");
}

#[test]
fn thousands_of_random_playouts_keep_the_invariants() {
    let mut buffer = Vec::new();
    let mut lengths = 0;
    for seed in 0..2000u64 {
        let mut g = Lyngk::from_seed(seed);
        let mut rng = SplitMix64::new(seed);
        loop {
            if g.is_turn_start() {
                check_position(&g, 0);
            }
            g.legal_actions(&mut buffer);
            if buffer.is_empty() {
                assert!(g.status().is_over());
                break;
            }
            let a = buffer[rng.below(buffer.len() as u64) as usize];
            g.apply(a);
            lengths += 1;
        }
        assert_eq!(g.status().is_over(), moves(&g).is_empty());
    }
    assert!(lengths > 2000 * 30);
}

fn perft_by_actions(g: &Lyngk, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut sequences = Vec::new();
    if g.status().is_over() {
        return 0;
    }
    action_sequences(g, &mut Vec::new(), &mut sequences);
    sequences.iter().map(|(_, next)| perft_by_actions(next, depth - 1)).sum()
}

#[test]
fn perft_by_turns_equals_perft_by_actions() {
    for seed in [0u64, 7] {
        let start = Lyngk::from_seed(seed);
        assert_eq!(record::perft(&start, 1), perft_by_actions(&start, 1));
        let mid = record::random_game(&start, seed, 16).position;
        assert!(mid.status() == Status::Ongoing);
        let by_turns = record::perft(&mid, 2);
        assert!(by_turns > 100, "{by_turns}");
        assert_eq!(by_turns, perft_by_actions(&mid, 2));
        assert_eq!(record::perft(&mid, 0), 1);
    }
}

// ---------------------------------------------------------------------------------------
// Symmetries, observations, hashing.

#[test]
fn symmetries_commute_with_rules_and_observations() {
    let mut rng = SplitMix64::new(99);
    let mut obs = vec![0.0f32; PLANES * CELLS];
    let mut mapped = vec![0.0f32; PLANES * CELLS];
    let mut direct = vec![0.0f32; PLANES * CELLS];
    let mut actions = Vec::new();
    let mut image_actions = Vec::new();
    let mut checked = 0;
    for seed in 0..40u64 {
        let mut g = Lyngk::from_seed(seed);
        loop {
            let sym = rng.below(1440) as usize;
            let t = g.transform(sym);
            g.encode(&mut obs);
            g.transform_observation(sym, &obs, &mut mapped);
            t.encode(&mut direct);
            assert_eq!(mapped, direct, "symmetry {sym}");
            g.legal_actions(&mut actions);
            t.legal_actions(&mut image_actions);
            let mut mapped_actions: Vec<Action> = actions.iter().map(|&a| g.transform_action(sym, a)).collect();
            mapped_actions.sort();
            assert_eq!(mapped_actions, image_actions, "symmetry {sym}");
            assert_eq!(t.status(), g.status());
            assert_eq!(t.score(), g.score());
            assert_eq!(t.to_move(), g.to_move());
            assert_eq!(t.is_turn_start(), g.is_turn_start());
            if g.is_turn_start() {
                assert_eq!(moves(&t).len(), moves(&g).len());
            }
            if actions.is_empty() {
                break;
            }
            let a = actions[rng.below(actions.len() as u64) as usize];
            let mut next = g.clone();
            next.apply(a);
            let mut t_next = t.clone();
            t_next.apply(g.transform_action(sym, a));
            assert_eq!(next.transform(sym), t_next, "symmetry {sym} and action {a:?}");
            g = next;
            checked += 1;
        }
    }
    assert!(checked > 1000);
}

#[test]
fn observations_show_the_position_from_the_movers_side() {
    use gipfzero_games::lyngk::observation as o;
    let g = p1("e1=WB e3=B e5=R", ["B", "RG"]);
    let mut obs = vec![0.0f32; PLANES * CELLS];
    g.encode(&mut obs);
    let at = |plane: usize, name: &str| obs[plane * CELLS + point(name).grid_cell()];
    assert_eq!(obs[..CELLS].iter().sum::<f32>(), 43.0);
    assert_eq!(at(o::PRESENCE + 1, "e1"), 1.0);
    assert_eq!(at(o::PRESENCE + 5, "e1"), 1.0);
    assert_eq!(at(o::TOP + 1, "e1"), 1.0);
    assert_eq!(at(o::TOP + 5, "e1"), 0.0);
    assert_eq!(at(o::HEIGHT + 1, "e1"), 1.0);
    assert_eq!(at(o::OWN_CLAIMS + 1, "a1"), 1.0);
    assert_eq!(at(o::OPPONENT_CLAIMS + 2, "a1"), 1.0);
    assert_eq!(at(o::OPPONENT_CLAIMS + 3, "i1"), 1.0);
    // Inside a chain: origin, LYNGK point and used points.
    let mut inside = g.clone();
    inside.apply(Step::Claim(Colour::IVORY).action());
    inside.apply(Step::Start(point("e1"), Direction::ALL[0]).action());
    inside.encode(&mut obs);
    let at = |plane: usize, name: &str| obs[plane * CELLS + point(name).grid_cell()];
    assert_eq!(at(o::CLAIM_MADE, "a1"), 1.0);
    assert_eq!(at(o::ORIGIN, "e1"), 1.0);
    assert_eq!(at(o::TOP + 1, "e1"), 1.0, "the moving stack is drawn at its origin");
    assert_eq!(at(o::LYNGK_POINT, "e3"), 1.0);
    assert_eq!(at(o::USED_LYNGK_POINTS, "e3"), 1.0);
    // The other player sees the claims the other way round.
    let two = pos("e1=WB e3=B e5=R", ["B", "RG"], Player::Two);
    two.encode(&mut obs);
    let at = |plane: usize, name: &str| obs[plane * CELLS + point(name).grid_cell()];
    assert_eq!(at(o::OWN_CLAIMS + 2, "e4"), 1.0);
    assert_eq!(at(o::OPPONENT_CLAIMS + 1, "e4"), 1.0);
}

#[test]
fn equal_positions_hash_equal_and_different_ones_differ() {
    let g = p1("e1=R e2=I e6=G e7=K", ["", ""]);
    let a = played(&played(&g, "e1-e2"), "e7-e6");
    let b = played(&played(&g, "e7-e6"), "e1-e2");
    assert_eq!(a, b);
    assert_eq!(a.position_hash(), b.position_hash());
    let mut seen: HashMap<u64, String> = HashMap::new();
    for seed in 0..30 {
        let r = record::random_game(&Lyngk::from_seed(seed), seed, 1000);
        let mut g = Lyngk::from_seed(seed);
        for t in &r.turns {
            g.play(t);
            let key = format!("{:?}{:?}", g.render_text(), g.to_move());
            if let Some(other) = seen.insert(g.position_hash(), key.clone()) {
                assert_eq!(other, key, "hash collision");
            }
        }
    }
}

#[test]
fn replaying_a_random_record_gives_the_same_game() {
    let start = Lyngk::from_seed(3);
    let game = record::random_game(&start, 11, 1000);
    assert!(game.position.status().is_over());
    let text = record::turn_texts(&start, &game.turns).join("\n");
    let replay = record::replay(&start, &text).unwrap();
    assert_eq!(replay.position, game.position);
    assert!(game.position.result_text().contains("5-stacks"));
    let render = game.position.render_text();
    assert!(render.contains("e4:") && render.contains(&game.position.result_text()));
}

// ---------------------------------------------------------------------------------------
// The notation parser never panics.

mod parser {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        #[test]
        fn arbitrary_text_gives_a_turn_or_a_clear_error(text in "\\PC{0,24}") {
            let g = Lyngk::from_seed(1);
            match g.parse_turn(&text) {
                Ok(turn) => prop_assert!(moves(&g).contains(&g.format_turn(&turn))),
                Err(TurnError::Malformed(why)) | Err(TurnError::Illegal(why)) => prop_assert!(!why.is_empty()),
            }
        }

        #[test]
        fn notation_like_text_gives_a_turn_or_a_clear_error(text in "([IBRGKW],)?[a-j][0-9](-[a-j][0-9]){0,10}|pass") {
            let g = record::random_game(&Lyngk::from_seed(2), 2, 12).position;
            match g.parse_turn(&text) {
                Ok(turn) => prop_assert_eq!(g.format_turn(&turn), text),
                Err(TurnError::Malformed(why)) | Err(TurnError::Illegal(why)) => prop_assert!(!why.is_empty()),
            }
        }

        #[test]
        fn mutated_legal_turns_give_a_turn_or_a_clear_error(index in 0usize..10_000, at in 0usize..20, ch in "[a-z0-9,\\-IBRGKW ]") {
            let g = Lyngk::from_seed(4);
            let all = moves(&g);
            let mut text: Vec<char> = all[index % all.len()].chars().collect();
            let at = at % (text.len() + 1);
            let c = ch.chars().next().unwrap();
            if at < text.len() && index % 2 == 0 { text[at] = c } else { text.insert(at, c) }
            let text: String = text.into_iter().collect();
            if let Ok(turn) = g.parse_turn(&text) {
                prop_assert!(all.contains(&g.format_turn(&turn)));
            }
        }
    }
}

#[test]
fn a_5_stack_completion_in_one_move_for_search_tests() {
    // Documented in docs/games/lyngk.md: only e1-e2 completes (and removes) a 5-stack.
    let g = Lyngk::from_position("e1=R e2=IBGK g1=I g2=B", ["RG", "K"], [0, 0], Player::One).unwrap();
    assert_eq!(moves(&g), s(&["e1-e2", "e1-g2", "g1-g2", "g2-e1", "g2-g1"]));
    let win = played(&g, "e1-e2");
    assert_eq!(win.score(), [1, 0]);
    for reply in moves(&win) {
        assert_eq!(played(&win, &reply).status(), Status::Over(Outcome::Win(Player::One)));
    }
    // Any other move lets player 2 finish its own 5-stack: black IBGK onto the red single.
    let other = played(&g, "g1-g2");
    assert_eq!(played(&other, "e2-e1").score(), [0, 1]);
}
