//! Agents, agent specs and refereed games on Nim variants (whole matches: train/tests/evaluate.rs).
use gipfzero_games::Game;
use gipfzero_mcts::testing::{best_actions, Nim, NimRules, NimTurn};
use gipfzero_mcts::{
    parse_agent, play_game, rollout_agent, Agent, AgentError, AgentSpecError,
    GreedyAgent, MctsAgent, RandomAgent, RootPolicy, SearchConfig, UniformEvaluator,
};
use proptest::prelude::*;

#[test]
fn random_agent_plays_legal_turns_and_is_seeded() {
    let position = Nim::new(9, NimRules::DOUBLE);
    let mut turns = Vec::new();
    position.legal_turns(&mut turns);
    let picks = |seed| {
        let mut agent = RandomAgent::new(seed);
        (0..20)
            .map(|_| agent.choose_turn(&position).unwrap())
            .collect::<Vec<NimTurn>>()
    };
    assert_eq!(picks(3), picks(3));
    assert!(picks(3).iter().all(|t| turns.contains(t)));
    assert!(
        picks(3).iter().any(|t| t != &picks(3)[0]),
        "a random agent should vary"
    );
}

#[test]
fn greedy_takes_an_immediate_win() {
    for seed in 0..10 {
        let mut greedy = GreedyAgent::new(seed);
        let turn = greedy.choose_turn(&Nim::new(3, NimRules::CLASSIC)).unwrap();
        assert_eq!(turn, NimTurn(vec![3]));
        let turn = greedy.choose_turn(&Nim::new(3, NimRules::DOUBLE)).unwrap();
        assert!(
            turn == NimTurn(vec![1, 2]) || turn == NimTurn(vec![2, 1]),
            "{turn:?}"
        );
    }
}

#[test]
fn greedy_maximises_its_score_margin() {
    // Score = stones taken; far from the end the greediest turn takes 2 + 2.
    let mut greedy = GreedyAgent::new(5);
    for _ in 0..5 {
        assert_eq!(
            greedy.choose_turn(&Nim::new(30, NimRules::DOUBLE)).unwrap(),
            NimTurn(vec![2, 2])
        );
    }
}

#[test]
fn agents_refuse_finished_games_and_mid_turn_positions() {
    let mut mid_turn = Nim::new(9, NimRules::DOUBLE);
    mid_turn.apply(Nim::take(1));
    let mut over = Nim::new(1, NimRules::CLASSIC);
    over.apply(Nim::take(1));
    let mut agents: Vec<Box<dyn Agent<Nim>>> = vec![
        Box::new(RandomAgent::new(0)),
        Box::new(GreedyAgent::new(0)),
        Box::new(rollout_agent::<Nim>(10, 0).unwrap()),
    ];
    for agent in agents.iter_mut() {
        assert_eq!(
            agent.choose_turn(&mid_turn).unwrap_err(),
            AgentError::NotTurnStart
        );
        assert_eq!(agent.choose_turn(&over).unwrap_err(), AgentError::GameOver);
    }
}

#[test]
fn mcts_agent_plays_a_whole_winning_turn_of_several_actions() {
    let config = SearchConfig::evaluation(600, RootPolicy::Puct);
    let mut agent = MctsAgent::new("mcts", UniformEvaluator, config, 0).unwrap();
    // From 4 only 2+2 wins; elsewhere check every action of the turn against the solver.
    assert_eq!(
        agent.choose_turn(&Nim::new(4, NimRules::DOUBLE)).unwrap(),
        NimTurn(vec![2, 2])
    );
    assert_eq!(agent.last_results().len(), 2);
    for pile in [6u8, 7, 8] {
        let position = Nim::new(pile, NimRules::DOUBLE);
        let turn = agent.choose_turn(&position).unwrap();
        // Every action of the turn must keep the win.
        let mut after = position.clone();
        for action in position.turn_actions(&turn) {
            assert!(
                best_actions(&after).contains(&action),
                "pile {pile}: turn {turn:?}"
            );
            after.apply(action);
        }
    }
}

#[test]
fn mcts_agent_reuses_its_tree_across_the_opponents_turn() {
    let config = SearchConfig::evaluation(300, RootPolicy::Puct);
    let mut agent = MctsAgent::new("mcts", UniformEvaluator, config, 0).unwrap();
    let mut opponent = RandomAgent::new(4);
    let mut position = Nim::new(40, NimRules::CLASSIC);
    let mut inherited = 0;
    for _ in 0..4 {
        let turn = agent.choose_turn(&position).unwrap();
        let first = &agent.last_results()[0];
        // Visits beyond this search's simulations (and the fresh root's evaluation) were inherited.
        inherited += first
            .visits
            .iter()
            .sum::<u32>()
            .saturating_sub(first.simulations);
        position.play(&turn);
        let reply = opponent.choose_turn(&position).unwrap();
        position.play(&reply);
    }
    assert!(inherited > 0, "the tree was never reused");
}

#[test]
fn a_probe_searches_without_choosing_and_the_turn_keeps_its_work() {
    let config = SearchConfig::evaluation(50, RootPolicy::Puct);
    let mut agent = MctsAgent::new("mcts", UniformEvaluator, config, 0).unwrap();
    let position = Nim::new(40, NimRules::CLASSIC);
    let evaluated = agent.probe(&position).unwrap().expect("a search agent probes");
    assert!(evaluated > 0 && evaluated <= 50, "{evaluated}");
    assert!(agent.last_results().is_empty(), "a probe chooses nothing");
    agent.choose_turn(&position).unwrap();
    let first = &agent.last_results()[0];
    let inherited = first.visits.iter().sum::<u32>() - first.simulations;
    assert!(inherited >= evaluated, "the turn's search started from the probe's tree: {inherited} < {evaluated}");
    // Nothing to probe at a finished game; agents that do not search have no probe.
    assert!(matches!(agent.probe(&Nim::new(0, NimRules::CLASSIC)), Err(AgentError::GameOver)));
    assert_eq!(RandomAgent::new(1).probe(&position).unwrap(), None);
}

#[test]
fn a_played_game_is_a_legal_record() {
    let mut a = GreedyAgent::new(1);
    let mut b = rollout_agent::<Nim>(50, 1).unwrap();
    let start = Nim::new(17, NimRules::BONUS);
    let played = play_game(&start, [&mut a, &mut b], 100, 0).unwrap();
    let mut position = start.clone();
    for turn in &played.turns {
        let text = position.format_turn(turn);
        assert_eq!(&position.parse_turn(&text).unwrap(), turn);
        position.play(turn);
    }
    assert!(played.outcome.is_some());
    assert_eq!(position.status(), played.position.status());
}

#[test]
fn agent_specs_build_the_baselines() {
    for (spec, name) in [
        ("random", "random"),
        ("greedy", "greedy"),
        ("rollout:64", "rollout:64"),
        (" rollout:1 ", "rollout:1"),
    ] {
        let agent = parse_agent::<Nim>(spec, 0).unwrap();
        assert_eq!(agent.name(), name);
    }
    assert!(matches!(
        parse_agent::<Nim>("minimax", 0),
        Err(AgentSpecError::Unknown(_))
    ));
    for bad in [
        "rollout:",
        "rollout:0",
        "rollout:-5",
        "rollout:1.5",
        "rollout:99999999999",
        "rollout:ten",
    ] {
        assert!(
            matches!(
                parse_agent::<Nim>(bad, 0),
                Err(AgentSpecError::BadSimulations { .. })
            ),
            "{bad}"
        );
    }
}

proptest! {
    #[test]
    fn agent_spec_parsing_never_panics(spec in ".{0,24}", count in any::<i64>()) {
        let _ = parse_agent::<Nim>(&spec, 0).map(|a| a.name());
        let _ = parse_agent::<Nim>(&format!("rollout:{count}"), 0).map(|a| a.name());
    }
}
