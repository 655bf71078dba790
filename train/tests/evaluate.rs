//! Evaluation matches on a solved test game (Nim from the search crate's testing module).
use gipfzero_mcts::testing::{Nim, NimRules};
use gipfzero_mcts::{parse_agent, Agent};
use gipfzero_train::evaluate::{run_match, MatchSettings, Opening, Side};
use gipfzero_train::stats::{Sprt, SprtDecision};

fn start(pair: u32) -> Opening<Nim> {
    // Piles 9..13: some won, some lost for the player to move.
    Opening::at(Nim::new(9 + (pair % 5) as u8, NimRules::CLASSIC))
}

fn agents(first: &'static str, second: &'static str) -> impl Fn(Side, u32) -> Box<dyn Agent<Nim>> + Sync {
    move |side, game| {
        let spec = match side {
            Side::First => first,
            Side::Second => second,
        };
        parse_agent::<Nim>(spec, game as u64 * 2 + (side == Side::Second) as u64).unwrap()
    }
}

#[test]
fn a_searching_agent_beats_random_play() {
    let settings = MatchSettings { games: 20, ..MatchSettings::default() };
    let report = run_match(start, agents("rollout:300", "random"), &settings, |_| {}).unwrap();
    assert_eq!(report.results.games(), 20);
    assert!(report.results.score() >= 0.8, "{report:?}");
    assert!(report.elo.elo > 200.0 && report.elo.lower > 0.0, "{report:?}");
    // The same match from the other side mirrors the result.
    let mirrored = run_match(start, agents("random", "rollout:300"), &settings, |_| {}).unwrap();
    assert!(mirrored.results.score() <= 0.2, "{mirrored:?}");
}

#[test]
fn games_come_in_colour_swapped_pairs_and_odd_counts_round_up() {
    let settings = MatchSettings { games: 7, ..MatchSettings::default() };
    let seen = std::sync::Mutex::new(Vec::new());
    let report = run_match(start, agents("random", "random"), &settings, |results| {
        seen.lock().unwrap().push(results.games());
    })
    .unwrap();
    assert_eq!(report.results.games(), 8);
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen.last(), Some(&8));
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "progress not increasing: {seen:?}");
}

#[test]
fn matches_are_reproducible() {
    let settings = MatchSettings { games: 12, ..MatchSettings::default() };
    let one = run_match(start, agents("greedy", "random"), &settings, |_| {}).unwrap();
    let two = run_match(start, agents("greedy", "random"), &settings, |_| {}).unwrap();
    assert_eq!(one, two);
}

#[test]
fn sprt_stops_a_lopsided_match_early() {
    let sprt = Sprt { elo0: 0.0, elo1: 150.0, alpha: 0.05, beta: 0.05 };
    let settings = MatchSettings { games: 400, sprt: Some(sprt), ..MatchSettings::default() };
    let report = run_match(start, agents("rollout:300", "random"), &settings, |_| {}).unwrap();
    let (llr, decision) = report.sprt.expect("an SPRT was asked for");
    assert_eq!(decision, SprtDecision::AcceptH1, "llr {llr}");
    assert!(report.results.games() < 400, "did not stop early: {report:?}");
}

#[test]
fn openings_differ_between_pairs_and_are_reproducible() {
    use gipfzero_games::dvonn::Dvonn;
    use gipfzero_games::Game;
    use gipfzero_train::evaluate::opening;
    let start = Dvonn::new();
    assert_eq!(opening(&start, 0, 5).position.position_hash(), start.position_hash());
    let hashes: std::collections::BTreeSet<u64> =
        (0..10).map(|seed| opening(&start, 2, seed).position.position_hash()).collect();
    assert!(hashes.len() >= 9, "openings repeat: {hashes:?}");
    assert_eq!(opening(&start, 2, 3), opening(&start, 2, 3));
    // The opening's turns lead from the start to its position.
    let played = opening(&start, 2, 3);
    assert_eq!(played.turns.len(), 2);
    let replayed = gipfzero_games::record::replay(&start, &played.turns.join("\n")).unwrap();
    assert_eq!(replayed.position, played.position);
}

#[test]
fn match_records_replay_to_their_results() {
    use gipfzero_games::lyngk::Lyngk;
    use gipfzero_games::{Game, Outcome, Player, Status};
    use gipfzero_train::evaluate::opening;
    // LYNGK: a seeded set-up and random opening turns, both in the records.
    let start = Lyngk::from_seed(0);
    let settings = MatchSettings { games: 4, ..MatchSettings::default() };
    let agents = |side: Side, game: u32| parse_agent::<Lyngk>(if side == Side::First { "greedy" } else { "random" }, game as u64).unwrap();
    let report = run_match(|pair| opening(&start, 2, 40 + pair as u64), agents, &settings, |_| {}).unwrap();
    assert_eq!(report.games.len(), 4);
    let mut first_agent_score = 0.0;
    for (index, game) in report.games.iter().enumerate() {
        assert_eq!(game.game, index as u32);
        assert_eq!(game.first_agent_plays, if index % 2 == 0 { 1 } else { 2 });
        assert_eq!(game.opening_turns, 2);
        let setup = start.seeded_start(40 + index as u64 / 2);
        assert_eq!(game.setup, setup.setup_text());
        let replayed = gipfzero_games::record::replay(&setup, &game.turns.join("\n")).unwrap();
        let Status::Over(outcome) = replayed.position.status() else { panic!("game {index} did not end") };
        assert_eq!(game.outcome, Some(outcome.value_for(Player::One) as i8));
        assert_eq!(game.result, replayed.position.result_text());
        assert_eq!(game.score, replayed.position.score());
        let first = if game.first_agent_plays == 1 { Player::One } else { Player::Two };
        first_agent_score += match outcome {
            Outcome::Win(winner) if winner == first => 1.0,
            Outcome::Win(_) => 0.0,
            Outcome::Draw => 0.5,
        };
    }
    assert_eq!(first_agent_score, report.results.score() * 4.0);
}

#[test]
fn rollout_beats_random_from_a_fixed_start() {
    let settings = MatchSettings { games: 20, max_turns: 100, ..MatchSettings::default() };
    let fixed = |_| Opening::at(Nim::new(21, NimRules::CLASSIC));
    let report = run_match(fixed, agents("rollout:200", "random"), &settings, |_| {}).unwrap();
    assert_eq!(report.results.games(), 20);
    assert!(report.results.wins >= 17, "{report:?}");
}

#[test]
fn random_against_random_is_even_and_colours_alternate() {
    // With one stone the first player always wins: each agent wins exactly the games it starts.
    let settings = MatchSettings { games: 6, max_turns: 10, ..MatchSettings::default() };
    let one_stone = |_| Opening::at(Nim::new(1, NimRules::CLASSIC));
    let report = run_match(one_stone, agents("random", "random"), &settings, |_| {}).unwrap();
    let results = report.results;
    assert_eq!((results.wins, results.draws, results.losses), (3, 0, 3));
    assert_eq!(results.score(), 0.5);
    assert!(report.games.iter().all(|game| game.first_agent_plays == if game.game % 2 == 0 { 1 } else { 2 }));
}

#[test]
fn the_turn_limit_counts_as_a_draw() {
    let settings = MatchSettings { games: 2, max_turns: 3, ..MatchSettings::default() };
    let long = |_| Opening::at(Nim::new(200, NimRules::CLASSIC));
    let report = run_match(long, agents("random", "random"), &settings, |_| {}).unwrap();
    assert_eq!((report.results.draws, report.unfinished), (2, 2));
    assert!(report.games.iter().all(|game| game.outcome.is_none() && game.result == "stopped after 3 turns"));
}
