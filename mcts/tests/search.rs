//! The search against exact answers on Nim variants (see `gipfzero_mcts::testing`).
use gipfzero_games::{Action, Game, Player, Status};
use gipfzero_mcts::testing::{best_actions, solve, Nim, NimRules, PriorEvaluator, SolverEvaluator};
use gipfzero_mcts::{
    LeafBatch, EvalError, Evaluator, GumbelConfig, PlayoutCap, RolloutEvaluator, RootPolicy, Search,
    SearchConfig, SearchError, SearchPool, SearchResult, UniformEvaluator,
};

fn puct(simulations: u32) -> SearchConfig {
    SearchConfig::evaluation(simulations, RootPolicy::Puct)
}

fn gumbel(simulations: u32, noise: bool) -> SearchConfig {
    SearchConfig {
        simulations,
        root_policy: RootPolicy::Gumbel,
        gumbel: GumbelConfig {
            noise,
            ..GumbelConfig::default()
        },
        dirichlet: None,
        ..SearchConfig::default()
    }
}

fn search_once<E: Evaluator<Nim>>(
    position: Nim,
    config: SearchConfig,
    seed: u64,
    evaluator: &E,
) -> SearchResult {
    Search::new(position, config, seed)
        .unwrap()
        .run(evaluator)
        .unwrap()
}

fn slot(result: &SearchResult, action: Action) -> usize {
    result.actions.iter().position(|&a| a == action).unwrap()
}

/// Minimax that assumes the players alternate after every action: the mistake the search must
/// not make. Returns the value for the player to move.
fn solve_alternating(position: &Nim) -> f32 {
    if let Status::Over(outcome) = position.status() {
        // The previous action's player took the last stone; under alternation that is the
        // opponent of whoever "moves" now.
        return if outcome == gipfzero_games::Outcome::Draw {
            0.0
        } else {
            -1.0
        };
    }
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    actions
        .iter()
        .map(|&a| {
            let mut next = position.clone();
            next.apply(a);
            -solve_alternating(&next)
        })
        .fold(f32::NEG_INFINITY, f32::max)
}

fn best_actions_alternating(position: &Nim) -> Vec<Action> {
    let target = solve_alternating(position);
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    actions
        .into_iter()
        .filter(|&a| {
            let mut next = position.clone();
            next.apply(a);
            -solve_alternating(&next) == target
        })
        .collect()
}

/// Won positions (for the player to move) among piles 1..=max.
fn won_piles(rules: NimRules, max: u8) -> Vec<u8> {
    (1..=max)
        .filter(|&pile| solve(&Nim::new(pile, rules)) == 1.0)
        .collect()
}

#[test]
fn puct_finds_the_winning_take_in_classic_nim() {
    for pile in won_piles(NimRules::CLASSIC, 11) {
        let position = Nim::new(pile, NimRules::CLASSIC);
        let result = search_once(position.clone(), puct(1500), 1, &UniformEvaluator);
        assert!(
            best_actions(&position).contains(&result.action),
            "pile {pile}: chose {:?}",
            result.action
        );
        assert!(
            result.root_value > 0.0,
            "pile {pile}: root value {}",
            result.root_value
        );
    }
}

#[test]
fn gumbel_finds_the_winning_take_in_classic_nim() {
    for pile in won_piles(NimRules::CLASSIC, 11) {
        let position = Nim::new(pile, NimRules::CLASSIC);
        for seed in 0..3 {
            // 800: with values all 0, only the game ends inform the search, and pile 11 needs
            // the whole depth (400 sufficed when forced positions were evaluated, 0 at pile 1,
            // and not walked through; the tree is shaped differently, not better or worse).
            let result = search_once(position.clone(), gumbel(800, true), seed, &UniformEvaluator);
            assert!(
                best_actions(&position).contains(&result.action),
                "pile {pile} seed {seed}: chose {:?}",
                result.action
            );
        }
    }
}

#[test]
fn rollout_values_find_the_winning_take_too() {
    let position = Nim::new(10, NimRules::CLASSIC);
    let result = search_once(position.clone(), puct(300), 3, &RolloutEvaluator::new(4, 3));
    assert_eq!(result.action, Nim::take(2));
}

#[test]
fn visit_counts_follow_the_prior_when_values_are_equal() {
    // A deep pile: no game end within reach, every value is 0, so PUCT's visits should be
    // proportional to the priors (with no first-play penalty to distort them).
    let prior = vec![0.6, 0.3, 0.1];
    let config = SearchConfig {
        fpu_reduction: 0.0,
        root_fpu_reduction: 0.0,
        ..puct(3000)
    };
    let result = search_once(
        Nim::new(250, NimRules::CLASSIC),
        config,
        0,
        &PriorEvaluator {
            prior: prior.clone(),
        },
    );
    let total: u32 = result.visits.iter().sum();
    assert_eq!(total, 3000);
    for (i, &p) in prior.iter().enumerate() {
        let share = result.visits[i] as f32 / total as f32;
        assert!(
            (share - p).abs() < 0.02,
            "action {i}: share {share}, prior {p}"
        );
        assert!((result.policy_target[i] - share).abs() < 1e-6);
    }
}

#[test]
fn several_actions_per_turn_are_backed_up_for_the_player_to_move() {
    // Two takes of 1–2 per turn. From 4 the mover wins with 2+2 only; a search that flipped
    // signs after every action would believe the second take is the opponent's and prefer 1.
    let position = Nim::new(4, NimRules::DOUBLE);
    assert_eq!(best_actions(&position), vec![Nim::take(2)]);
    assert!(
        !best_actions_alternating(&position).contains(&Nim::take(2)),
        "the test must tell the two apart"
    );
    for config in [puct(400), gumbel(100, false)] {
        let result = search_once(position.clone(), config, 0, &UniformEvaluator);
        assert_eq!(result.action, Nim::take(2));
        assert!(result.root_value > 0.5, "root value {}", result.root_value);
    }
    // Every won position up to 13 stones, compared with the exact answer.
    let mut told_apart = 0;
    for pile in won_piles(NimRules::DOUBLE, 13) {
        let position = Nim::new(pile, NimRules::DOUBLE);
        let best = best_actions(&position);
        if best != best_actions_alternating(&position) {
            told_apart += 1;
        }
        let result = search_once(position, puct(2000), 0, &UniformEvaluator);
        assert!(
            best.contains(&result.action),
            "pile {pile}: chose {:?}, best {best:?}",
            result.action
        );
    }
    assert!(
        told_apart >= 3,
        "only {told_apart} positions where alternation errs"
    );
}

#[test]
fn a_second_turn_in_a_row_is_backed_up_for_the_same_player() {
    // Bonus Nim: leaving a multiple of 5 gives the mover another turn, as DVONN's White moves
    // twice at the phase change. Check the won positions where alternation gets it wrong.
    let mut checked = 0;
    for pile in won_piles(NimRules::BONUS, 13) {
        let position = Nim::new(pile, NimRules::BONUS);
        let best = best_actions(&position);
        if best == best_actions_alternating(&position) {
            continue;
        }
        checked += 1;
        let result = search_once(position.clone(), puct(2000), 0, &UniformEvaluator);
        assert!(
            best.contains(&result.action),
            "pile {pile}: chose {:?}, best {best:?}",
            result.action
        );
        // Gumbel's sequential halving needs informative values at this budget; exact leaf
        // values still go through the same backup, where a sign error would show.
        let result = search_once(position.clone(), gumbel(24, false), 0, &SolverEvaluator);
        assert!(
            best.contains(&result.action),
            "gumbel, pile {pile}: chose {:?}, best {best:?}",
            result.action
        );
    }
    assert!(
        checked >= 2,
        "only {checked} positions where alternation errs"
    );
}

#[test]
fn a_perfect_value_needs_no_deep_search() {
    // With exact values, a handful of simulations is enough in every variant.
    for rules in [NimRules::CLASSIC, NimRules::DOUBLE, NimRules::BONUS] {
        for pile in won_piles(rules, 20) {
            let position = Nim::new(pile, rules);
            let result = search_once(position.clone(), puct(30), 0, &SolverEvaluator);
            assert!(
                best_actions(&position).contains(&result.action),
                "{rules:?} pile {pile}"
            );
        }
    }
}

#[test]
fn seeded_searches_are_deterministic() {
    let noisy = SearchConfig {
        simulations: 200,
        ..SearchConfig::default()
    };
    let capped = SearchConfig {
        playout_cap: Some(PlayoutCap {
            full_probability: 0.5,
            cheap_simulations: 20,
        }),
        ..noisy.clone()
    };
    for config in [noisy, capped, gumbel(64, true)] {
        let run = |seed| {
            let mut search =
                Search::new(Nim::new(30, NimRules::BONUS), config.clone(), seed).unwrap();
            let mut results = Vec::new();
            for _ in 0..6 {
                let result = search.run(&RolloutEvaluator::new(1, 9)).unwrap();
                search.advance(result.action).unwrap();
                results.push(result);
            }
            results
        };
        assert_eq!(run(5), run(5));
        assert_ne!(run(5), run(6), "the seed must matter");
    }
}

#[test]
fn gumbel_improved_policy_is_a_distribution_that_prefers_the_winning_take() {
    // Pile 5: taking 1 wins, 2 and 3 lose.
    let position = Nim::new(5, NimRules::CLASSIC);
    for seed in 0..5 {
        let result = search_once(position.clone(), gumbel(48, true), seed, &UniformEvaluator);
        let sum: f32 = result.policy_target.iter().sum();
        assert!((sum - 1.0).abs() < 1e-5, "sum {sum}");
        let win = slot(&result, Nim::take(1));
        for (i, &p) in result.policy_target.iter().enumerate() {
            if i != win {
                assert!(
                    result.policy_target[win] > p,
                    "seed {seed}: {:?}",
                    result.policy_target
                );
            }
        }
        assert!(result.policy_target[win] > 1.0 / 3.0);
        assert_eq!(result.action, Nim::take(1));
        assert_eq!(result.visits.iter().sum::<u32>(), 48);
    }
}

#[test]
fn gumbel_considers_only_m_actions() {
    // m = 2 of 3 legal actions: one action is never visited.
    let config = SearchConfig {
        root_policy: RootPolicy::Gumbel,
        gumbel: GumbelConfig {
            max_considered: 2,
            ..GumbelConfig::default()
        },
        ..gumbel(40, true)
    };
    let result = search_once(
        Nim::new(40, NimRules::CLASSIC),
        config,
        4,
        &UniformEvaluator,
    );
    assert_eq!(
        result.visits.iter().filter(|&&v| v == 0).count(),
        1,
        "{:?}",
        result.visits
    );
    assert_eq!(result.visits.iter().sum::<u32>(), 40);
}

#[test]
fn gumbel_noise_follows_the_temperature_schedule() {
    // A uniform prior and m = 1: the single considered action is the top of logits + T·g.
    // With T = 1 the seed decides it; with T = 0 (from move 0 on) the noise is gone and every
    // seed considers, and plays, the same action.
    let considered = |temperature: f32, seed: u64| {
        let config = SearchConfig {
            root_policy: RootPolicy::Gumbel,
        gumbel: GumbelConfig {
                max_considered: 1,
                ..GumbelConfig::default()
            },
            temperature: vec![gipfzero_mcts::TemperatureStep {
                from_move: 0,
                temperature,
            }],
            ..gumbel(8, true)
        };
        search_once(Nim::new(40, NimRules::CLASSIC), config, seed, &UniformEvaluator).action
    };
    let hot: std::collections::HashSet<Action> = (0..24).map(|seed| considered(1.0, seed)).collect();
    assert!(hot.len() > 1, "temperature 1 always chose {hot:?}");
    let cold: std::collections::HashSet<Action> = (0..24).map(|seed| considered(0.0, seed)).collect();
    assert_eq!(cold.len(), 1, "temperature 0 chose {cold:?}");
    // The schedule is read at the search's move number: cold from move 5 on.
    let scheduled = |seed: u64| {
        let config = SearchConfig {
            root_policy: RootPolicy::Gumbel,
        gumbel: GumbelConfig {
                max_considered: 1,
                ..GumbelConfig::default()
            },
            temperature: vec![
                gipfzero_mcts::TemperatureStep { from_move: 0, temperature: 1.0 },
                gipfzero_mcts::TemperatureStep { from_move: 5, temperature: 0.0 },
            ],
            ..gumbel(8, true)
        };
        let mut search = Search::new(Nim::new(40, NimRules::CLASSIC), config, seed).unwrap();
        search.set_move_number(5);
        search.run(&UniformEvaluator).unwrap().action
    };
    let late: std::collections::HashSet<Action> = (0..24).map(scheduled).collect();
    assert_eq!(late, cold, "move 5 is past the schedule's cooling step");
}

fn pool_positions() -> Vec<(Nim, u64)> {
    vec![
        (Nim::new(9, NimRules::CLASSIC), 1),
        (Nim::new(13, NimRules::DOUBLE), 2),
        (Nim::new(17, NimRules::BONUS), 3),
        (Nim::new(6, NimRules::CLASSIC), 4),
        (Nim::new(30, NimRules::BONUS), 5),
    ]
}

#[test]
fn lockstep_search_equals_searching_each_tree_alone() {
    let evaluator = RolloutEvaluator::new(2, 11);
    for config in [
        SearchConfig {
            simulations: 100,
            ..SearchConfig::default()
        },
        gumbel(50, true),
    ] {
        // Alone, for three decisions each.
        let mut alone = Vec::new();
        for (position, seed) in pool_positions() {
            let mut search = Search::new(position, config.clone(), seed).unwrap();
            let mut results = Vec::new();
            for _ in 0..3 {
                if search.position().status().is_over() {
                    break;
                }
                let result = search.run(&evaluator).unwrap();
                search.advance(result.action).unwrap();
                results.push(result);
            }
            alone.push(results);
        }
        for parallel in [false, true] {
            let mut pool = SearchPool::new();
            pool.set_parallel(parallel);
            for (position, seed) in pool_positions() {
                pool.push(Search::new(position, config.clone(), seed).unwrap());
            }
            let mut together: Vec<Vec<SearchResult>> = vec![Vec::new(); pool.len()];
            for _ in 0..3 {
                let results = pool.run(&evaluator).unwrap();
                for (index, result) in results.into_iter().enumerate() {
                    pool.searches_mut()[index].advance(result.action).unwrap();
                    together[index].push(result);
                }
                if pool
                    .searches()
                    .iter()
                    .any(|s| s.position().status().is_over())
                {
                    break;
                }
            }
            for (i, results) in together.iter().enumerate() {
                assert_eq!(
                    &alone[i][..results.len()],
                    &results[..],
                    "tree {i}, parallel {parallel}"
                );
            }
        }
    }
}

/// Counts the evaluator calls (the pool's steps that evaluated anything).
struct CountingCalls<E> {
    inner: E,
    calls: std::sync::atomic::AtomicUsize,
}

impl<E: Evaluator<Nim>> Evaluator<Nim> for CountingCalls<E> {
    fn evaluate(&self, batch: &LeafBatch<Nim>, values: &mut [f32], policy: &mut [f32]) -> Result<(), EvalError> {
        self.calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.inner.evaluate(batch, values, policy)
    }
}

#[test]
fn searches_on_their_own_clocks_equal_each_tree_alone_and_take_fewer_steps() {
    const DECISIONS: usize = 4;
    // Most searches cheap, a few full: the budgets differ from tree to tree and decision to
    // decision, so a pool whose searches all end together waits for the full ones.
    let config = SearchConfig {
        simulations: 60,
        playout_cap: Some(PlayoutCap { full_probability: 0.3, cheap_simulations: 8 }),
        ..SearchConfig::default()
    };
    let positions = || {
        vec![
            (Nim::new(40, NimRules::CLASSIC), 1),
            (Nim::new(41, NimRules::DOUBLE), 2),
            (Nim::new(45, NimRules::BONUS), 3),
            (Nim::new(50, NimRules::CLASSIC), 4),
            (Nim::new(44, NimRules::BONUS), 5),
        ]
    };
    let counted = || CountingCalls { inner: RolloutEvaluator::new(2, 11), calls: Default::default() };
    let alone: Vec<Vec<SearchResult>> = positions()
        .into_iter()
        .map(|(position, seed)| {
            let mut search = Search::new(position, config.clone(), seed).unwrap();
            (0..DECISIONS)
                .map(|_| {
                    let result = search.run(&RolloutEvaluator::new(2, 11)).unwrap();
                    search.advance(result.action).unwrap();
                    result
                })
                .collect()
        })
        .collect();
    assert!(alone.iter().flatten().any(|r| r.full_search) && alone.iter().flatten().any(|r| !r.full_search));

    // Each search on its own clock: a tree whose search ends moves on at the next step.
    let own_clocks = counted();
    let mut pool = SearchPool::new();
    for (position, seed) in positions() {
        let mut search = Search::new(position, config.clone(), seed).unwrap();
        search.begin().unwrap();
        pool.push(search);
    }
    let mut results: Vec<Vec<SearchResult>> = vec![Vec::new(); pool.len()];
    let mut steps = 0;
    while results.iter().any(|r| r.len() < DECISIONS) {
        pool.step(&own_clocks).unwrap();
        steps += 1;
        assert!(steps < 10_000, "the searches never end");
        for (i, search) in pool.searches_mut().iter_mut().enumerate() {
            if results[i].len() == DECISIONS || !search.is_done() {
                continue;
            }
            let result = search.finish().unwrap();
            // A search that is done and not begun again gathers nothing more.
            if results[i].len() + 1 < DECISIONS {
                search.advance(result.action).unwrap();
                search.begin().unwrap();
            }
            results[i].push(result);
        }
    }
    assert_eq!(results, alone);

    // Every search of a decision ending together (`SearchPool::run`).
    let together = counted();
    let mut pool = SearchPool::new();
    for (position, seed) in positions() {
        pool.push(Search::new(position, config.clone(), seed).unwrap());
    }
    for _ in 0..DECISIONS {
        for (i, result) in pool.run(&together).unwrap().into_iter().enumerate() {
            pool.searches_mut()[i].advance(result.action).unwrap();
        }
    }
    let (own, all) = (own_clocks.calls.into_inner(), together.calls.into_inner());
    assert!(own * 10 < all * 9, "{own} evaluator calls on their own clocks, {all} together");
}

#[test]
fn several_leaves_per_tree_still_find_the_win() {
    let config = SearchConfig {
        leaves_per_tree: 8,
        ..puct(1500)
    };
    let position = Nim::new(7, NimRules::CLASSIC);
    let result = search_once(position.clone(), config, 0, &UniformEvaluator);
    assert_eq!(result.visits.iter().sum::<u32>(), 1500);
    assert!(best_actions(&position).contains(&result.action));
}

#[test]
fn tree_reuse_keeps_the_visits_of_the_subtree() {
    let position = Nim::new(40, NimRules::CLASSIC);
    let mut search = Search::new(position.clone(), puct(500), 0).unwrap();
    let result = search.run(&UniformEvaluator).unwrap();
    let kept = result.visits[slot(&result, result.action)];
    assert!(kept > 0);
    search.advance(result.action).unwrap();
    assert_eq!(search.root_visits(), kept);
    let next = search.run(&UniformEvaluator).unwrap();
    assert_eq!(next.simulations, 500);
    assert_eq!(search.root_visits(), kept + 500);
    assert_eq!(next.to_move, Player::Two);

    let mut fresh = Search::new(
        position,
        SearchConfig {
            reuse_tree: false,
            ..puct(500)
        },
        0,
    )
    .unwrap();
    let result = fresh.run(&UniformEvaluator).unwrap();
    fresh.advance(result.action).unwrap();
    assert_eq!(fresh.root_visits(), 0);
    fresh.run(&UniformEvaluator).unwrap();
    // The fresh root's own evaluation plus the simulations.
    assert_eq!(fresh.root_visits(), 501);
}

#[test]
fn advancing_on_an_illegal_action_is_refused() {
    let mut search = Search::new(Nim::new(2, NimRules::CLASSIC), puct(10), 0).unwrap();
    assert_eq!(
        search.advance(Nim::take(3)),
        Err(SearchError::IllegalAction(2))
    );
    search.run(&UniformEvaluator).unwrap();
    assert_eq!(
        search.advance(Nim::take(3)),
        Err(SearchError::IllegalAction(2))
    );
    assert_eq!(search.position().pile(), 2);
}

#[test]
fn a_finished_game_has_nothing_to_search() {
    let mut position = Nim::new(1, NimRules::CLASSIC);
    position.apply(Nim::take(1));
    let mut search = Search::new(position, puct(10), 0).unwrap();
    assert_eq!(
        search.run(&UniformEvaluator).unwrap_err(),
        SearchError::GameOver
    );
}

struct Broken(f32);

impl Evaluator<Nim> for Broken {
    fn evaluate(
        &self,
        batch: &LeafBatch<Nim>,
        values: &mut [f32],
        policy: &mut [f32],
    ) -> Result<(), EvalError> {
        if self.0.is_infinite() {
            return Err(EvalError::new("server gone"));
        }
        values.fill(self.0);
        // Negative and NaN priors: the search must fall back to something sane.
        for (i, p) in policy.iter_mut().enumerate() {
            *p = if i % 2 == 0 { f32::NAN } else { -1.0 };
        }
        let _ = batch;
        Ok(())
    }
}

#[test]
fn evaluator_failures_and_bad_values_are_errors_not_panics() {
    let position = Nim::new(9, NimRules::CLASSIC);
    let mut search = Search::new(position.clone(), puct(20), 0).unwrap();
    assert_eq!(
        search.run(&Broken(f32::INFINITY)).unwrap_err(),
        SearchError::Evaluator(EvalError::new("server gone"))
    );
    let mut search = Search::new(position.clone(), puct(20), 0).unwrap();
    assert!(matches!(
        search.run(&Broken(f32::NAN)),
        Err(SearchError::BadValue(_))
    ));
    // The failed step is taken back: the same search runs again with a working evaluator.
    let result = search.run(&UniformEvaluator).unwrap();
    assert_eq!(result.visits.iter().sum::<u32>(), 20);
    assert_eq!(search.root_visits(), 21);
    // Broken priors but a finite value: uniform priors are used instead.
    let mut search = Search::new(position, puct(20), 0).unwrap();
    let result = search.run(&Broken(0.0)).unwrap();
    assert_eq!(result.visits.iter().sum::<u32>(), 20);
}

#[test]
fn playout_cap_marks_full_searches() {
    let config = SearchConfig {
        simulations: 100,
        playout_cap: Some(PlayoutCap {
            full_probability: 0.3,
            cheap_simulations: 10,
        }),
        ..SearchConfig::default()
    };
    let mut search = Search::new(Nim::new(200, NimRules::CLASSIC), config, 3).unwrap();
    let (mut full, mut cheap) = (0, 0);
    for _ in 0..60 {
        let result = search.run(&UniformEvaluator).unwrap();
        if result.full_search {
            full += 1;
            assert_eq!(result.simulations, 100);
        } else {
            cheap += 1;
            assert_eq!(result.simulations, 10);
        }
        search.advance(result.action).unwrap();
    }
    assert!(
        (8..=30).contains(&full),
        "{full} full searches of 60 at p = 0.3"
    );
    assert!(cheap > full);
}

#[test]
fn temperature_one_samples_and_zero_takes_the_most_visited() {
    let position = Nim::new(100, NimRules::CLASSIC);
    let prior = PriorEvaluator {
        prior: vec![0.5, 0.3, 0.2],
    };
    let sampling = SearchConfig {
        dirichlet: None,
        simulations: 100,
        ..SearchConfig::default()
    };
    let mut chosen = [0u32; 3];
    for seed in 0..200 {
        let result = search_once(position.clone(), sampling.clone(), seed, &prior);
        chosen[result.action.index()] += 1;
    }
    // Visit shares are about 0.5 / 0.3 / 0.2; sampling must pick every action.
    assert!(chosen.iter().all(|&c| c >= 15), "{chosen:?}");
    assert!(chosen[0] > chosen[2]);
    for seed in 0..20 {
        assert_eq!(
            search_once(position.clone(), puct(100), seed, &prior).action,
            Nim::take(1)
        );
    }
}

#[test]
fn dirichlet_noise_changes_the_root_visits() {
    let position = Nim::new(100, NimRules::CLASSIC);
    let prior = PriorEvaluator {
        prior: vec![0.8, 0.1, 0.1],
    };
    let quiet = search_once(position.clone(), puct(400), 0, &prior);
    let noisy_config = SearchConfig {
        dirichlet: Some(gipfzero_mcts::DirichletNoise {
            alpha_scale: 3.0,
            epsilon: 0.5,
        }),
        ..puct(400)
    };
    let noisy: Vec<Vec<u32>> = (0..4)
        .map(|seed| search_once(position.clone(), noisy_config.clone(), seed, &prior).visits)
        .collect();
    assert!(noisy.iter().any(|v| v != &quiet.visits));
    assert!(noisy.iter().all(|v| v.iter().sum::<u32>() == 400));
}

// Reported in the docs; a regression here costs memory in every tree.
const _: () = assert!(gipfzero_mcts::NODE_BYTES <= 40 && gipfzero_mcts::EDGE_BYTES <= 24);

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    #[test]
    fn every_search_gives_a_legal_action_and_a_distribution(
        pile in 1u8..60,
        variant in 0usize..3,
        policy in 0usize..3,
        simulations in 1u32..80,
        leaves in 1u32..5,
        seed in proptest::prelude::any::<u64>(),
    ) {
        let rules = [NimRules::CLASSIC, NimRules::DOUBLE, NimRules::BONUS][variant];
        let root_policy = [
            RootPolicy::Puct,
            RootPolicy::Gumbel,
            RootPolicy::Ucb1,
        ][policy];
        let ucb1 = gipfzero_mcts::Ucb1Config { exploration: 1.0 };
        let config = SearchConfig { simulations, root_policy, ucb1, leaves_per_tree: leaves, ..SearchConfig::default() };
        let position = Nim::new(pile, rules);
        let mut search = Search::new(position.clone(), config, seed).unwrap();
        let result = search.run(&RolloutEvaluator::new(1, seed)).unwrap();
        let mut legal = Vec::new();
        position.legal_actions(&mut legal);
        proptest::prop_assert_eq!(&result.actions, &legal);
        proptest::prop_assert!(legal.contains(&result.action));
        proptest::prop_assert_eq!(result.visits.iter().sum::<u32>(), simulations);
        proptest::prop_assert_eq!(result.simulations, simulations);
        let sum: f32 = result.policy_target.iter().sum();
        proptest::prop_assert!((sum - 1.0).abs() < 1e-4);
        proptest::prop_assert!((-1.0..=1.0).contains(&result.root_value));
        search.advance(result.action).unwrap();
    }
}

#[test]
fn first_play_urgency_holds_back_unvisited_actions() {
    // Values are all 0. With a large reduction an unvisited action is valued far below the
    // root (0 − 2·sqrt(0.98)), so the low-prior actions are never tried in 500 simulations;
    // without it they are.
    let prior = PriorEvaluator {
        prior: vec![0.98, 0.01, 0.01],
    };
    let position = Nim::new(200, NimRules::CLASSIC);
    let harsh = SearchConfig {
        root_fpu_reduction: 2.0,
        ..puct(500)
    };
    assert_eq!(
        search_once(position.clone(), harsh, 0, &prior).visits,
        vec![500, 0, 0]
    );
    let lenient = SearchConfig {
        root_fpu_reduction: 0.0,
        ..puct(500)
    };
    let visits = search_once(position, lenient, 0, &prior).visits;
    assert!(visits[1] > 0 && visits[2] > 0, "{visits:?}");
}

/// The evaluator's positions by their number of legal actions: how many had exactly one.
struct CountingForced<E> {
    inner: E,
    forced: std::sync::atomic::AtomicUsize,
}

impl<E: Evaluator<Nim>> Evaluator<Nim> for CountingForced<E> {
    fn evaluate(&self, batch: &LeafBatch<Nim>, values: &mut [f32], policy: &mut [f32]) -> Result<(), EvalError> {
        let forced = (0..batch.len()).filter(|&i| batch.legal(i).len() == 1).count();
        self.forced.fetch_add(forced, std::sync::atomic::Ordering::Relaxed);
        self.inner.evaluate(batch, values, policy)
    }
}

#[test]
fn forced_positions_below_the_root_are_walked_through_not_evaluated() {
    // In Nim a pile of one stone (or, under DOUBLE, one take left to make) leaves one legal
    // action. With `skip_forced` no such position reaches the evaluator; without it some do
    // (so the count can tell), and either way the search finds the winning take and runs its
    // whole budget.
    let mut evaluated_without = 0;
    for rules in [NimRules::CLASSIC, NimRules::DOUBLE, NimRules::BONUS] {
        for pile in 2..=14u8 {
            let position = Nim::new(pile, rules);
            for (skip_forced, root_policy) in [(true, RootPolicy::Puct), (true, RootPolicy::Gumbel), (false, RootPolicy::Puct)] {
                let evaluator = CountingForced { inner: SolverEvaluator, forced: Default::default() };
                let config = SearchConfig { skip_forced, ..SearchConfig::evaluation(60, root_policy) };
                let result = search_once(position.clone(), config, 0, &evaluator);
                let forced = evaluator.forced.into_inner();
                if skip_forced {
                    assert_eq!(forced, 0, "{rules:?} pile {pile}: forced positions were evaluated");
                } else {
                    evaluated_without += forced;
                }
                assert_eq!(result.simulations, 60, "{rules:?} pile {pile}");
                if solve(&position) == 1.0 {
                    assert!(best_actions(&position).contains(&result.action), "{rules:?} pile {pile} skip {skip_forced}");
                }
            }
        }
    }
    assert!(evaluated_without > 0, "no forced position was ever reached: the test shows nothing");
}

#[test]
fn the_rollout_baseline_still_evaluates_forced_positions() {
    // `rollout:<sims>` is defined as plain UCT; skipping forced positions would make it a
    // stronger opponent than the one every earlier result was measured against.
    let agent = gipfzero_mcts::rollout_agent::<Nim>(100, 0).unwrap();
    assert!(!agent.config().skip_forced);
}
