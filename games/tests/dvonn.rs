//! DVONN rules tests: one hand-built position per rule of shared/rules/dvonn.md, the spec's
//! known values, and random games checked move by move against a small reference model
//! written here from the spec alone (it keeps every stack's pieces bottom to top, uses
//! coordinates and a breadth-first search, and shares no code with the engine).
use std::collections::{BTreeSet, HashMap, VecDeque};

use gipfzero_games::dvonn::{Cell, Dvonn, Piece, Turn};
use gipfzero_games::record::{perft, perft_actions, random_game, replay, sorted_turn_texts};
use gipfzero_games::{Action, Game, Outcome, Player, SplitMix64, Status, TurnError};
use proptest::prelude::*;

fn c(name: &str) -> Cell {
    Cell::from_name(name).unwrap()
}

fn setup(text: &str, to_move: Player) -> Dvonn {
    Dvonn::from_setup(text, to_move).unwrap_or_else(|e| panic!("set-up {text}: {e}"))
}

fn moves(position: &Dvonn) -> Vec<String> {
    sorted_turn_texts(position)
}

fn play(position: &mut Dvonn, text: &str) {
    let turn = position.parse_turn(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    position.play(&turn);
}

fn illegal(position: &Dvonn, text: &str, because: &str) {
    match position.parse_turn(text) {
        Err(TurnError::Illegal(why)) => assert!(why.contains(because), "{text}: \"{why}\" lacks \"{because}\""),
        other => panic!("{text}: expected an illegal turn, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// The reference model.

/// The spec's rows: first and last letter of rows 1 to 5.
const SPEC_ROWS: [(char, char); 5] = [('a', 'i'), ('a', 'j'), ('a', 'k'), ('b', 'k'), ('c', 'k')];

type Point = (i32, i32);

fn spec_on_board((l, r): Point) -> bool {
    (1..=5).contains(&r) && {
        let (first, last) = SPEC_ROWS[r as usize - 1];
        (first as i32 - 'a' as i32..=last as i32 - 'a' as i32).contains(&l)
    }
}

fn spec_points() -> Vec<Point> {
    (1..=5).flat_map(|r| (0..11).map(move |l| (l, r))).filter(|&p| spec_on_board(p)).collect()
}

const STEPS: [Point; 6] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1)];

fn spec_neighbours((l, r): Point) -> Vec<Point> {
    STEPS.iter().map(|(dl, dr)| (l + dl, r + dr)).filter(|&p| spec_on_board(p)).collect()
}

fn name((l, r): Point) -> String {
    format!("{}{r}", (b'a' + l as u8) as char)
}

fn cell(p: Point) -> Cell {
    c(&name(p))
}

/// A position as the spec describes it: stacks with all their pieces.
#[derive(Clone, Debug)]
struct Model {
    stacks: HashMap<Point, Vec<Piece>>,
    to_move: Player,
    placed: usize,
}

impl Model {
    fn new() -> Model {
        Model { stacks: HashMap::new(), to_move: Player::One, placed: 0 }
    }

    fn owner(&self, p: Point) -> Option<Player> {
        match self.stacks.get(&p)?.last()? {
            Piece::White => Some(Player::One),
            Piece::Black => Some(Player::Two),
            Piece::Dvonn => None,
        }
    }

    fn moves_of(&self, player: Player) -> Vec<(Point, Point)> {
        let mut out = Vec::new();
        for (&from, stack) in &self.stacks {
            if self.owner(from) != Some(player) {
                continue;
            }
            let surrounded = STEPS.iter().all(|(dl, dr)| self.stacks.contains_key(&(from.0 + dl, from.1 + dr)));
            if surrounded {
                continue;
            }
            let h = stack.len() as i32;
            for (dl, dr) in STEPS {
                let to = (from.0 + dl * h, from.1 + dr * h);
                if self.stacks.contains_key(&to) {
                    out.push((from, to));
                }
            }
        }
        out
    }

    fn turns(&self) -> BTreeSet<String> {
        if self.placed < 49 {
            return spec_points().into_iter().filter(|p| !self.stacks.contains_key(p)).map(name).collect();
        }
        let mine = self.moves_of(self.to_move);
        if !mine.is_empty() {
            return mine.into_iter().map(|(f, t)| format!("{}{}", name(f), name(t))).collect();
        }
        if !self.moves_of(self.to_move.other()).is_empty() {
            return ["pass".to_string()].into();
        }
        BTreeSet::new()
    }

    fn play(&mut self, text: &str) {
        if self.placed < 49 {
            let piece = match self.placed {
                0..=2 => Piece::Dvonn,
                n if n % 2 == 1 => Piece::Black,
                _ => Piece::White,
            };
            let point = (text.as_bytes()[0] as i32 - 'a' as i32, text.as_bytes()[1] as i32 - '0' as i32);
            self.stacks.insert(point, vec![piece]);
            self.placed += 1;
            self.to_move = if self.placed % 2 == 1 && self.placed < 49 { Player::Two } else { Player::One };
            return;
        }
        if text != "pass" {
            let b = text.as_bytes();
            let from = (b[0] as i32 - 'a' as i32, b[1] as i32 - '0' as i32);
            let to = (b[2] as i32 - 'a' as i32, b[3] as i32 - '0' as i32);
            let moving = self.stacks.remove(&from).unwrap();
            self.stacks.get_mut(&to).unwrap().extend(moving);
            // Breadth-first search from every stack holding a DVONN piece.
            let mut queue: VecDeque<Point> =
                self.stacks.iter().filter(|(_, s)| s.contains(&Piece::Dvonn)).map(|(&p, _)| p).collect();
            let mut joined: BTreeSet<Point> = queue.iter().copied().collect();
            while let Some(p) = queue.pop_front() {
                for n in spec_neighbours(p) {
                    if self.stacks.contains_key(&n) && joined.insert(n) {
                        queue.push_back(n);
                    }
                }
            }
            self.stacks.retain(|p, _| joined.contains(p));
        }
        self.to_move = self.to_move.other();
    }

    fn score(&self) -> [u32; 2] {
        let mut score = [0; 2];
        for (&p, stack) in &self.stacks {
            if let Some(owner) = self.owner(p) {
                score[owner.index()] += stack.len() as u32;
            }
        }
        score
    }

    fn count(&self, piece: Piece) -> usize {
        self.stacks.values().flatten().filter(|&&x| x == piece).count()
    }

    /// Checks that the engine holds the same stacks as the model.
    fn assert_matches(&self, position: &Dvonn) {
        for p in spec_points() {
            let expected = self.stacks.get(&p).map(|s| (s.len() as u8, *s.last().unwrap(), s.contains(&Piece::Dvonn)));
            let got = position.stack(cell(p)).map(|s| (s.height, s.top, s.has_dvonn));
            assert_eq!(got, expected, "stack on {}", name(p));
        }
        assert_eq!(position.to_move(), self.to_move);
        assert_eq!(Game::score(position), self.score());
    }
}

fn model_of(setup_text: &str, to_move: Player) -> Model {
    let mut model = Model { stacks: HashMap::new(), to_move, placed: 49 };
    for item in setup_text.split_whitespace() {
        let (n, pieces) = item.split_once(':').unwrap();
        let cell = c(n);
        let stack = pieces
            .chars()
            .map(|ch| match ch {
                'w' => Piece::White,
                'b' => Piece::Black,
                _ => Piece::Dvonn,
            })
            .collect();
        model.stacks.insert((cell.letter(), cell.row()), stack);
    }
    model
}

// ---------------------------------------------------------------------------------------
// Board and notation.

#[test]
fn the_board_is_the_spec_board() {
    let engine: BTreeSet<String> = Cell::ALL.iter().map(|c| c.to_string()).collect();
    let spec: BTreeSet<String> = spec_points().into_iter().map(name).collect();
    assert_eq!(engine, spec);
    assert_eq!(spec.len(), 49);
    let edge = spec_points().into_iter().filter(|&p| spec_neighbours(p).len() < 6).count();
    assert_eq!(edge, 24);
    for p in spec_points() {
        assert_eq!(cell(p).is_edge(), spec_neighbours(p).len() < 6, "{}", name(p));
    }
}

#[test]
fn spec_matches_the_layout() {
    let spec = Dvonn::new().spec();
    assert_eq!((spec.game, spec.action_count, spec.height, spec.width), ("dvonn", 344, 5, 11));
    assert_eq!(spec.symmetry_count, 4);
}

#[test]
fn notation_accepts_upper_case_and_dashes() {
    let position = setup("c3:d d3:w e3:b f3:d g3:d", Player::One);
    let expected = Turn::Move { from: c("d3"), to: c("e3") };
    for text in ["d3e3", "D3E3", "d3-e3", "D3-e3"] {
        assert_eq!(position.parse_turn(text), Ok(expected), "{text}");
    }
    assert_eq!(position.format_turn(&expected), "d3e3");
    assert!(matches!(position.parse_turn("d3e3e3"), Err(TurnError::Malformed(_))));
    assert!(matches!(position.parse_turn("a5"), Err(TurnError::Malformed(_))));
    assert_eq!(Dvonn::new().parse_turn("E3"), Ok(Turn::Place(c("e3"))));
}

// ---------------------------------------------------------------------------------------
// Phase 1.

#[test]
fn phase_one_perft_counts_every_empty_space() {
    let start = Dvonn::new();
    assert_eq!(perft(&start, 1), 49);
    assert_eq!(perft(&start, 2), 49 * 48);
    assert_eq!(perft(&start, 3), 49 * 48 * 47);
    assert_eq!(perft_actions(&start, 3), 49 * 48 * 47);
}

#[test]
fn turn_and_action_perft_agree_in_phase_two() {
    for seed in [1, 2, 3] {
        let position = random_game(&Dvonn::new(), seed, 52).position;
        assert!(!position.is_placing());
        for depth in 1..=3 {
            assert_eq!(perft(&position, depth), perft_actions(&position, depth), "seed {seed} depth {depth}");
        }
        assert!(perft(&position, 2) > 0);
    }
}

#[test]
fn placement_order_and_whites_double_move() {
    let mut rng = SplitMix64::new(11);
    let mut position = Dvonn::new();
    let mut actions = Vec::new();
    for k in 1..=49usize {
        let expected_player = if k % 2 == 1 { Player::One } else { Player::Two };
        let expected_piece = match k {
            1..=3 => Piece::Dvonn,
            _ if k % 2 == 0 => Piece::Black,
            _ => Piece::White,
        };
        assert_eq!(position.to_move(), expected_player, "placement {k}");
        assert_eq!(position.next_piece(), Some(expected_piece), "placement {k}");
        position.legal_actions(&mut actions);
        assert_eq!(actions.len(), 50 - k);
        let action = actions[rng.below(actions.len() as u64) as usize];
        let Turn::Place(cell) = position.action_turn(action) else { panic!("placement expected") };
        position.apply(action);
        assert_eq!(position.stack(cell).map(|s| (s.top, s.height)), Some((expected_piece, 1)));
        // Nothing is removed in phase 1, even pieces far from every DVONN piece.
        assert_eq!(position.occupied().count_ones() as usize, k);
    }
    assert!(!position.is_placing());
    assert_eq!(position.to_move(), Player::One, "White places the 49th piece and moves first");
    assert!(moves(&position).iter().all(|t| t.len() == 4));
    let counts = |piece| Cell::ALL.iter().filter(|&&c| position.stack(c).unwrap().top == piece).count();
    assert_eq!((counts(Piece::White), counts(Piece::Black), counts(Piece::Dvonn)), (23, 23, 3));
}

#[test]
fn placement_rules_refuse_occupied_spaces_moves_and_passes() {
    let mut position = Dvonn::new();
    play(&mut position, "e3");
    illegal(&position, "e3", "occupied");
    illegal(&position, "d3e3", "still to be placed");
    illegal(&position, "pass", "placed");
}

#[test]
fn at_the_start_of_phase_two_only_edge_pieces_move_one_space() {
    let mut rng = SplitMix64::new(2024);
    let mut actions = Vec::new();
    for _ in 0..200 {
        let mut position = Dvonn::new();
        for _ in 0..49 {
            position.legal_actions(&mut actions);
            position.apply(actions[rng.below(actions.len() as u64) as usize]);
        }
        // The same full board with Black to move, rebuilt from its stacks.
        let stacks: Vec<(Cell, [Piece; 1])> = Cell::ALL.iter().map(|&c| (c, [position.stack(c).unwrap().top])).collect();
        let black = Dvonn::from_stacks(stacks, Player::Two).unwrap();
        for (position, player, piece) in [(position, Player::One, Piece::White), (black, Player::Two, Piece::Black)] {
            assert_eq!(position.to_move(), player);
            let mut expected = BTreeSet::new();
            for p in spec_points().into_iter().filter(|&p| spec_neighbours(p).len() < 6) {
                if position.stack(cell(p)).unwrap().top == piece {
                    for n in spec_neighbours(p) {
                        expected.insert(format!("{}{}", name(p), name(n)));
                    }
                }
            }
            let got: BTreeSet<String> = moves(&position).into_iter().collect();
            assert_eq!(got, expected);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Phase 2 movement.

#[test]
fn a_stack_moves_exactly_its_height() {
    let position = setup("c3:d d3:ww e3:b f3:b g3:d h3:d", Player::One);
    assert_eq!(moves(&position), ["d3f3"]);
    illegal(&position, "d3e3", "exactly 2");
    illegal(&position, "d3g3", "exactly 2");
    let mut after = position;
    play(&mut after, "d3f3");
    assert_eq!(after.stack(c("f3")).map(|s| (s.height, s.top)), Some((3, Piece::White)));
    assert_eq!(after.stack(c("d3")), None);
}

#[test]
fn a_move_may_cross_empty_spaces() {
    let position = setup("a3:www a2:d d3:b d2:d e3:d", Player::One);
    assert_eq!(moves(&position), ["a3d3"]);
    let mut after = position;
    play(&mut after, "a3d3");
    assert_eq!(after.stack(c("d3")).map(|s| (s.height, s.top)), Some((4, Piece::White)));
}

#[test]
fn a_move_must_end_on_an_occupied_space() {
    let position = setup("c3:d d3:ww e3:b f3:b g3:d h3:d", Player::One);
    illegal(&position, "d3f5", "empty");
    illegal(&position, "d3b3", "empty");
    illegal(&position, "d3d5", "empty");
    // Landing on a lone DVONN piece is a move like any other.
    let onto_dvonn = setup("a3:w b3:b a2:d b4:d c3:d", Player::One);
    assert_eq!(moves(&onto_dvonn), ["a3a2", "a3b3", "a3b4"]);
}

#[test]
fn moves_run_along_straight_lines_only() {
    // (L+1, R−1) is no neighbour: d3 and e2 are not on a line, nor are d3 and f4.
    let position = setup("c3:d d3:w e3:b f3:d g3:d e4:b f4:b e2:b", Player::One);
    assert_eq!(moves(&position), ["d3c3", "d3e3", "d3e4"]);
    illegal(&position, "d3e2", "straight line");
    illegal(&position, "d3f4", "straight line");
}

#[test]
fn surrounded_pieces_cannot_move_but_can_be_moved_onto() {
    let text = "e3:w f3:b d3:b e4:b e2:b f4:d d2:d c3:d g3:w";
    let white = setup(text, Player::One);
    assert_eq!(moves(&white), ["g3f3"]);
    illegal(&white, "e3f3", "surrounded");
    let black = setup(text, Player::Two);
    assert!(moves(&black).contains(&"f3e3".to_string()));
}

#[test]
fn edge_spaces_are_never_surrounded() {
    // a3 has only three neighbours on the board, all occupied: it still moves.
    let position = setup("a3:w b3:b a2:d b4:d c3:d", Player::One);
    assert_eq!(moves(&position), ["a3a2", "a3b3", "a3b4"]);
}

#[test]
fn only_stacks_with_the_movers_piece_on_top_move() {
    let position = setup("c3:wb d3:bw e3:d f3:d g3:d", Player::One);
    assert_eq!(moves(&position), ["d3f3"]);
    illegal(&position, "c3e3", "black piece on top");
    let black = setup("c3:wb d3:bw e3:d f3:d g3:d", Player::Two);
    assert_eq!(moves(&black), ["c3e3"]);
}

#[test]
fn lone_dvonn_pieces_never_move_but_stacks_holding_one_do() {
    let position = setup("c3:dw d3:b e3:d f3:d", Player::One);
    assert_eq!(moves(&position), ["c3e3"]);
    let black = setup("c3:dw d3:b e3:d f3:d", Player::Two);
    assert_eq!(moves(&black), ["d3c3", "d3e3"]);
    illegal(&black, "e3f3", "never moves by itself");
    let mut after = position;
    play(&mut after, "c3e3");
    let stack = after.stack(c("e3")).unwrap();
    assert_eq!((stack.height, stack.top, stack.has_dvonn), (3, Piece::White, true));
}

// ---------------------------------------------------------------------------------------
// Losing pieces.

#[test]
fn groups_cut_off_from_every_dvonn_piece_are_removed() {
    let text = "a3:d b3:b c3:w d3:b h3:d i3:w j3:b k3:d";
    let mut position = setup(text, Player::One);
    let mut model = model_of(text, Player::One);
    // c3 onto d3 leaves d3 alone: the mover's own new stack is removed.
    play(&mut position, "c3d3");
    model.play("c3d3");
    model.assert_matches(&position);
    assert_eq!(position.stack(c("d3")), None);
    assert!(position.stack(c("b3")).is_some());
    assert_eq!(Game::score(&position), [1, 2]);
}

#[test]
fn dvonn_pieces_stay_even_when_alone() {
    let text = "a3:d b3:b c3:w d3:b h3:d i3:w j3:b k3:d";
    let mut position = setup(text, Player::One);
    play(&mut position, "i3j3");
    // h3 lost its only neighbour but a DVONN piece never leaves the game.
    assert_eq!(position.stack(c("h3")).map(|s| (s.top, s.height)), Some((Piece::Dvonn, 1)));
    assert_eq!(position.stack(c("j3")).map(|s| (s.top, s.height)), Some((Piece::White, 2)));
    let dvonn_stacks = Cell::ALL.iter().filter(|&&c| position.stack(c).is_some_and(|s| s.has_dvonn)).count();
    assert_eq!(dvonn_stacks, 3);
}

#[test]
fn removal_takes_several_groups_at_once_and_keeps_groups_with_a_dvonn_stack() {
    // e3 alone joins the chains f3-g3 and e4-e5 to the DVONN pieces around d2 (one of them
    // under a white piece on d1). Moving e3 onto d2 cuts off both chains at once.
    let text = "e3:w f3:b g3:w e4:b e5:w d2:b d1:dw c1:d c2:d";
    let mut position = setup(text, Player::One);
    let mut model = model_of(text, Player::One);
    assert_eq!(moves(&position), ["d1f3", "e3d2", "e3e4", "e3f3", "e5e4", "g3f3"]);
    play(&mut position, "e3d2");
    model.play("e3d2");
    model.assert_matches(&position);
    for gone in ["f3", "g3", "e4", "e5", "e3"] {
        assert_eq!(position.stack(c(gone)), None, "{gone}");
    }
    assert_eq!(position.stack(c("d1")).map(|s| (s.height, s.has_dvonn)), Some((2, true)));
    assert_eq!(Game::score(&position), [4, 0]);
    assert_eq!(model.count(Piece::White) + model.count(Piece::Black), 3);
    assert_eq!(model.count(Piece::Dvonn), 3);
}

// ---------------------------------------------------------------------------------------
// Passing and the end.

#[test]
fn a_player_without_a_move_passes_and_moves_again_when_possible() {
    let position = setup("e3:w f3:b d3:d e4:d e2:d f4:b d2:b", Player::One);
    assert_eq!(moves(&position), ["pass"]);
    assert!(position.must_pass());
    illegal(&position, "e3f3", "surrounded");
    let mut position = position;
    play(&mut position, "pass");
    assert_eq!(position.to_move(), Player::Two);
    illegal(&position, "pass", "may not pass");
    play(&mut position, "f3f4");
    assert_eq!(position.to_move(), Player::One);
    let white = moves(&position);
    assert!(!white.is_empty() && !white.contains(&"pass".to_string()), "{white:?}");
    illegal(&position, "pass", "may not pass");
}

#[test]
fn the_game_ends_when_neither_player_can_move() {
    let position = setup("a3:bwww b3:d c3:d d3:d", Player::One);
    assert_eq!(position.status(), Status::Over(Outcome::Win(Player::One)));
    assert!(moves(&position).is_empty());
    let mut actions = vec![Action(0)];
    position.legal_actions(&mut actions);
    assert!(actions.is_empty());
    illegal(&position, "pass", "over");
    assert_eq!(position.result_text(), "white 4 - black 0: white wins");
    assert_eq!(perft(&position, 1), 0);
}

#[test]
fn equal_totals_are_a_draw() {
    let position = setup("a3:bwww b3:d c3:d k3:wbbb j3:d", Player::Two);
    assert_eq!(position.status(), Status::Over(Outcome::Draw));
    assert_eq!(position.result_text(), "white 4 - black 4: draw");
    let black_wins = setup("a3:bwww b3:d c3:d k3:wbbbb j3:d", Player::One);
    assert_eq!(black_wins.status(), Status::Over(Outcome::Win(Player::Two)));
    assert_eq!(black_wins.result_text(), "white 4 - black 5: black wins");
}

#[test]
fn one_player_stuck_is_not_the_end() {
    let position = setup("a3:bwww b3:d c3:d d3:d d4:b", Player::One);
    assert_eq!(position.status(), Status::Ongoing);
    assert_eq!(moves(&position), ["pass"]);
}

#[test]
fn scores_count_every_piece_of_controlled_stacks_dvonn_pieces_included() {
    let position = setup("c3:dbw d3:b e3:d f3:d g3:wb", Player::One);
    assert_eq!(Game::score(&position), [3, 3]);
    assert_eq!(position.result_text(), "white 3 - black 3: not over");
}

/// Exact game value for the player to move (1 win, 0 draw, −1 loss) by full search.
fn solve(position: &Dvonn) -> i32 {
    if let Status::Over(outcome) = position.status() {
        return outcome.value_for(position.to_move()) as i32;
    }
    let mut turns = Vec::new();
    position.legal_turns(&mut turns);
    turns
        .iter()
        .map(|turn| {
            let mut next = *position;
            next.play(turn);
            let value = solve(&next);
            if next.to_move() == position.to_move() { value } else { -value }
        })
        .max()
        .expect("an ongoing game has a turn")
}

#[test]
fn an_end_game_with_a_single_winning_move() {
    // Found among random games and kept as the search's test position: Black to move wins
    // only with i5h4 (taking the DVONN stack on h4 and cutting off j5); every other move loses.
    let position = setup("c1:w d1:d h4:dbbw h5:d i5:b j5:b", Player::Two);
    assert_eq!(moves(&position), ["i5h4", "i5h5", "i5j5", "j5i5"]);
    let mut values = Vec::new();
    for text in moves(&position) {
        let mut next = position;
        play(&mut next, &text);
        values.push((text, -solve(&next)));
    }
    assert_eq!(values.iter().filter(|(_, v)| *v == 1).map(|(t, _)| t.as_str()).collect::<Vec<_>>(), ["i5h4"]);
    assert!(values.iter().all(|(t, v)| t == "i5h4" || *v == -1), "{values:?}");
    assert_eq!(solve(&position), 1);
}

// ---------------------------------------------------------------------------------------
// Set-ups.

#[test]
fn set_ups_refuse_unreachable_positions() {
    let refused = [
        ("c3:d d3:d e3:d c3:w", "twice"),
        ("c3:d d3:d e3:d f3:", "no pieces"),
        ("c3:d d3:d e3:wd", "on top"),
        ("c3:d d3:d f3:w", "DVONN pieces"),
        ("c3:d d3:d e3:d k3:w", "not joined"),
        ("c3:d d3:d e3:d f3:x", "no piece"),
        ("c3:d d3:d e3:d f3", "space:pieces"),
        ("a5:d d3:d e3:d", "not a space"),
    ];
    for (text, why) in refused {
        let err = Dvonn::from_setup(text, Player::One).expect_err(text);
        assert!(err.0.contains(why), "{text}: {err}");
    }
    let too_many = format!("c3:dd{} d3:d", "w".repeat(24));
    assert!(Dvonn::from_setup(&too_many, Player::One).unwrap_err().0.contains("23"));
    assert!(Dvonn::from_setup(&format!("c3:dd{} d3:d", "w".repeat(23)), Player::One).is_ok());
}

// ---------------------------------------------------------------------------------------
// Records.

#[test]
fn records_with_or_without_the_forced_49th_placement_replay_alike() {
    for seed in 0..20 {
        let game = random_game(&Dvonn::new(), seed, usize::MAX);
        let start = Dvonn::new();
        let texts: Vec<String> = {
            let mut position = start;
            game.turns
                .iter()
                .map(|t| {
                    let text = position.format_turn(t);
                    position.play(t);
                    text
                })
                .collect()
        };
        assert_eq!(texts[48].len(), 2, "the 49th turn is a placement");
        let full = texts.join(" ");
        let mut short = texts.clone();
        short.remove(48);
        let short = short.join("\n");
        let a = replay(&start, &full).unwrap();
        let b = replay(&start, &short).unwrap();
        assert_eq!(a.position, game.position);
        assert_eq!(b.position, game.position);
        assert_eq!(a.turns, b.turns);
        assert!(game.position.status().is_over());
    }
}

#[test]
fn the_forced_placement_is_implied_only_before_a_move_or_pass() {
    let mut position = Dvonn::new();
    let mut actions = Vec::new();
    for _ in 0..47 {
        position.legal_actions(&mut actions);
        position.apply(actions[0]);
        assert_eq!(position.implied_turn_before("a1b1"), None);
    }
    position.legal_actions(&mut actions);
    position.apply(actions[1]);
    let last = Cell::ALL[47];
    assert_eq!(position.implied_turn_before("k5j5"), Some(Turn::Place(last)));
    assert_eq!(position.implied_turn_before("pass"), Some(Turn::Place(last)));
    assert_eq!(position.implied_turn_before("k5"), None);
    assert_eq!(position.implied_turn_before("xyz"), None);
}

// ---------------------------------------------------------------------------------------
// Random games against the model, with every invariant.

fn check_symmetries(position: &Dvonn, legal: &[Action]) {
    let spec = position.spec();
    let mut plain = vec![0.0; spec.observation_len()];
    let mut moved = vec![0.0; spec.observation_len()];
    let mut image_obs = vec![0.0; spec.observation_len()];
    position.encode(&mut plain);
    let mut image_legal = Vec::new();
    for sym in 0..spec.symmetry_count {
        let image = position.transform(sym);
        image.legal_actions(&mut image_legal);
        let mapped: BTreeSet<Action> = legal.iter().map(|&a| position.transform_action(sym, a)).collect();
        assert_eq!(mapped, image_legal.iter().copied().collect(), "symmetry {sym}");
        assert_eq!(mapped.len(), legal.len());
        image.encode(&mut image_obs);
        position.transform_observation(sym, &plain, &mut moved);
        assert_eq!(image_obs, moved, "symmetry {sym}");
        assert_eq!(image.score(), position.score());
        assert_eq!(image.status(), position.status());
        // Every symmetry of this board is its own inverse.
        assert_eq!(image.transform(sym), *position);
    }
    assert_eq!(position.transform(0), *position);
    assert_eq!(position.transform(0).position_hash(), position.position_hash());
}

#[test]
fn random_games_follow_the_reference_model() {
    let mut rng = SplitMix64::new(7);
    let mut actions = Vec::new();
    let mut turns = Vec::new();
    let mut games_with_pass = 0;
    let mut total_turns = 0;
    for game in 0..600 {
        let mut position = Dvonn::new();
        let mut model = Model::new();
        let mut passed = false;
        for step in 0.. {
            let expected = model.turns();
            position.legal_actions(&mut actions);
            position.legal_turns(&mut turns);
            assert!(actions.windows(2).all(|w| w[0] < w[1]), "actions ascending");
            assert!(actions.iter().all(|a| a.index() < 344));
            assert_eq!(actions.len(), turns.len());
            let texts: BTreeSet<String> = turns.iter().map(|t| position.format_turn(t)).collect();
            assert_eq!(texts, expected, "game {game} step {step}\n{}", position.render_text());
            assert_eq!(actions.is_empty(), position.status().is_over());
            for (turn, &action) in turns.iter().zip(&actions) {
                assert_eq!(position.turn_actions(turn), [action]);
                assert_eq!(position.action_turn(action), *turn);
                let text = position.format_turn(turn);
                assert_eq!(position.parse_turn(&text).as_ref(), Ok(turn));
                assert_eq!(position.parse_turn(&text.to_uppercase()).as_ref(), Ok(turn));
            }
            if game % 10 == 0 || step % 13 == 0 {
                check_symmetries(&position, &actions);
            }
            if actions.is_empty() {
                break;
            }
            // Random origin-destination pairs: the parser accepts exactly the listed moves.
            if !position.is_placing() {
                for _ in 0..4 {
                    let from = Cell::ALL[rng.below(49) as usize];
                    let to = Cell::ALL[rng.below(49) as usize];
                    let text = format!("{from}{to}");
                    assert_eq!(position.parse_turn(&text).is_ok(), expected.contains(&text), "{text}");
                }
            }
            let k = rng.below(actions.len() as u64) as usize;
            let text = position.format_turn(&turns[k]);
            passed |= text == "pass";
            let mut by_action = position;
            by_action.apply(actions[k]);
            position.play(&turns[k]);
            assert_eq!(by_action, position);
            assert_eq!(by_action.position_hash(), position.position_hash());
            let pieces_before = model.count(Piece::White) + model.count(Piece::Black) + model.count(Piece::Dvonn);
            model.play(&text);
            model.assert_matches(&position);
            // Material: placements add one piece, moves only remove, DVONN pieces never.
            let pieces_after = model.count(Piece::White) + model.count(Piece::Black) + model.count(Piece::Dvonn);
            let on_board: u32 = Cell::ALL.iter().filter_map(|&c| position.stack(c)).map(|s| s.height as u32).sum();
            assert_eq!(on_board as usize, pieces_after);
            if position.placed() < 49 || step == 48 {
                assert_eq!(pieces_after, pieces_before + 1);
            } else {
                assert!(pieces_after <= pieces_before);
                assert_eq!(model.count(Piece::Dvonn), 3);
            }
            total_turns += 1;
        }
        games_with_pass += passed as u32;
        let [white, black] = model.score();
        let expected = match white.cmp(&black) {
            std::cmp::Ordering::Greater => Outcome::Win(Player::One),
            std::cmp::Ordering::Less => Outcome::Win(Player::Two),
            std::cmp::Ordering::Equal => Outcome::Draw,
        };
        assert_eq!(position.status(), Status::Over(expected));
        assert!(position.result_text().starts_with(&format!("white {white} - black {black}: ")));
    }
    // The sample must exercise passes for the pass checks above to mean anything.
    assert!(games_with_pass > 0, "no game with a pass in the sample");
    assert!(total_turns > 600 * 49);
}

#[test]
fn random_games_keep_invariants_at_speed() {
    // Many more games, checking only the cheap invariants.
    let mut rng = SplitMix64::new(99);
    let mut actions = Vec::new();
    for _ in 0..3000 {
        let mut position = Dvonn::new();
        let mut count = 0;
        loop {
            position.legal_actions(&mut actions);
            if actions.is_empty() {
                break;
            }
            let before: u32 = Cell::ALL.iter().filter_map(|&c| position.stack(c)).map(|s| s.height as u32).sum();
            position.apply(actions[rng.below(actions.len() as u64) as usize]);
            let after: u32 = Cell::ALL.iter().filter_map(|&c| position.stack(c)).map(|s| s.height as u32).sum();
            count += 1;
            if count <= 49 {
                assert_eq!(after, before + 1);
            } else {
                assert!(after <= before);
            }
            let dvonn = Cell::ALL.iter().filter(|&&c| position.stack(c).is_some_and(|s| s.has_dvonn)).count();
            assert!((1..=3).contains(&dvonn) || position.placed() < 3);
        }
        assert!(position.status().is_over());
        assert!(count > 49, "a game has 49 placements and at least one move");
    }
}

#[test]
fn transposed_placements_give_equal_positions_and_hashes() {
    let mut a = Dvonn::new();
    let mut b = Dvonn::new();
    for t in ["a1", "b1", "c1", "d1", "e1", "f1", "g1"] {
        play(&mut a, t);
    }
    for t in ["a1", "b1", "c1", "f1", "g1", "d1", "e1"] {
        play(&mut b, t);
    }
    assert_eq!(a, b);
    assert_eq!(a.position_hash(), b.position_hash());
    let mut c = Dvonn::new();
    for t in ["a1", "b1", "c1", "e1", "d1", "f1", "g1"] {
        play(&mut c, t);
    }
    assert_ne!(a, c);
    assert_ne!(a.position_hash(), c.position_hash());
}

#[test]
fn observation_planes_follow_the_documented_layout() {
    use gipfzero_games::dvonn::observation::*;
    let position = setup("c3:dbw d3:b e3:d f3:d g3:wb", Player::Two);
    let mut planes = vec![0.0; position.spec().observation_len()];
    position.encode(&mut planes);
    let at = |plane: usize, name: &str| planes[plane * 55 + c(name).grid()];
    assert_eq!(planes[PLANE_BOARD * 55..(PLANE_BOARD + 1) * 55].iter().sum::<f32>(), 49.0);
    assert_eq!(at(PLANE_MINE, "g3"), 1.0, "Black to move: black-topped stacks are the mover's");
    assert_eq!(at(PLANE_THEIRS, "c3"), 1.0);
    assert_eq!(at(PLANE_MINE, "c3"), 0.0);
    assert_eq!(at(PLANE_DVONN_TOP, "e3"), 1.0);
    assert_eq!(at(PLANE_HAS_DVONN, "c3"), 1.0);
    assert_eq!(at(PLANE_HAS_DVONN, "g3"), 0.0);
    assert_eq!((at(PLANE_HEIGHT_AT_LEAST + 2, "c3"), at(PLANE_HEIGHT_AT_LEAST + 3, "c3")), (1.0, 0.0));
    assert_eq!(at(PLANE_HEIGHT, "g3"), 2.0 / 49.0);
    assert_eq!(at(PLANE_MY_MOVES, "g3"), 1.0, "g3 (height 2) reaches e3");
    assert_eq!(at(PLANE_MY_MOVES, "d3"), 1.0);
    assert_eq!(at(PLANE_MY_MOVES, "c3"), 0.0);
    assert_eq!(at(PLANE_THEIR_MOVES, "c3"), 1.0);
    assert_eq!(at(PLANE_PLACING, "a1"), 0.0);
    assert_eq!(at(PLANE_MOVER_WHITE, "a1"), 0.0);
    let start = Dvonn::new();
    start.encode(&mut planes);
    assert!(planes[PLANE_PLACING * 55..(PLANE_PLACING + 1) * 55].iter().all(|&v| v == 1.0));
    assert!(planes[PLANE_PLACING_DVONN * 55..(PLANE_PLACING_DVONN + 1) * 55].iter().all(|&v| v == 1.0));
    assert!(planes[PLANE_MOVER_WHITE * 55..(PLANE_MOVER_WHITE + 1) * 55].iter().all(|&v| v == 1.0));
}

#[test]
fn the_drawing_shows_stacks_and_the_player_to_move() {
    let position = setup("c3:dbw d3:b e3:d f3:d g3:wb", Player::Two);
    let text = position.render_text();
    assert!(text.contains("W3*") && text.contains("B2") && text.contains("D1"), "{text}");
    assert!(text.contains("black to move"), "{text}");
    assert!(Dvonn::new().render_text().contains("white places a DVONN piece"));
}

// ---------------------------------------------------------------------------------------
// The parser never panics.

fn sample_positions() -> Vec<Dvonn> {
    let game = random_game(&Dvonn::new(), 5, usize::MAX);
    let mut positions = vec![Dvonn::new()];
    let mut position = Dvonn::new();
    for (k, turn) in game.turns.iter().enumerate() {
        position.play(turn);
        if k % 10 == 0 || k == 47 {
            positions.push(position);
        }
    }
    positions.push(position);
    positions
}

proptest! {
    #[test]
    fn parsing_arbitrary_text_never_panics(text in "\\PC{0,8}") {
        for position in sample_positions() {
            let _ = position.parse_turn(&text);
            let _ = position.implied_turn_before(&text);
        }
    }

    #[test]
    fn mutated_turns_parse_or_fail_cleanly(seed in any::<u64>(), edit in 0usize..8, ch in any::<char>()) {
        let mut rng = SplitMix64::new(seed);
        for position in sample_positions() {
            let texts = sorted_turn_texts(&position);
            let Some(text) = texts.get(rng.below(texts.len().max(1) as u64) as usize) else { continue };
            let mut chars: Vec<char> = text.chars().collect();
            let at = edit % (chars.len() + 1);
            match edit % 3 {
                0 => chars.insert(at, ch),
                1 if at < chars.len() => { chars[at] = ch; }
                _ if at < chars.len() => { chars.remove(at); }
                _ => chars.push(ch),
            }
            let mutated: String = chars.into_iter().collect();
            match position.parse_turn(&mutated) {
                Ok(turn) => prop_assert!(texts.contains(&position.format_turn(&turn))),
                Err(TurnError::Malformed(why) | TurnError::Illegal(why)) => prop_assert!(!why.is_empty()),
            }
        }
    }
}
