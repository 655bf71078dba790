//! Self-play runs with the uniform evaluator on the real engines: shards and records checked
//! against an independent replay of every recorded game.
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use gipfzero_games::dvonn::Dvonn;
use gipfzero_games::lyngk::Lyngk;
use gipfzero_games::zertz::{Variant, Zertz};
use gipfzero_games::record::replay;
use gipfzero_games::{Game, Player, Status};
use gipfzero_mcts::{parse_agent, EvalError, Evaluator, LeafBatch, RolloutEvaluator, SearchConfig, UniformEvaluator};
use gipfzero_selfplay::{
    league_tally, read_shard, CapRule, GameRecord, LeagueConfig, OpponentFactory, ProgressReport, ResignConfig,
    Generator, GeneratorConfig, ShardData, Termination, RECORDS_FILE,
};

fn test_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gipfzero-selfplay-it-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    dir
}

fn config(games: u64, seed: u64) -> GeneratorConfig {
    GeneratorConfig {
        search: SearchConfig { simulations: 8, ..SearchConfig::default() },
        games_in_flight: 3,
        games,
        positions_per_shard: 150,
        seed,
        generator: NETWORK.into(),
        ..GeneratorConfig::default()
    }
}

/// The records (by game id) and all shards of a directory, shards in file order.
fn read_output(dir: &Path) -> (BTreeMap<u64, GameRecord>, Vec<ShardData>) {
    let text = fs::read_to_string(dir.join(RECORDS_FILE)).unwrap();
    let mut records = BTreeMap::new();
    for line in text.lines() {
        let record: GameRecord = serde_json::from_str(line).unwrap();
        assert!(records.insert(record.game_id, record).is_none(), "a game id recorded twice");
    }
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".npz"))
        .collect();
    names.sort();
    for (i, name) in names.iter().enumerate() {
        assert_eq!(name, &format!("shard-{i:06}.npz"), "shards are numbered without gaps");
    }
    let shards = names.iter().map(|n| read_shard(&dir.join(n)).unwrap()).collect();
    (records, shards)
}

/// Positions of one game, from all shards, as (move_number → row) with the shard it came from.
fn rows_of(shards: &[ShardData], game_id: u64) -> BTreeMap<i32, (usize, usize)> {
    let mut rows = BTreeMap::new();
    for (s, shard) in shards.iter().enumerate() {
        for (r, &id) in shard.samples.game_id.iter().enumerate() {
            if id as u64 == game_id {
                assert!(rows.insert(shard.samples.move_number[r], (s, r)).is_none(), "a position written twice");
            }
        }
    }
    let shard_set: std::collections::BTreeSet<usize> = rows.values().map(|&(s, _)| s).collect();
    assert!(shard_set.len() <= 1, "game {game_id} is split over shards {shard_set:?}");
    rows
}

/// The generator name of [`config`]: the player whose decisions are samples.
const NETWORK: &str = "uniform";

/// Checks every documented property of a run's output, replaying each game independently.
fn check_output<G: Game>(dir: &Path, games: u64, start_of: impl Fn(&GameRecord) -> G) -> BTreeMap<u64, GameRecord> {
    let (records, shards) = read_output(dir);
    assert_eq!(records.keys().copied().collect::<Vec<_>>(), (0..games).collect::<Vec<_>>());
    let total: usize = shards.iter().map(|s| s.len()).sum();
    assert_eq!(total, records.values().map(|r| r.positions as usize).sum::<usize>());
    for shard in &shards {
        let info = &shard.info;
        let spec = start_of(records.values().next().unwrap()).spec();
        assert_eq!((info.game.as_str(), info.variant.as_str()), (spec.game, spec.variant));
        assert_eq!((info.planes, info.height, info.width, info.action_count), (spec.planes, spec.height, spec.width, spec.action_count));
        shard.check_lengths().unwrap();
    }
    for record in records.values() {
        let start = start_of(record);
        let spec = start.spec();
        let played = replay(&start, &record.turns.join("\n")).unwrap_or_else(|e| panic!("game {}: {e}", record.game_id));
        assert_eq!(played.turns.len(), record.turns.len(), "no turn was implied");
        assert_eq!(record.turn_count as usize, record.turns.len());
        let end = &played.position;
        assert_eq!(end.score(), record.score);
        match record.termination {
            Termination::Rules => {
                let Status::Over(outcome) = end.status() else { panic!("game {} is not over", record.game_id) };
                assert_eq!(outcome.value_for(Player::One), record.outcome as f32);
                assert_eq!(end.result_text(), record.result);
            }
            _ => assert_eq!(end.status(), Status::Ongoing),
        }
        // Walk the game action by action: every decision with a choice by the generator's
        // player (both sides but a league opponent's) is a sample, in order, with this
        // position's observation, legal actions and outcome.
        let sampled_side = |player: Player| record.players[player.index()] == NETWORK;
        assert!(sampled_side(Player::One) || sampled_side(Player::Two));
        let rows = rows_of(&shards, record.game_id);
        let mut position = start.clone();
        let mut move_number = 0;
        let mut legal = Vec::new();
        let mut observation = vec![0.0; spec.observation_len()];
        let mut sampled = 0;
        let mut check_sample = |position: &G, move_number: i32| {
            position.legal_actions(&mut legal);
            if legal.len() < 2 || !sampled_side(position.to_move()) {
                assert!(!rows.contains_key(&move_number), "forced or opponent's decision {move_number} sampled");
                return;
            }
            let &(s, r) = rows.get(&move_number).unwrap_or_else(|| panic!("game {} decision {move_number} missing", record.game_id));
            let shard = &shards[s];
            let a = spec.action_count;
            let mask = &shard.samples.legal_mask[r * a..(r + 1) * a];
            let policy = &shard.samples.policy[r * a..(r + 1) * a];
            let expected_mask: Vec<u8> = (0..a).map(|i| legal.iter().any(|l| l.index() == i) as u8).collect();
            assert_eq!(mask, &expected_mask[..]);
            let sum: f32 = policy.iter().sum();
            assert!((sum - 1.0).abs() < 1e-4, "policy sums to {sum}");
            assert!(policy.iter().zip(mask).all(|(&p, &m)| p >= 0.0 && (m == 1 || p == 0.0)));
            position.encode(&mut observation);
            let n = spec.observation_len();
            assert_eq!(&shard.samples.observations[r * n..(r + 1) * n], &observation[..]);
            let sign = if position.to_move() == Player::One { 1.0 } else { -1.0 };
            assert_eq!(shard.samples.outcome[r], record.outcome as f32 * sign);
            assert!((-1.0..=1.0).contains(&shard.samples.root_value[r]));
            assert_eq!(shard.samples.full_search[r], 1);
            sampled += 1;
        };
        let mut replayed = start.clone();
        for turn in &played.turns {
            for action in replayed.turn_actions(turn) {
                check_sample(&position, move_number);
                position.apply(action);
                move_number += 1;
            }
            replayed.play(turn);
        }
        if record.termination == Termination::Resignation {
            // The resigning player's last search is a sample too.
            check_sample(&position, move_number);
        }
        assert_eq!(sampled, record.positions as usize, "game {}", record.game_id);
        assert_eq!(rows.len(), sampled);
        assert_eq!(record.game, spec.game);
        assert_eq!(record.setup, start.setup_text());
    }
    records
}

fn lyngk_start(record: &GameRecord) -> Lyngk {
    Lyngk::from_setup(record.setup.as_deref().expect("LYNGK records carry their set-up")).unwrap()
}

#[test]
fn dvonn_run_writes_documented_shards_and_replayable_records() {
    let dir = test_dir("dvonn");
    let mut reports = Vec::new();
    let summary = Generator::new(Dvonn::new(), config(4, 1), &dir)
        .unwrap()
        .run(&UniformEvaluator, &mut |r: &ProgressReport| reports.push(r.clone()))
        .unwrap();
    assert_eq!(summary.games_played, 4);
    assert!(summary.shards_written >= 2, "150 positions a shard: several shards");
    assert_eq!(summary.largest_batch, 3, "one leaf per game in flight");
    assert_eq!(reports.len(), 4);
    assert_eq!(reports.last().unwrap().games_done, 4);
    assert_eq!(reports.last().unwrap().positions, summary.positions);
    let records = check_output(&dir, 4, |_| Dvonn::new());
    assert!(records.values().all(|r| r.termination == Termination::Rules && r.setup.is_none()));
}

#[test]
fn lyngk_run_writes_documented_shards_and_replayable_records() {
    let dir = test_dir("lyngk");
    Generator::new(Lyngk::from_seed(0), config(3, 2), &dir).unwrap().run(&UniformEvaluator, &mut ()).unwrap();
    let records = check_output(&dir, 3, lyngk_start);
    let setups: std::collections::BTreeSet<_> = records.values().map(|r| r.setup.clone()).collect();
    assert_eq!(setups.len(), 3, "each game draws its own set-up");
}

#[test]
fn zertz_runs_write_documented_shards_and_replayable_records() {
    for variant in [Variant::Standard, Variant::R48, Variant::Blitz] {
        let dir = test_dir(&format!("zertz-{}", variant.name()));
        Generator::new(Zertz::new(variant), config(3, 3), &dir).unwrap().run(&UniformEvaluator, &mut ()).unwrap();
        let records = check_output(&dir, 3, |_| Zertz::new(variant));
        assert!(records.values().all(|r| r.setup.is_none()));
    }
}

#[test]
fn same_seed_gives_the_same_games() {
    let run = |name: &str, seed: u64, in_flight: usize| {
        let dir = test_dir(name);
        let config = GeneratorConfig { games_in_flight: in_flight, ..config(3, seed) };
        Generator::new(Lyngk::from_seed(0), config, &dir).unwrap().run(&UniformEvaluator, &mut ()).unwrap();
        dir
    };
    let (a, b) = (run("seed-a", 5, 3), run("seed-b", 5, 3));
    for name in [RECORDS_FILE, "shard-000000.npz"] {
        assert_eq!(fs::read(a.join(name)).unwrap(), fs::read(b.join(name)).unwrap(), "{name}");
    }
    // Games do not depend on which others share their batches.
    let c = run("seed-c", 5, 1);
    assert_eq!(read_output(&a).0, read_output(&c).0);
    let d = run("seed-d", 6, 3);
    assert_ne!(read_output(&a).0[&0].turns, read_output(&d).0[&0].turns);
}

/// The rollout evaluator, noting which threads called it and failing from call `fail_at` on.
struct Watched {
    inner: RolloutEvaluator,
    threads: std::sync::Mutex<std::collections::BTreeSet<String>>,
    calls: std::sync::atomic::AtomicU64,
    fail_at: u64,
}

impl Watched {
    fn new(fail_at: u64) -> Watched {
        Watched { inner: RolloutEvaluator::new(2, 11), threads: Default::default(), calls: Default::default(), fail_at }
    }
}

impl<G: Game> Evaluator<G> for Watched {
    fn evaluate(&self, batch: &LeafBatch<G>, values: &mut [f32], policy: &mut [f32]) -> Result<(), EvalError> {
        let name = std::thread::current().name().unwrap_or("unnamed").to_string();
        self.threads.lock().unwrap().insert(name);
        if self.calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) >= self.fail_at {
            return Err(EvalError::new("the watched evaluator gave up"));
        }
        self.inner.evaluate(batch, values, policy)
    }
}

#[test]
fn workers_play_the_same_games_side_by_side() {
    // The rollout evaluator answers a position from its hash alone, so the games must not
    // depend on the workers, and the workers must really search at the same time.
    let league = LeagueConfig { share: 0.5, opponents: vec!["rollout:4".into()] };
    let resign = ResignConfig { threshold: -0.2, consecutive: 1, disabled_fraction: 0.5 };
    let config = GeneratorConfig { games_in_flight: 4, league: Some(league), resign: Some(resign), positions_per_shard: 40, ..config(9, 21) };
    let run = |name: &str, workers: usize| {
        let dir = test_dir(name);
        let evaluator = Watched::new(u64::MAX);
        let config = GeneratorConfig { workers, ..config.clone() };
        let summary = Generator::new(Zertz::new(Variant::Blitz), config, &dir).unwrap().run(&evaluator, &mut ()).unwrap();
        let threads = evaluator.threads.into_inner().unwrap();
        (dir, summary, threads)
    };
    let (one, one_summary, one_threads) = run("workers-1", 1);
    let (three, three_summary, three_threads) = run("workers-3", 3);
    assert_eq!(one_threads.len(), 1, "{one_threads:?}");
    assert_eq!(three_threads.len(), 3, "three workers searched: {three_threads:?}");
    let start = |_: &GameRecord| Zertz::new(Variant::Blitz);
    let records = check_output(&one, 9, start);
    assert_eq!(check_output(&three, 9, start), records, "the same games whatever the workers");
    // Every game's positions are the same rows, whichever shard holds them.
    let (_, one_shards) = read_output(&one);
    let (_, three_shards) = read_output(&three);
    for id in 0..9 {
        let rows = |shards: &[ShardData]| {
            rows_of(shards, id)
                .into_iter()
                .map(|(m, (s, r))| (m, shards[s].samples.root_value[r].to_bits(), shards[s].samples.policy[r * shards[s].samples.action_count..(r + 1) * shards[s].samples.action_count].iter().map(|p| p.to_bits()).collect::<Vec<_>>()))
                .collect::<Vec<_>>()
        };
        assert_eq!(rows(&one_shards), rows(&three_shards), "game {id}");
    }
    // The summary counts the same games.
    let counts = |s: &gipfzero_selfplay::RunSummary| (s.games_played, s.positions, s.resignations, s.resignation_disabled_games, s.would_have_resigned, s.false_resignations);
    assert_eq!(counts(&one_summary), counts(&three_summary));
    assert!(one_summary.resignations > 0 && one_summary.resignation_disabled_games > 0, "{one_summary:?}");
}

#[test]
fn a_failing_worker_stops_the_run_and_leaves_whole_games() {
    let dir = test_dir("workers-fail");
    let config = GeneratorConfig { games_in_flight: 4, workers: 2, positions_per_shard: 20, ..config(12, 22) };
    // Enough calls for some games to finish and be written (about 2,900 make the run), far
    // too few for all.
    let evaluator = Watched::new(1500);
    let error = Generator::new(Dvonn::new(), config.clone(), &dir).unwrap().run(&evaluator, &mut ()).unwrap_err();
    assert!(error.to_string().contains("gave up") || std::error::Error::source(&error).is_some_and(|e| e.to_string().contains("gave up")), "{error}");
    // What was written is whole games; resuming with a working evaluator completes the run.
    let (written, _) = read_output(&dir);
    assert!(!written.is_empty() && written.len() < 12, "the run stopped early, after {} games", written.len());
    let summary = Generator::new(Dvonn::new(), config, &dir).unwrap().run(&Watched::new(u64::MAX), &mut ()).unwrap();
    assert_eq!(summary.games_resumed as usize + summary.games_played as usize, 12);
    check_output(&dir, 12, |_| Dvonn::new());
}

#[test]
fn a_killed_run_resumes_without_duplicates() {
    let reference = test_dir("resume-reference");
    let config = || GeneratorConfig { positions_per_shard: 60, ..config(5, 3) };
    Generator::new(Dvonn::new(), config(), &reference).unwrap().run(&UniformEvaluator, &mut ()).unwrap();
    let (expected, _) = read_output(&reference);

    // What a kill between appending the records of a batch and renaming its shard leaves:
    // records ahead of the shards, a half-written line, a temporary shard.
    let dir = test_dir("resume");
    Generator::new(Dvonn::new(), config(), &dir).unwrap().run(&UniformEvaluator, &mut ()).unwrap();
    let (_, shards) = read_output(&dir);
    let last = format!("shard-{:06}.npz", shards.len() - 1);
    let lost: Vec<i64> = shards.last().unwrap().samples.game_id.clone();
    let temporary = gipfzero_store::temporary_path(&dir.join(&last));
    fs::rename(dir.join(&last), &temporary).unwrap();
    let mut records = fs::read(dir.join(RECORDS_FILE)).unwrap();
    records.extend_from_slice(b"{\"game_id\": 4, \"ga");
    fs::write(dir.join(RECORDS_FILE), records).unwrap();

    let summary = Generator::new(Dvonn::new(), config(), &dir).unwrap().run(&UniformEvaluator, &mut ()).unwrap();
    let mut replayed: Vec<i64> = lost.clone();
    replayed.dedup();
    assert_eq!(summary.games_played as usize, replayed.len());
    assert_eq!(summary.games_resumed as usize, 5 - replayed.len());
    assert!(!temporary.exists());
    let records = check_output(&dir, 5, |_| Dvonn::new());
    assert_eq!(records, expected, "the resumed run played the same games");

    // Resuming a finished run plays nothing.
    let summary = Generator::new(Dvonn::new(), config(), &dir).unwrap().run(&UniformEvaluator, &mut ()).unwrap();
    assert_eq!((summary.games_played, summary.games_resumed, summary.shards_written), (0, 5, 0));
    assert_eq!(read_output(&dir).0, expected);

    // Another seed would mix games of two runs under one id space.
    let error = Generator::new(Dvonn::new(), GeneratorConfig { seed: 4, ..config() }, &dir).unwrap().run(&UniformEvaluator, &mut ()).unwrap_err();
    assert!(error.to_string().contains("another seed"), "{error}");
    let other_search = GeneratorConfig { search: SearchConfig { simulations: 9, ..SearchConfig::default() }, ..config() };
    let error = Generator::new(Dvonn::new(), other_search, &dir).unwrap().run(&UniformEvaluator, &mut ()).unwrap_err();
    assert!(error.to_string().contains("other search settings"), "{error}");
    assert_eq!(read_output(&dir).0, expected, "a refused resume changes nothing");

    // A shard whose games have no records cannot be resumed silently.
    fs::write(dir.join(RECORDS_FILE), b"").unwrap();
    let error = Generator::new(Dvonn::new(), config(), &dir).unwrap().run(&UniformEvaluator, &mut ()).unwrap_err();
    assert!(error.to_string().contains("has no record"), "{error}");
}

#[test]
fn resignation_and_false_resignations_are_counted() {
    let dir = test_dir("resign");
    // With a uniform evaluator root values hover around 0: a threshold of 0.5 makes every
    // player resign at its second searched decision, which is always player 1 first.
    let config = GeneratorConfig {
        resign: Some(ResignConfig { threshold: 0.5, consecutive: 2, disabled_fraction: 0.5 }),
        ..config(8, 4)
    };
    let summary = Generator::new(Dvonn::new(), config, &dir).unwrap().run(&UniformEvaluator, &mut ()).unwrap();
    let records = check_output(&dir, 8, |_| Dvonn::new());
    let disabled: Vec<&GameRecord> = records.values().filter(|r| r.resignation_disabled).collect();
    assert!(!disabled.is_empty() && disabled.len() < 8, "about half the games play out");
    for record in records.values() {
        if record.resignation_disabled {
            assert_eq!(record.termination, Termination::Rules);
            assert_eq!(record.would_have_resigned, Some(1));
        } else {
            assert_eq!(record.termination, Termination::Resignation);
            assert_eq!((record.result.as_str(), record.outcome, record.positions), ("player 1 resigns", -1, 3));
        }
    }
    assert_eq!(summary.resignations as usize, 8 - disabled.len());
    assert_eq!(summary.resignation_disabled_games as usize, disabled.len());
    assert_eq!(summary.would_have_resigned as usize, disabled.len());
    let not_lost = disabled.iter().filter(|r| r.outcome != -1).count();
    assert_eq!(summary.false_resignations as usize, not_lost);
}

#[test]
fn the_turn_cap_stops_games_and_scores_them_by_the_rule() {
    for (rule, name) in [(CapRule::Draw, "cap-draw"), (CapRule::Score, "cap-score")] {
        let dir = test_dir(name);
        // DVONN: 49 placements, then moves; stop 10 turns into the movement phase.
        let config = GeneratorConfig { max_turns: 59, cap_rule: rule, ..config(2, 5) };
        Generator::new(Dvonn::new(), config, &dir).unwrap().run(&UniformEvaluator, &mut ()).unwrap();
        let records = check_output(&dir, 2, |_| Dvonn::new());
        for record in records.values() {
            assert_eq!((record.termination, record.turn_count), (Termination::TurnCap, 59));
            let expected = match rule {
                CapRule::Draw => 0,
                CapRule::Score => (record.score[0].cmp(&record.score[1])) as i8,
            };
            assert_eq!(record.outcome, expected);
            assert!(record.result.starts_with("stopped after 59 turns"), "{}", record.result);
        }
    }
}

/// League opponents built by a factory of the caller's (here: baselines with a marked name).
fn opponents(names: &'static [&'static str]) -> Box<OpponentFactory<Zertz>> {
    Box::new(move |index, seed| Ok(parse_agent::<Zertz>(names[index], seed)?))
}

#[test]
fn league_games_pair_the_drawn_opponents_and_sample_the_network_only() {
    const NAMES: &[&str] = &["random", "rollout:4"];
    let league = LeagueConfig { share: 0.5, opponents: NAMES.iter().map(|n| n.to_string()).collect() };
    let config = GeneratorConfig { league: Some(league.clone()), ..config(12, 7) };
    let start = Zertz::new(Variant::Standard);
    let run = |name: &str, config: GeneratorConfig| {
        let dir = test_dir(name);
        Generator::new(start.clone(), config, &dir).unwrap().run(&UniformEvaluator, &mut ()).unwrap();
        dir
    };
    let dir = run("league", config.clone());
    // check_output replays every game and finds samples at the network's decisions only.
    let records = check_output(&dir, 12, |_| start.clone());
    let mut seen = std::collections::BTreeSet::new();
    for (&id, record) in &records {
        assert_eq!(record.players, config.players(id));
        match config.matchup(id) {
            None => assert_eq!(record.players, [NETWORK, NETWORK]),
            Some(pairing) => {
                let opponent = &record.players[pairing.side.index()];
                assert_eq!(opponent, NAMES[pairing.opponent]);
                assert_eq!(record.players[pairing.side.other().index()], NETWORK);
                seen.insert((opponent.clone(), pairing.side));
            }
        }
    }
    let league_games = records.keys().filter(|&&id| config.matchup(id).is_some()).count();
    // The tally counts each league game once, from the network's side.
    let tally = league_tally(&dir, &config).unwrap();
    assert_eq!(tally.iter().map(|t| t.opponent.as_str()).collect::<Vec<_>>(), NAMES);
    for (index, entry) in tally.iter().enumerate() {
        let mut expected = [0; 3];
        for (&id, record) in &records {
            if let Some(pairing) = config.matchup(id).filter(|p| p.opponent == index) {
                let network_won = record.outcome == if pairing.side == Player::One { -1 } else { 1 };
                expected[if network_won { 0 } else if record.outcome == 0 { 1 } else { 2 }] += 1;
            }
        }
        assert_eq!([entry.wins, entry.draws, entry.losses], expected, "{entry:?}");
    }
    assert_eq!(tally.iter().map(|t| t.wins + t.draws + t.losses).sum::<u32>() as usize, league_games);
    assert!((2..=10).contains(&league_games), "{league_games} of 12 games are league games at a share of 0.5");
    assert!(seen.iter().any(|(_, side)| *side == Player::One) && seen.iter().any(|(_, side)| *side == Player::Two), "{seen:?}");
    assert_eq!(seen.iter().map(|(name, _)| name).collect::<std::collections::BTreeSet<_>>().len(), 2, "{seen:?}");

    // The pairings and games come from the game seeds: the same with one game in flight.
    let one_at_a_time = run("league-serial", GeneratorConfig { games_in_flight: 1, ..config.clone() });
    assert_eq!(read_output(&one_at_a_time).0, records);
    // Share 0 and 1: no league game, only league games.
    let none = GeneratorConfig { league: Some(LeagueConfig { share: 0.0, ..league.clone() }), ..config.clone() };
    let all = GeneratorConfig { league: Some(LeagueConfig { share: 1.0, ..league.clone() }), ..config.clone() };
    assert!((0..12).all(|id| none.matchup(id).is_none() && all.matchup(id).is_some()));

    // Resuming under another league would give one id two meanings.
    let other = GeneratorConfig { league: Some(LeagueConfig { share: 1.0, ..league }), ..config.clone() };
    let error = Generator::new(start.clone(), other, &dir).unwrap().run(&UniformEvaluator, &mut ()).unwrap_err();
    assert!(error.to_string().contains("league"), "{error}");
    assert_eq!(read_output(&dir).0, records, "a refused resume changes nothing");
}

#[test]
fn a_factory_builds_league_opponents_of_any_name() {
    // Names that are no baseline spec, built by the caller's factory.
    let league = LeagueConfig { share: 1.0, opponents: vec!["sparring partner".into()] };
    let config = GeneratorConfig { league: Some(league), ..config(2, 5) };
    let dir = test_dir("league-factory");
    Generator::new(Zertz::new(Variant::Standard), config, &dir)
        .unwrap()
        .with_opponents(opponents(&["rollout:3"]))
        .run(&UniformEvaluator, &mut ())
        .unwrap();
    let records = check_output(&dir, 2, |_| Zertz::new(Variant::Standard));
    assert!(records.values().all(|r| r.players.contains(&"sparring partner".to_string())), "{records:?}");
}

#[test]
fn an_opponent_that_cannot_be_built_stops_the_run_with_its_name() {
    let league = LeagueConfig { share: 1.0, opponents: vec!["rollout:x".into()] };
    let config = GeneratorConfig { league: Some(league), ..config(2, 1) };
    let dir = test_dir("league-bad");
    let error = Generator::new(Zertz::new(Variant::Standard), config, &dir).unwrap().run(&UniformEvaluator, &mut ()).unwrap_err();
    // The cause is kept as the error's source.
    let cause = std::error::Error::source(&error).expect("the spec's error is the source");
    let message = format!("{error}: {cause}");
    assert!(message.contains("league opponent rollout:x") && message.contains("simulation count"), "{message}");
    assert!(!dir.join(RECORDS_FILE).exists(), "no game was played");
}
