//! The exact endgame search (`gipfzero_mcts::endgame`) against plain minimax, on positions
//! near the end of seeded random games of all three games, and the agent that plays what it
//! proves (`SearchConfig::endgame_nodes`).
//!
//! The reference is minimax over single actions without a table or pruning, which shares no
//! code with the search under test (that one searches whole turns, with alpha-beta and a
//! transposition table). Positions whose minimax tree is too big for a test are passed over;
//! each test asserts how many it checked, so it cannot pass on none.
use gipfzero_games::dvonn::Dvonn;
use gipfzero_games::lyngk::Lyngk;
use gipfzero_games::record::random_game;
use gipfzero_games::zertz::{Variant, Zertz};
use gipfzero_games::{Game, Status};
use gipfzero_mcts::{Agent, EndgameSearch, MctsAgent, RootPolicy, SearchConfig, UniformEvaluator};

/// The exact value of `position` for its player to move (1, 0, -1) by minimax over actions, or
/// `None` when it takes more than `nodes` positions.
fn minimax<G: Game>(position: &G, nodes: &mut u64) -> Option<i8> {
    if *nodes == 0 {
        return None;
    }
    *nodes -= 1;
    if let Status::Over(outcome) = position.status() {
        return Some(outcome.value_for(position.to_move()) as i8);
    }
    let mover = position.to_move();
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    let mut best = -1;
    for action in actions {
        let mut next = position.clone();
        next.apply(action);
        let value = minimax(&next, nodes)?;
        best = best.max(if next.to_move() == mover { value } else { -value });
    }
    Some(best)
}

/// The value for `position`'s player to move after it plays `turn`.
fn value_after<G: Game>(position: &G, turn: &G::Turn, nodes: u64) -> i8 {
    let mut next = position.clone();
    next.play(turn);
    let value = minimax(&next, &mut { nodes }).expect("the child of a solved position is small enough");
    if next.to_move() == position.to_move() { value } else { -value }
}

/// Turn starts `back` turns before the end of seeded random games, with more than one legal
/// turn and a minimax tree of at most `nodes` positions, with their exact values.
fn endgames<G: Game>(start: &G, back: usize, games: u64, nodes: u64) -> Vec<(G, i8)> {
    let mut found = Vec::new();
    for seed in 0..games {
        let start = start.seeded_start(seed);
        let game = random_game(&start, seed, 400);
        if game.turns.len() <= back {
            continue;
        }
        let mut position = start.clone();
        for turn in &game.turns[..game.turns.len() - back] {
            position.play(turn);
        }
        let mut turns = Vec::new();
        position.legal_turns(&mut turns);
        if !position.is_turn_start() || position.status().is_over() || turns.len() < 2 {
            continue;
        }
        if let Some(value) = minimax(&position, &mut { nodes }) {
            found.push((position, value));
        }
    }
    found
}

/// Every position's value equals minimax's, and the turn returned reaches it.
fn agrees_with_minimax<G: Game>(start: G, back: usize, games: u64, nodes: u64, at_least: usize) {
    let positions = endgames(&start, back, games, nodes);
    assert!(positions.len() >= at_least, "only {} positions small enough", positions.len());
    let mut search = EndgameSearch::new();
    let mut values = [0usize; 3];
    for (position, value) in &positions {
        let solved = search.solve(position, 10_000_000).expect("a budget far above minimax's nodes");
        assert_eq!(solved.value, *value, "{position:?}");
        let mut turns = Vec::new();
        position.legal_turns(&mut turns);
        assert_eq!(value_after(position, &turns[solved.turn], nodes), *value, "{position:?}");
        values[(*value + 1) as usize] += 1;
    }
    // Won and lost positions both among them, so a search that always said one could not pass.
    assert!(values[0] > 0 && values[2] > 0, "values lost/drawn/won: {values:?}");
}

#[test]
fn dvonn_endgames_agree_with_minimax() {
    agrees_with_minimax(Dvonn::new(), 6, 60, 200_000, 20);
}

#[test]
fn lyngk_endgames_agree_with_minimax() {
    agrees_with_minimax(Lyngk::from_seed(0), 4, 60, 200_000, 20);
}

#[test]
fn zertz_endgames_agree_with_minimax() {
    agrees_with_minimax(Zertz::new(Variant::Standard), 2, 300, 100_000, 10);
}

#[test]
fn the_table_carries_proofs_between_searches() {
    // Solving a position again makes no position: the root's value is in the table.
    let positions = endgames(&Dvonn::new(), 6, 20, 200_000);
    let (position, value) = positions.iter().find(|(_, v)| *v != 0).expect("a decided endgame");
    let mut search = EndgameSearch::new();
    let first = search.solve(position, 10_000_000).unwrap();
    assert!(search.nodes() > 1);
    let again = search.solve(position, 10_000_000).unwrap();
    assert_eq!((again.value, search.nodes()), (*value, 1));
    assert_eq!(again, first);
    // A new game forgets it.
    search.clear();
    search.solve(position, 10_000_000).unwrap();
    assert!(search.nodes() > 1);
}

#[test]
fn a_budget_too_small_proves_nothing() {
    let positions = endgames(&Dvonn::new(), 8, 40, 2_000_000);
    let mut search = EndgameSearch::new();
    let mut checked = 0;
    for (position, _) in &positions {
        let mut fresh = EndgameSearch::new();
        let solved = fresh.solve(position, 10_000_000).unwrap();
        let needed = fresh.nodes();
        if needed < 3 {
            continue;
        }
        assert_eq!(search.solve(position, needed - 1), None);
        assert_eq!(search.nodes(), needed, "the search stops at the first position past its budget");
        search.clear();
        assert_eq!(search.solve(position, needed), Some(solved));
        search.clear();
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} positions");
}

/// The agent with the exact search and a one-simulation tree search (uniform values, so it
/// knows nothing beyond the next turn's game ends) plays a turn that keeps the position's
/// exact value whenever it is won or drawn.
fn agent_plays_the_proof<G: Game>(start: G, back: usize, at_least: usize) {
    let nodes = 200_000;
    let positions = endgames(&start, back, 60, nodes);
    let mut checked = [0usize; 2];
    for (seed, (position, value)) in positions.iter().enumerate() {
        for endgame_nodes in [0, 1_000_000] {
            let config = SearchConfig { endgame_nodes, ..SearchConfig::evaluation(1, RootPolicy::Puct) };
            let mut agent = MctsAgent::new("test", UniformEvaluator, config, seed as u64).unwrap();
            let turn = agent.choose_turn(position).unwrap();
            let kept = value_after(position, &turn, nodes) == *value;
            if endgame_nodes > 0 {
                if *value >= 0 {
                    assert!(kept, "{position:?}: value {value} not kept");
                    assert_eq!(agent.last_evaluated_share(), Some(0.0), "no simulation ran");
                }
            } else if *value >= 0 {
                checked[kept as usize] += 1;
            }
        }
    }
    // Without it the same agent lets some of those values slip: the test can tell them apart.
    assert!(checked[0] > 0, "the plain agent kept every value: {checked:?}");
    assert!(checked.iter().sum::<usize>() >= at_least, "{checked:?}");
}

#[test]
fn the_agent_plays_proven_wins_and_draws_in_dvonn() {
    agent_plays_the_proof(Dvonn::new(), 6, 10);
}

#[test]
fn the_agent_plays_proven_wins_and_draws_in_lyngk() {
    agent_plays_the_proof(Lyngk::from_seed(0), 4, 10);
}

