//! End-to-end runs of the binary's pipeline commands: a two-iteration training run per game
//! (configs/quick.yaml with the game swapped), its resumption, config errors with their
//! location, self-play datasets, evaluation matches and the benchmarks.
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn gipfzero(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gipfzero"))
        .args(args)
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .expect("the gipfzero binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gipfzero-pipeline-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn quick_config(game: &str, dir: &Path) -> PathBuf {
    let quick = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/quick.yaml")).unwrap();
    let config = quick.replace("game: dvonn", &format!("game: {game}"));
    assert_ne!(config, quick.replace("game: dvonn", "game: other"), "quick.yaml changed shape");
    let path = dir.join(format!("{game}.yaml"));
    std::fs::write(&path, config).unwrap();
    path
}

/// The iteration numbers of the run's metrics lines.
fn iterations(run: &Path) -> Vec<u64> {
    let metrics = std::fs::read_to_string(run.join("metrics.jsonl")).unwrap();
    metrics
        .lines()
        .map(|line| {
            let start = line.find("\"iteration\":").expect("an iteration field") + "\"iteration\":".len();
            let digits: String = line[start..].chars().take_while(|c| c.is_ascii_digit()).collect();
            digits.parse().unwrap()
        })
        .collect()
}

#[test]
fn two_iteration_training_runs_for_every_game_and_resume() {
    for game in ["zertz", "dvonn", "lyngk"] {
        let dir = scratch(&format!("train-{game}"));
        let config = quick_config(game, &dir);
        let run = dir.join("run");
        let output = gipfzero(&["train", config.to_str().unwrap(), "--run-dir", run.to_str().unwrap()]);
        assert!(output.status.success(), "{game}: {}", text(&output.stderr));
        assert_eq!(iterations(&run), [0, 1], "{game}");
        for file in ["config.yaml", "resume.json", "checkpoints/latest.safetensors", "checkpoints/latest.json", "plots/learning.svg"] {
            assert!(run.join(file).is_file(), "{game}: {file} missing");
        }
        // quick.yaml plays half the games against random and rollout:8: each generation's
        // league results are in its metrics line and agree with its records.
        let metrics = std::fs::read_to_string(run.join("metrics.jsonl")).unwrap();
        let mut league_games = 0;
        for (generation, line) in metrics.lines().enumerate() {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            let league = value["self_play"]["league"].as_array().unwrap_or_else(|| panic!("{game}: no league in {line}"));
            let names: Vec<&str> = league.iter().map(|entry| entry["opponent"].as_str().unwrap()).collect();
            assert_eq!(names, ["random", "rollout:8"], "{game}");
            let games: u64 = league
                .iter()
                .map(|entry| ["wins", "draws", "losses"].iter().map(|k| entry[k].as_u64().unwrap()).sum::<u64>())
                .sum();
            let records = std::fs::read_to_string(run.join(format!("shards/gen-{generation:06}/games.jsonl"))).unwrap();
            let against_opponents = records.lines().filter(|record| record.contains("\"random\"") || record.contains("\"rollout:8\"")).count();
            assert_eq!(games as usize, against_opponents, "{game} generation {generation}");
            league_games += games;
        }
        assert!(league_games > 0, "{game}: 8 games at a share of 0.5 and not one against an opponent");
        // One more iteration: resumes after the last, counts nothing twice.
        let output = gipfzero(&[
            "train",
            config.to_str().unwrap(),
            "--run-dir",
            run.to_str().unwrap(),
            "--iterations",
            "3",
        ]);
        assert!(output.status.success(), "{game} resume: {}", text(&output.stderr));
        assert_eq!(iterations(&run), [0, 1, 2], "{game} after resuming");
        // `--resume` needs only the run directory: the config comes from it.
        let output = gipfzero(&["train", "--resume", run.to_str().unwrap(), "--iterations", "4"]);
        assert!(output.status.success(), "{game} --resume: {}", text(&output.stderr));
        assert_eq!(iterations(&run), [0, 1, 2, 3], "{game} after --resume");
        let saved = std::fs::read_to_string(run.join("config.yaml")).unwrap();
        assert!(saved.contains("iterations: 4\n"), "{game}: {saved}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_run_killed_with_sigkill_resumes_to_the_same_weights() {
    // A real process killed at three moments — while the background generation writes its
    // first shards, between commits, and while SGD and self-play overlap later on — and
    // restarted each time ends with the bytes of the uninterrupted run's weights and one
    // metrics line per iteration.
    let dir = scratch("sigkill");
    let config = quick_config("dvonn", &dir);
    let train = |run: &Path| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_gipfzero"));
        command.args(["--threads", "2", "train", config.to_str().unwrap(), "--run-dir", run.to_str().unwrap(), "--iterations", "6"]);
        command.env_remove("LD_LIBRARY_PATH").stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
        command
    };
    let straight = dir.join("straight");
    assert!(train(&straight).status().unwrap().success());
    let killed = dir.join("killed");
    let kill_points: [&dyn Fn(&Path) -> bool; 3] = [
        &|run: &Path| run.join("shards/gen-000001").is_dir(),
        &|run: &Path| run.join("metrics.jsonl").is_file() && iterations(run).len() >= 2,
        &|run: &Path| run.join("shards/gen-000004").is_dir(),
    ];
    for (k, reached) in kill_points.iter().enumerate() {
        let mut child = train(&killed).spawn().unwrap();
        let began = std::time::Instant::now();
        while !reached(&killed) {
            assert!(child.try_wait().unwrap().is_none(), "the run ended before kill point {k}");
            assert!(began.elapsed() < std::time::Duration::from_secs(120), "kill point {k} never reached");
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
    }
    assert!(train(&killed).status().unwrap().success());
    assert_eq!(iterations(&killed), [0, 1, 2, 3, 4, 5]);
    let weights = |run: &Path| std::fs::read(run.join("checkpoints/latest.safetensors")).unwrap();
    assert!(weights(&killed) == weights(&straight), "the killed run ended on other weights");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn config_errors_name_file_line_and_column() {
    let dir = scratch("config-errors");
    let bad = dir.join("bad.yaml");
    std::fs::write(&bad, "game: dvonn\niterations: 2\nnetwork:\n  blokcs: 3\n").unwrap();
    let output = gipfzero(&["train", bad.to_str().unwrap(), "--print-config"]);
    assert_eq!(output.status.code(), Some(3));
    let message = text(&output.stderr);
    assert!(message.contains("bad.yaml:4:"), "no file:line in {message}");
    assert!(message.contains("blokcs"), "{message}");
    std::fs::write(&bad, "game: chess\n").unwrap();
    let output = gipfzero(&["train", bad.to_str().unwrap(), "--print-config"]);
    assert_eq!(output.status.code(), Some(3));
    assert!(text(&output.stderr).contains("bad.yaml:1:"), "{}", text(&output.stderr));
    // `--resume` takes a run directory, and the config from it.
    let output = gipfzero(&["train", "--resume", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("holds no training run (no config.yaml)"), "{}", text(&output.stderr));
    std::fs::write(dir.join("config.yaml"), "config_version: 9\n").unwrap();
    let output = gipfzero(&["train", "--resume", dir.to_str().unwrap(), "--print-config"]);
    assert_eq!(output.status.code(), Some(3));
    let message = text(&output.stderr);
    assert!(message.contains("config.yaml:1:") && message.contains("newer gipfzero"), "{message}");
    let output = gipfzero(&["train", bad.to_str().unwrap(), "--resume", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2), "a config and --resume together: {}", text(&output.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_embedded_default_config_prints_resolved() {
    let output = gipfzero(&["train", "--print-config"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let yaml = text(&output.stdout);
    assert!(yaml.contains("game: zertz") && yaml.contains("run_dir: data/runs/default"), "{yaml}");
}

#[test]
fn selfplay_writes_shards_and_records() {
    let dir = scratch("selfplay");
    let out = dir.join("data");
    let output = gipfzero(&[
        "selfplay", "lyngk", "--games", "2", "--out", out.to_str().unwrap(), "--evaluator", "uniform",
        "--simulations", "8", "--quiet",
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(out.join("shard-000000.npz").is_file());
    let records = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    assert_eq!(records.lines().count(), 2);
    // Every game against the league opponent: one colour is named after it.
    let league = dir.join("league");
    let output = gipfzero(&[
        "selfplay", "zertz", "--games", "3", "--out", league.to_str().unwrap(), "--evaluator", "uniform",
        "--simulations", "8", "--quiet", "--league", "rollout:4", "--league-share", "1",
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let records = std::fs::read_to_string(league.join("games.jsonl")).unwrap();
    for line in records.lines() {
        let record: serde_json::Value = serde_json::from_str(line).unwrap();
        let players: Vec<&str> = record["players"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
        assert!(players.contains(&"rollout:4") && players.contains(&"uniform"), "{players:?}");
    }
    assert_eq!(records.lines().count(), 3);
    let output = gipfzero(&[
        "selfplay", "zertz", "--games", "1", "--out", dir.join("bad").to_str().unwrap(), "--quiet", "--league", "rollout:x",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("league opponent rollout:x"), "{}", text(&output.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn selfplay_serves_a_checkpoint_in_the_precision_asked() {
    // The shipped blitz network plays the same games twice in f32, and other games in bf16:
    // the precision reaches the server (bf16 moves its priors, and the searches follow).
    let dir = scratch("selfplay-precision");
    let checkpoint = concat!(env!("CARGO_MANIFEST_DIR"), "/models/zertz-blitz");
    let turns = |name: &str, extra: &[&str]| {
        let out = dir.join(name);
        let mut args = vec![
            "selfplay", "zertz", "--variant", "blitz", "--games", "2", "--out", out.to_str().unwrap(), "--checkpoint",
            checkpoint, "--simulations", "16", "--seed", "5", "--device", "cpu", "--quiet",
        ];
        args.extend_from_slice(extra);
        let output = gipfzero(&args);
        assert!(output.status.success(), "{extra:?}: {}", text(&output.stderr));
        let records = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
        let mut games: Vec<(u64, serde_json::Value)> = records
            .lines()
            .map(|line| {
                let record: serde_json::Value = serde_json::from_str(line).unwrap();
                (record["game_id"].as_u64().unwrap(), record["turns"].clone())
            })
            .collect();
        games.sort_by_key(|(id, _)| *id);
        assert_eq!(games.len(), 2);
        games
    };
    let f32_games = turns("f32", &[]);
    assert_eq!(turns("f32-again", &["--precision", "f32", "--cuda-graphs"]), f32_games, "CUDA graphs are ignored on the CPU");
    assert_ne!(turns("bf16", &["--precision", "bf16"]), f32_games);
    let output = gipfzero(&["selfplay", "zertz", "--games", "1", "--out", dir.join("bad").to_str().unwrap(), "--precision", "bf16"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("--checkpoint"), "{}", text(&output.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn evaluate_reports_results_and_elo() {
    let dir = scratch("evaluate-records");
    let records = dir.join("games.jsonl");
    let output = gipfzero(&[
        "evaluate", "dvonn", "greedy", "random", "--games", "4", "--quiet", "--records", records.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let report = text(&output.stdout);
    assert!(report.contains("greedy vs random (dvonn, 4 games)"), "{report}");
    assert!(report.contains("Elo difference"), "{report}");
    assert!(report.contains("(4 games)"), "{report}");
    // Each record replays from the start through `gipfzero rules replay`.
    let lines = std::fs::read_to_string(&records).unwrap();
    assert_eq!(lines.lines().count(), 4);
    for (index, line) in lines.lines().enumerate() {
        let record: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(record["game"], index);
        assert_eq!(record["opening_turns"], 2);
        let turns: Vec<&str> = record["turns"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
        let file = dir.join(format!("game-{index}.txt"));
        std::fs::write(&file, turns.join("\n")).unwrap();
        let replayed = gipfzero(&["rules", "replay", "dvonn", file.to_str().unwrap()]);
        assert!(replayed.status.success(), "game {index}: {}", text(&replayed.stderr));
    }
    std::fs::remove_dir_all(&dir).unwrap();
    let output = gipfzero(&["evaluate", "dvonn", "greedy", "rollout:x", "--quiet"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("rollout:x"), "{}", text(&output.stderr));
    // A ladder rung's AGENT@TIME given as one of two agents: pointed at --move-time.
    let output = gipfzero(&["evaluate", "dvonn", "greedy@100ms", "random", "--quiet"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("agent \"greedy@100ms\": AGENT@TIME is a rung of --ladder") && text(&output.stderr).contains("--move-time 100ms"), "{}", text(&output.stderr));
    let output = gipfzero(&["evaluate", "dvonn", "greedy", "random", "--rollout-mix", "1.5", "--quiet"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("rollout mix 1.5 is outside [0, 1]"), "{}", text(&output.stderr));
    // Games come in colour-swapped pairs: an odd count is refused, not rounded.
    let output = gipfzero(&["evaluate", "dvonn", "greedy", "random", "--games", "3", "--quiet"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("expected an even number of games"), "{}", text(&output.stderr));
}

#[test]
fn evaluate_simulations_leave_the_baselines_as_named() {
    // `--simulations` is the checkpoints' budget: `rollout:60` plays the same games with it as
    // without it, and not those of the rollout player it would otherwise become.
    let dir = scratch("evaluate-baseline-simulations");
    let games = |agent: &str, extra: &[&str], name: &str| -> String {
        let records = dir.join(name);
        let mut args = vec!["evaluate", "zertz", agent, "random", "--games", "2", "--quiet", "--records", records.to_str().unwrap()];
        args.extend_from_slice(extra);
        let output = gipfzero(&args);
        assert!(output.status.success(), "{}", text(&output.stderr));
        std::fs::read_to_string(&records).unwrap()
    };
    let named = games("rollout:60", &[], "named.jsonl");
    assert_eq!(games("rollout:60", &["--simulations", "2"], "with-simulations.jsonl"), named);
    assert_ne!(games("rollout:2", &[], "two.jsonl"), named, "rollout:2 and rollout:60 played the same games");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn benchmarks_print_throughput() {
    let output = gipfzero(&["bench", "rules", "dvonn", "--seconds", "0.2"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("actions/s"));
    let output = gipfzero(&["bench", "mcts", "dvonn", "--simulations", "16", "--trees", "4"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("simulations/s"));
}

#[test]
fn the_gpu_check_runs_its_steps_and_prints_one_table() {
    // On the CPU with small settings: every step of scripts/gpu-check.sh runs and lands in the
    // table (on a CUDA machine the same script measures the GPU).
    let dir = scratch("gpu-check");
    let output = Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/gpu-check.sh"))
        .args([env!("CARGO_BIN_EXE_gipfzero"), dir.to_str().unwrap()])
        .env("GIPFZERO_CHECK_DEVICE", "cpu")
        .env("GIPFZERO_CHECK_QUICK", "1")
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .expect("the script runs");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let table = std::fs::read_to_string(dir.join("table.txt")).unwrap();
    assert_eq!(table, text(&output.stdout));
    for line in ["f32  bare forward    batch  512", "bf16  server 4 clients", "f32  bare forward    batch  512 x 2 replicas", "in flight 16, plain  self-play:", "in flight 16, graphs  bare forward on ", "f32  cuda graphs     batch  512:", "f32  cuda graphs     batch   50: largest difference from a plain pass 0.000e0", "train iteration 0: self-play", "train-wide iteration 0: self-play 16 games", "dvonn  self-play:", "dvonn  bare forward on "] {
        assert!(table.contains(line), "no {line:?} in\n{table}");
    }
}

#[test]
fn bench_selfplay_uses_every_worker_and_a_replica_each() {
    let output = gipfzero(&["--threads", "2", "bench", "selfplay", "dvonn", "--tiny", "--in-flight", "4", "--games", "4", "--simulations", "4", "--device", "cpu"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    // A replica per worker, up to one per core.
    let replicas = std::thread::available_parallelism().unwrap().get().min(2);
    assert!(stdout.contains(&format!("4 games, 4 simulations, 2 workers, {replicas} network replicas")), "{stdout}");
    let on = if replicas == 1 { "on 1 replica:".to_string() } else { format!("on {replicas} replicas:") };
    assert!(stdout.contains(&format!("bare forward {on}")), "{stdout}");
    // The passes the server ran, and the bare pass over passes of their sizes.
    assert!(stdout.contains("forward passes of") && stdout.contains("over passes of the sizes self-play ran"), "{stdout}");
    // The passes run on the workers' own threads unless --server-threads.
    assert!(stdout.contains("device cpu, passes on the workers' threads\n"), "{stdout}");
    // Several counts, taking turns: a line per run, the medians of their shares of the bare
    // pass, and their ratios.
    let output = gipfzero(&["bench", "selfplay", "dvonn", "--tiny", "--in-flight", "4", "--games", "4", "--simulations", "4", "--device", "cpu", "--workers", "1,2", "--rounds", "2", "--server-threads"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert_eq!(stdout.matches(", 1 workers, 1 network replicas").count(), 2, "{stdout}");
    assert_eq!(stdout.matches(", 2 workers, ").count(), 2, "{stdout}");
    assert_eq!(stdout.matches("device cpu, passes on server threads\n").count(), 4, "{stdout}");
    assert!(stdout.contains("cores busy"), "{stdout}");
    let shares = stdout.lines().find_map(|line| line.strip_prefix("self-play's share of the bare forward pass at the batch reached and over the passes run (median of 2 rounds): ")).unwrap_or_else(|| panic!("no shares in {stdout}"));
    let parts: Vec<&str> = shares.split(", ").collect();
    assert!(parts.len() == 2 && parts[0].starts_with("1 workers ") && parts[1].starts_with("2 workers ") && parts.iter().all(|part| part.matches(" % ").count() == 1 && part.ends_with(" %")), "{shares}");
    assert!(stdout.contains("positions evaluated per second against 1 workers (median of 2 rounds): 1 workers 1.00, 2 workers "), "{stdout}");
}

#[test]
fn evaluate_plays_checkpoints_and_refuses_another_games_checkpoint() {
    let dir = scratch("evaluate-checkpoint");
    let config = quick_config("dvonn", &dir);
    let run = dir.join("run");
    let output = gipfzero(&["train", config.to_str().unwrap(), "--run-dir", run.to_str().unwrap()]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let agent = format!("checkpoint:{}", run.join("checkpoints/latest").display());
    let output = gipfzero(&["evaluate", "dvonn", &agent, "random", "--games", "2", "--simulations", "4", "--quiet"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("(dvonn, 2 games)"), "{}", text(&output.stdout));
    let output =
        gipfzero(&[
            "evaluate", "dvonn", &agent, "random", "--games", "2", "--simulations", "8", "--gumbel", "--rollout-mix", "0.5",
            "--quiet",
        ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("(dvonn, 2 games)"), "{}", text(&output.stdout));
    let output = gipfzero(&["evaluate", "zertz", &agent, "random", "--games", "2", "--quiet"]);
    assert_eq!(output.status.code(), Some(4));
    let error = text(&output.stderr);
    assert!(error.contains("expected zertz") && error.contains(&format!("agent {agent:?}")), "{error}");
    // A shipped network by name: `model:NAME` in the folder GIPFZERO_MODELS names, as an agent
    // and as the start of a new run; an unknown name lists the ones there.
    let models = dir.join("models");
    let latest = run.join("checkpoints/latest");
    let output = gipfzero(&["export", latest.to_str().unwrap(), models.join("tiny").to_str().unwrap()]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let size = |path: PathBuf| std::fs::metadata(path).unwrap().len();
    assert!(size(models.join("tiny.safetensors")) < size(latest.with_extension("safetensors")), "the optimiser's state is left out");
    let with_models = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_gipfzero")).args(args).env("GIPFZERO_MODELS", &models).output().unwrap()
    };
    let output = with_models(&["evaluate", "dvonn", "model:tiny", "random", "--games", "2", "--simulations", "4", "--quiet"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).starts_with("model:tiny vs random (dvonn, 2 games)"), "{}", text(&output.stdout));
    // Equal time per turn: the network and the rollout player each size their searches to it.
    let output = with_models(&["evaluate", "dvonn", "model:tiny", "rollout:50", "--games", "2", "--move-time", "5ms", "--threads", "1", "--quiet"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).starts_with("model:tiny vs rollout:50 (dvonn, 2 games, 5 ms per turn each)"), "{}", text(&output.stdout));
    for (bad, message) in [(vec!["--move-time", "0s"], "expected a time per turn"), (vec!["--move-time", "5ms", "--simulations", "4"], "cannot be used with")] {
        let mut args = vec!["evaluate", "dvonn", "model:tiny", "random", "--quiet"];
        args.extend(bad);
        let output = with_models(&args);
        assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
        assert!(text(&output.stderr).contains(message), "{}", text(&output.stderr));
    }
    let output = with_models(&["evaluate", "dvonn", "model:huge", "random", "--games", "2", "--quiet"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("no shipped network model:huge") && text(&output.stderr).contains("there: tiny"), "{}", text(&output.stderr));
    let continued = dir.join("continued");
    let output = with_models(&["train", config.to_str().unwrap(), "--run-dir", continued.to_str().unwrap(), "--init-from", "model:tiny", "--iterations", "1"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(std::fs::read_to_string(continued.join("config.yaml")).unwrap().contains("init_from: model:tiny"));
    // A search the checkpoints cannot run is an error before the first game, in both modes.
    let checkpoints = run.join("checkpoints");
    for agents in [vec![agent.as_str(), "random"], vec!["--round-robin", checkpoints.to_str().unwrap()]] {
        let mut args = vec!["evaluate", "dvonn"];
        args.extend(agents);
        args.extend(["--games", "2", "--simulations", "0", "--quiet"]);
        let output = gipfzero(&args);
        assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
        assert!(text(&output.stderr).contains("simulations: must be at least 1"), "{}", text(&output.stderr));
    }
    // Round robin over the run's checkpoints (iter-000000, iter-000001, latest): an Elo table.
    let output = gipfzero(&[
        "evaluate", "dvonn", "--round-robin", checkpoints.to_str().unwrap(), "--games", "2", "--simulations", "4", "--quiet",
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let table = text(&output.stdout);
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows.len(), 4, "a header and three checkpoints:\n{table}");
    assert!(rows[0].contains("rank") && rows[0].contains("elo"), "{table}");
    assert!(rows[1..].iter().all(|row| row.contains("checkpoint:") && row.contains("  4  ")), "{table}");
    // A ladder: each rung against the next, rated from the first = 0, each step saved as it
    // ends; run again with the same file it plays nothing, and a longer ladder only its new step.
    let results = dir.join("ladder.jsonl");
    let ladder = |rungs: &str, quiet: bool| {
        let mut args = vec!["evaluate", "dvonn", "--ladder", rungs, "--games", "2", "--simulations", "4", "--threads", "1"];
        args.extend(["--results", results.to_str().unwrap()]);
        if quiet {
            args.push("--quiet");
        }
        with_models(&args)
    };
    let output = ladder("random,rollout:8@5ms,model:tiny", true);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let table = text(&output.stdout);
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows.len(), 6, "a title, a header, three rungs, the file:\n{table}");
    assert!(rows[0].starts_with("ladder of dvonn (2 games a step, seed 0), anchored at random = 0"), "{table}");
    assert!(rows[2].contains("random") && rows[2].contains("anchor"), "{table}");
    assert!(rows[3].contains("rollout:8@5ms") && rows[4].contains("model:tiny"), "{table}");
    let saved = std::fs::read_to_string(&results).unwrap();
    let steps: Vec<serde_json::Value> = saved.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(steps.len(), 2, "{saved}");
    for step in &steps {
        let games = ["wins", "draws", "losses"].iter().map(|k| step[k].as_u64().unwrap()).sum::<u64>();
        assert_eq!(games, 2, "{step}");
    }
    assert_eq!((steps[0]["upper"].as_str(), steps[0]["upper_ms"].as_f64()), (Some("rollout:8"), Some(5.0)), "{saved}");
    assert!(steps[0]["upper_turn_ms"].as_f64().is_some() && steps[0]["lower_turn_ms"].is_null(), "only timed rungs are timed: {saved}");
    let output = ladder("random,rollout:8@5ms,model:tiny", false);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout).matches("(saved)").count(), 2, "{}", text(&output.stdout));
    assert_eq!(std::fs::read_to_string(&results).unwrap(), saved, "nothing was played again");
    let output = ladder("random,rollout:8@5ms,model:tiny,greedy", false);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout).matches("(saved)").count(), 2, "{}", text(&output.stdout));
    assert_eq!(std::fs::read_to_string(&results).unwrap().lines().count(), 3);
    for (rungs, message) in [
        ("random,rollout:8@fast", "--ladder rung \"rollout:8@fast\": expected a time per turn"),
        ("random,nobody", "--ladder rung \"nobody\""),
        ("random", "at least two rungs"),
    ] {
        let output = ladder(rungs, true);
        assert_eq!(output.status.code(), Some(1), "{rungs}: {}", text(&output.stderr));
        assert!(text(&output.stderr).contains(message), "{rungs}: {}", text(&output.stderr));
    }
    std::fs::write(&results, "{\"game\": 1}\n").unwrap();
    let output = ladder("random,greedy", true);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("ladder.jsonl:1: not a ladder step"), "{}", text(&output.stderr));
    // The run's numbered checkpoints rated against one opponent: a table, a file, a chart.
    let output = gipfzero(&["evaluate", "dvonn", "--run", run.to_str().unwrap(), "random", "--games", "2", "--simulations", "4", "--quiet"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let table = text(&output.stdout);
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows.len(), 4, "a header, iterations 0 and 1, the files:\n{table}");
    assert!(rows[0].contains("iteration") && rows[0].contains("CPU min"), "{table}");
    assert!(rows[1].trim_start().starts_with("0 ") && rows[2].trim_start().starts_with("1 "), "{table}");
    let ratings = std::fs::read_to_string(run.join("ratings-random-s4.jsonl")).unwrap();
    assert_eq!(ratings.lines().count(), 2, "{ratings}");
    assert!(ratings.lines().all(|line| line.contains("\"opponent\":\"random\"") && line.contains("\"cpu_s\":")), "{ratings}");
    assert!(run.join("plots/ratings-random-s4.svg").is_file());
    // It takes one agent, and a directory without checkpoints is an error that names it.
    let output = gipfzero(&["evaluate", "dvonn", "--run", run.to_str().unwrap(), "random", "greedy", "--quiet"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    let output = gipfzero(&["evaluate", "dvonn", "--run", dir.to_str().unwrap(), "random", "--quiet"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains(&dir.join("checkpoints").display().to_string()), "{}", text(&output.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_shipped_network_plays_its_game_and_has_a_card() {
    // models/: each network's sidecar names its game and board; the network plays that game
    // as model:NAME, has its card, and is in the folder's table.
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let table = std::fs::read_to_string(models.join("README.md")).unwrap();
    let mut seen = Vec::new();
    for entry in std::fs::read_dir(&models).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|ext| ext != "json") {
            continue;
        }
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let sidecar: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let (game, variant) = (sidecar["game"].as_str().unwrap(), sidecar["variant"].as_str().unwrap());
        let card = std::fs::read_to_string(models.join(format!("{name}.md"))).unwrap_or_default();
        assert!(card.starts_with(&format!("# model:{name}\n")), "{name}: no card models/{name}.md");
        assert!(table.contains(&format!("[`{name}`]({name}.md)")), "{name}: not in models/README.md");
        let agent = format!("model:{name}");
        let mut args = vec!["evaluate", game, agent.as_str(), "random", "--games", "2", "--simulations", "2", "--quiet"];
        if game == "zertz" {
            args.extend(["--variant", variant]);
        }
        let output = gipfzero(&args);
        assert!(output.status.success(), "{name}: {}", text(&output.stderr));
        assert!(text(&output.stdout).starts_with(&format!("{agent} vs random ({game}, 2 games)")), "{}", text(&output.stdout));
        seen.push(name);
    }
    assert!(seen.len() >= 5, "{seen:?}");
}
