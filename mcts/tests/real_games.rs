//! The search on the real engines: small positions with one known winning turn, which every
//! root policy must find with a cheap evaluator (uniform priors and values, or random
//! playouts). Each position also has losing turns, so a search that picked at random fails.
use gipfzero_games::dvonn::Dvonn;
use gipfzero_games::lyngk::Lyngk;
use gipfzero_games::record::random_game;
use gipfzero_games::zertz::{Setup, Variant};
use gipfzero_games::{Game, Outcome, Player, SplitMix64, Status};
use gipfzero_mcts::{
    Agent, Evaluator, MctsAgent, RolloutEvaluator, RootPolicy, Search, SearchConfig, TemperatureStep,
    UniformEvaluator,
};

/// Checks that `winning` is legal and not the only legal turn.
fn check_position<G: Game>(position: &G, winning: &str) {
    let mut turns = Vec::new();
    position.legal_turns(&mut turns);
    let texts: Vec<String> = turns.iter().map(|t| position.format_turn(t)).collect();
    assert!(texts.iter().any(|t| t == winning), "{winning} not legal: {texts:?}");
    assert!(texts.len() > 1, "only one legal turn: the test could not fail");
}

fn policies() -> Vec<RootPolicy> {
    vec![RootPolicy::Puct, RootPolicy::Gumbel]
}

fn chosen_turn<G: Game, E: Evaluator<G>>(position: &G, evaluator: E, root: RootPolicy, seed: u64) -> String {
    let config = SearchConfig::evaluation(400, root);
    let mut agent = MctsAgent::new("test", evaluator, config, seed).expect("a valid search config");
    let turn = agent.choose_turn(position).expect("a turn");
    position.format_turn(&turn)
}

fn finds_the_win<G: Game>(position: G, winning: &str, mover: Player) {
    check_position(&position, winning);
    for root in policies() {
        for seed in 0..3 {
            let uniform = chosen_turn(&position, UniformEvaluator, root.clone(), seed);
            assert_eq!(uniform, winning, "{root:?} with uniform evaluator, seed {seed}");
            let rollout = chosen_turn(&position, RolloutEvaluator::new(1, seed), root.clone(), seed);
            assert_eq!(rollout, winning, "{root:?} with rollouts, seed {seed}");
        }
    }
    // The winning turn really wins (at once, or by force as stated for DVONN below).
    let mut after = position.clone();
    after.play(&after.parse_turn(winning).unwrap());
    if let Status::Over(outcome) = after.status() {
        assert_eq!(outcome, Outcome::Win(mover));
    }
}

#[test]
fn zertz_isolation_win_in_one() {
    // Two lone rings a1, a2 with a white marble on a2; player one holds 2 white. Filling a1
    // with white isolates {a1, a2}: 4 white, a win. Grey or black on a1 isolates too but
    // leaves player one at 3 white; the d-column rings win nothing.
    let position = Setup::new(Variant::Standard)
        .rings("a1 a2 d3 d4 d5")
        .marbles("Wa2")
        .captures(Player::One, [2, 0, 0])
        .to_move(Player::One)
        .build()
        .unwrap();
    // Every removal choice after Wa1 wins; the search must pick one of them.
    for root in policies() {
        let chosen = chosen_turn(&position, UniformEvaluator, root.clone(), 1);
        assert!(chosen.starts_with("Wa1"), "{root:?} chose {chosen}");
        let mut after = position.clone();
        after.play(&after.parse_turn(&chosen).unwrap());
        assert_eq!(after.status(), Status::Over(Outcome::Win(Player::One)));
    }
    let mut turns = Vec::new();
    position.legal_turns(&mut turns);
    let losing = turns
        .iter()
        .filter(|turn| {
            let mut after = position.clone();
            after.play(turn);
            after.status() == Status::Ongoing
        })
        .count();
    assert!(losing > 0, "every turn wins: the test could not fail");
}

#[test]
fn dvonn_end_game_single_winning_move() {
    // Black to move has 4 moves; only i5h4 wins (docs/games/dvonn.md).
    let position = Dvonn::from_setup("c1:w d1:d h4:dbbw h5:d i5:b j5:b", Player::Two).unwrap();
    finds_the_win(position, "i5h4", Player::Two);
}

#[test]
fn lyngk_five_stack_completion() {
    // Player one (red and green claimed) completes and removes a red-topped 5-stack with
    // e1-e2; every other move lets player two score first (docs/games/lyngk.md).
    let position = Lyngk::from_position("e1=R e2=IBGK g1=I g2=B", ["RG", "K"], [0, 0], Player::One).unwrap();
    finds_the_win(position, "e1-e2", Player::One);
}

/// Positions of `start`'s game reached by random turns ([`random_game`]): `count` of them,
/// each after a random number of turns below `turns`, not over, with a choice.
fn random_positions<G: Game>(start: &G, count: usize, turns: u64, seed: u64) -> Vec<G> {
    let mut rng = SplitMix64::new(seed);
    let mut positions = Vec::new();
    let mut actions = Vec::new();
    while positions.len() < count {
        let position = random_game(start, rng.next_u64(), rng.below(turns) as usize).position;
        position.legal_actions(&mut actions);
        if !position.status().is_over() && actions.len() > 1 {
            positions.push(position);
        }
    }
    positions
}

/// `stop_when_decided` saves simulations without changing the action: on random positions of
/// each game, one leaf or eight a step, the search that stops plays what the whole budget
/// plays (the solver off: a proven win found late is the documented exception), stops only
/// once no other action could catch up, and stops early somewhere.
fn a_settled_search_plays_what_the_whole_budget_plays<G: Game>(start: G, turns: u64) {
    const BUDGET: u32 = 200;
    let mut saved = 0;
    for leaves in [1, 8] {
        let config = SearchConfig {
            leaves_per_tree: leaves,
            solver: false,
            ..SearchConfig::evaluation(BUDGET, RootPolicy::Puct)
        };
        let stopping = SearchConfig { stop_when_decided: true, ..config.clone() };
        for (i, position) in random_positions(&start, 12, turns, leaves as u64).into_iter().enumerate() {
            let evaluator = RolloutEvaluator::new(1, i as u64);
            let whole = Search::new(position.clone(), config.clone(), 0).unwrap().run(&evaluator).unwrap();
            let early = Search::new(position.clone(), stopping.clone(), 0).unwrap().run(&evaluator).unwrap();
            assert_eq!(whole.simulations, BUDGET);
            assert_eq!((early.action, early.budget), (whole.action, BUDGET), "position {i}, {leaves} leaves");
            if early.simulations < BUDGET {
                let mut visits = early.visits.clone();
                visits.sort_unstable_by(|a, b| b.cmp(a));
                assert!(visits[0] > visits[1] + (BUDGET - early.simulations), "{visits:?}");
                saved += BUDGET - early.simulations;
            }
        }
    }
    assert!(saved > 0, "no search stopped early: the test could not fail");
}

#[test]
fn settled_searches_stop_early_in_every_game() {
    a_settled_search_plays_what_the_whole_budget_plays(Setup::new(Variant::Standard).build().unwrap(), 15);
    a_settled_search_plays_what_the_whole_budget_plays(Dvonn::new(), 80);
    a_settled_search_plays_what_the_whole_budget_plays(Lyngk::from_seed(0), 30);
}

/// A root with one action is settled before any simulation; a Gumbel root or a move at a
/// temperature above 0 never stops early.
#[test]
fn settled_searches_stop_only_where_the_choice_is_the_most_visited() {
    // White's one move is c1d1: h4 (four high) has nothing four away to land on.
    let forced = Dvonn::from_setup("c1:w d1:d h4:dbbw k5:d", Player::One).unwrap();
    let mut actions = Vec::new();
    forced.legal_actions(&mut actions);
    assert_eq!(actions.len(), 1);
    let stop = |config: SearchConfig| SearchConfig { stop_when_decided: true, ..config };
    let result = Search::new(forced, stop(SearchConfig::evaluation(100, RootPolicy::Puct)), 0)
        .unwrap()
        .run(&UniformEvaluator)
        .unwrap();
    assert_eq!((result.simulations, result.budget), (0, 100));
    for position in random_positions(&Dvonn::new(), 6, 80, 5) {
        let gumbel = stop(SearchConfig::evaluation(64, RootPolicy::Gumbel));
        let sampled = stop(SearchConfig {
            temperature: vec![TemperatureStep { from_move: 0, temperature: 1.0 }],
            ..SearchConfig::evaluation(64, RootPolicy::Puct)
        });
        for config in [gumbel, sampled] {
            let result = Search::new(position.clone(), config, 1).unwrap().run(&UniformEvaluator).unwrap();
            assert_eq!(result.simulations, 64);
        }
    }
}
