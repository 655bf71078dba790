//! The MCTS-solver (`SearchConfig::solver`): proven results in the search, on positions of all
//! three games where one turn wins, where the opponent threatens to win in one turn, and on
//! Nim positions whose exact value is known a few turns deep.
//!
//! The positions of the real games are found the way a user meets them: at the turn starts of
//! seeded random games, by trying every legal turn. The searches value leaves with the
//! uniform evaluator (value 0, uniform priors), so only the rules can tell them who wins.
use gipfzero_games::dvonn::Dvonn;
use gipfzero_games::lyngk::Lyngk;
use gipfzero_games::record::random_game;
use gipfzero_games::zertz::{Variant, Zertz};
use gipfzero_games::{Game, Outcome, Status};
use gipfzero_mcts::testing::{solve, Nim, NimRules};
use gipfzero_mcts::{
    rollout_agent, Agent, MctsAgent, RootPolicy, Search, SearchConfig, UniformEvaluator,
};

/// Whether `turn` ends the game at once with a win for the player who plays it.
fn wins_at_once<G: Game>(position: &G, turn: &G::Turn) -> bool {
    let mover = position.to_move();
    let mut next = position.clone();
    next.play(turn);
    next.status() == Status::Over(Outcome::Win(mover))
}

/// Whether the player to move has a turn that wins at once.
fn has_winning_turn<G: Game>(position: &G) -> bool {
    let mut turns = Vec::new();
    position.legal_turns(&mut turns);
    turns.iter().any(|turn| wins_at_once(position, turn))
}

/// Whether `turn` wins within two turns: at once, or every reply of the opponent ends the
/// game with the mover winning or leaves the mover a turn that wins at once. The solver may
/// find such a win before the one at once (LYNGK: a move after which every reply loses).
fn wins_within_two<G: Game>(position: &G, turn: &G::Turn) -> bool {
    let mover = position.to_move();
    let mut next = position.clone();
    next.play(turn);
    match next.status() {
        Status::Over(outcome) => outcome == Outcome::Win(mover),
        Status::Ongoing if next.to_move() == mover => has_winning_turn(&next),
        Status::Ongoing => {
            let mut replies = Vec::new();
            next.legal_turns(&mut replies);
            replies.iter().all(|reply| {
                let mut after = next.clone();
                after.play(reply);
                match after.status() {
                    Status::Over(outcome) => outcome == Outcome::Win(mover),
                    Status::Ongoing => after.to_move() == mover && has_winning_turn(&after),
                }
            })
        }
    }
}

/// Turn starts of seeded random games that `keep` accepts, at most `count` of them.
fn positions<G: Game>(start: &G, count: usize, keep: impl Fn(&G) -> bool) -> Vec<G> {
    let mut found = Vec::new();
    for seed in 0..400 {
        let start = start.seeded_start(seed);
        let game = random_game(&start, seed, 400);
        let mut position = start.clone();
        for turn in &game.turns {
            if position.status() == Status::Ongoing && keep(&position) {
                found.push(position.clone());
                break;
            }
            position.play(turn);
        }
        if found.len() == count {
            break;
        }
    }
    assert_eq!(found.len(), count, "random games gave too few positions of the kind");
    found
}

/// The searches under test: PUCT, a Gumbel root and UCB1, all with the solver unless said.
fn configs(simulations: u32, solver: bool) -> Vec<SearchConfig> {
    [RootPolicy::Puct, RootPolicy::Gumbel, RootPolicy::Ucb1]
        .into_iter()
        .map(|root| SearchConfig { solver, ..SearchConfig::evaluation(simulations, root) })
        .collect()
}

/// The turn an agent searching with `config` over the uniform evaluator plays, and the value
/// its first search found for the root.
fn chosen<G: Game>(position: &G, config: &SearchConfig) -> (G::Turn, f32) {
    let mut agent = MctsAgent::new("test", UniformEvaluator, config.clone(), 7).unwrap();
    let turn = agent.choose_turn(position).unwrap();
    (turn, agent.last_results()[0].root_value)
}

/// In every position where one turn wins, every search with the solver plays a winning turn
/// (at once, or one that wins within two turns whatever the reply) and reports the root won
/// (the rollout baseline plays one too). A search of two simulations without the solver
/// misses some: the positions are no trivial ones.
fn plays_the_win<G: Game>(start: G, simulations: u32) {
    // Positions with a choice to get wrong: at least four turns, not all of them winning.
    let choice = |position: &G| {
        let mut turns = Vec::new();
        position.legal_turns(&mut turns);
        let winning = turns.iter().filter(|turn| wins_at_once(position, *turn)).count();
        turns.len() >= 4 && winning > 0 && winning < turns.len()
    };
    let found = positions(&start, 6, choice);
    for (index, position) in found.iter().enumerate() {
        for config in configs(simulations, true) {
            let (turn, value) = chosen(position, &config);
            assert!(wins_within_two(position, &turn), "position {index}, {:?}: {turn:?} does not win", config.root_policy);
            assert_eq!(value, 1.0, "position {index}, {:?}: the root is proven won", config.root_policy);
        }
        let mut rollout = rollout_agent::<G>(simulations, 3).unwrap();
        let turn = rollout.choose_turn(position).unwrap();
        assert!(wins_within_two(position, &turn), "position {index}, rollout:{simulations}: {turn:?} does not win");
    }
    let missed = found
        .iter()
        .flat_map(|position| configs(2, false).into_iter().map(move |config| (position, config)))
        .filter(|(position, config)| !wins_within_two(*position, &chosen(*position, config).0))
        .count();
    assert!(missed > 0, "without the solver every win was found too: the positions test nothing");
}

#[test]
fn a_win_in_one_turn_is_played_in_dvonn() {
    // A DVONN turn is one action: the root's expansion sees the win, so a handful of
    // simulations finds it, where a search without the solver misses some.
    plays_the_win(Dvonn::new(), 4);
}

#[test]
fn a_win_in_one_turn_is_played_in_lyngk() {
    // A LYNGK turn may claim a colour before it moves: the win can be two actions deep.
    plays_the_win(Lyngk::from_seed(0), 400);
}

#[test]
fn a_win_in_one_turn_is_played_in_zertz() {
    // A winning turn may be a placement and a removal, or a chain of captures: a few
    // actions, each searched.
    plays_the_win(Zertz::new(Variant::Standard), 400);
}

/// Whether, after `turn`, the opponent has a turn that wins at once.
fn allows_a_win<G: Game>(position: &G, turn: &G::Turn) -> bool {
    let mut next = position.clone();
    next.play(turn);
    next.status() == Status::Ongoing && next.to_move() != position.to_move() && has_winning_turn(&next)
}

/// Positions where the player to move cannot win at once, some turns let the opponent win at
/// once and others do not, and there are few enough turns to look at every reply: the
/// searches with the solver play a turn that does not lose at once, unless they proved that
/// every turn loses (then nothing else is left).
fn prevents_the_loss<G: Game>(start: G, simulations: u32) {
    let threatened = |position: &G| {
        let mut turns = Vec::new();
        position.legal_turns(&mut turns);
        if turns.len() > 24 || has_winning_turn(position) {
            return false;
        }
        let losing = turns.iter().filter(|turn| allows_a_win(position, *turn)).count();
        losing > 0 && losing < turns.len()
    };
    for (index, position) in positions(&start, 4, threatened).iter().enumerate() {
        for config in configs(simulations, true) {
            let (turn, value) = chosen(position, &config);
            assert!(
                !allows_a_win(position, &turn) || value == -1.0,
                "position {index}, {:?}: {turn:?} lets the opponent win (root value {value})",
                config.root_policy
            );
        }
    }
}

#[test]
fn the_opponents_win_in_one_is_prevented_in_dvonn() {
    prevents_the_loss(Dvonn::new(), 1600);
}

#[test]
fn the_opponents_win_in_one_is_prevented_in_lyngk() {
    prevents_the_loss(Lyngk::from_seed(0), 6400);
}

#[test]
fn the_opponents_win_in_one_is_prevented_in_zertz() {
    prevents_the_loss(Zertz::new(Variant::Standard), 3200);
}

/// Nim piles whose exact value is known two and more turns deep (classic Nim: a multiple of
/// 4 is lost for the player to move; a double-take turn is two actions of one player): the
/// solver proves the root, reports its exact value and plays a winning action when it is won.
#[test]
fn nim_roots_are_proven_turns_deep() {
    for (rules, piles) in [(NimRules::CLASSIC, 1..=12u8), (NimRules::DOUBLE, 1..=12u8)] {
        for pile in piles {
            let position = Nim::new(pile, rules);
            let exact = solve(&position);
            for config in configs(2000, true) {
                let mut search = Search::new(position.clone(), config.clone(), 1).unwrap();
                let result = search.run(&UniformEvaluator).unwrap();
                assert_eq!(result.root_value, exact, "pile {pile} {rules:?} {:?}", config.root_policy);
                if exact > 0.0 {
                    let mut next = position.clone();
                    next.apply(result.action);
                    let for_mover = if next.to_move() == position.to_move() { solve(&next) } else { -solve(&next) };
                    assert_eq!(for_mover, 1.0, "pile {pile} {rules:?} {:?}: the action played does not keep the win", config.root_policy);
                }
            }
        }
    }
}

