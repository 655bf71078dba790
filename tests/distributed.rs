//! A run at a URL with real processes: a `gipfzero train --run URL` trainer and `gipfzero
//! worker URL` workers sharing a folder (`file://`) and a real S3-compatible server (moto's,
//! started on 127.0.0.1 by `scripts/s3-server.sh`), one worker and the trainer killed with
//! SIGKILL mid-run and restarted (the trainer in another working directory, as on another
//! machine). Afterwards every shard a generation took was taken by that generation alone and
//! is there whole, the planted foreign and corrupt objects were rejected once, naming them,
//! the networks advanced and the metrics hold each iteration once. An evaluation worker then
//! rates each checkpoint once. And bad input: a missing bucket, an unreachable endpoint,
//! wrong credentials, no run at the URL, a working directory that is not the trainer's, a
//! config that is not one; and the distributed benchmark's table.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use gipfzero_store::object::{Options, RunLocation, RunStore};

#[path = "../store/tests/support/s3_server.rs"]
mod s3_server;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gipfzero-distributed-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// configs/quick.yaml over four iterations, uploads of two games, quick polling.
fn tiny_config(dir: &Path) -> PathBuf {
    let quick = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/quick.yaml")).unwrap();
    let config = quick.replace("iterations: 2", "iterations: 4");
    assert_ne!(config, quick, "quick.yaml changed shape");
    let path = dir.join("tiny.yaml");
    std::fs::write(&path, format!("{config}\ndistributed: {{ games_per_shard: 2, poll_ms: 100 }}\n")).unwrap();
    path
}

/// A `gipfzero` command with `environment` (and no developer's AWS settings).
fn gipfzero(args: &[&str], environment: &[(String, String)], log: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gipfzero"));
    command.args(args).env_remove("LD_LIBRARY_PATH");
    for (name, _) in std::env::vars() {
        if name.starts_with("AWS_") {
            command.env_remove(name);
        }
    }
    command.envs(environment.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let log = std::fs::File::create(log).unwrap();
    command.stdout(Stdio::null()).stderr(log);
    command
}

fn s3_environment(endpoint: &str, key_id: &str, secret: &str) -> Vec<(String, String)> {
    vec![
        ("AWS_ENDPOINT_URL".into(), endpoint.into()),
        ("AWS_ALLOW_HTTP".into(), "true".into()),
        ("AWS_ACCESS_KEY_ID".into(), key_id.into()),
        ("AWS_SECRET_ACCESS_KEY".into(), secret.into()),
        ("AWS_DEFAULT_REGION".into(), "us-east-1".into()),
    ]
}

fn open(url: &str, environment: &[(String, String)]) -> RunStore {
    let options = Options { environment: Some(environment.to_vec()), ..Options::default() };
    RunStore::open_location(RunLocation::parse(url).unwrap(), options).unwrap()
}

fn json(store: &RunStore, key: &str) -> Option<serde_json::Value> {
    match store.get(key) {
        Ok(bytes) => Some(serde_json::from_slice(&bytes).unwrap()),
        Err(error) if error.is_not_found() => None,
        Err(error) => panic!("{error}"),
    }
}

fn committed(store: &RunStore) -> u64 {
    json(store, "resume.json").map_or(0, |state| state["iteration"].as_u64().unwrap())
}

fn wait_until(what: &str, children: &mut [&mut Child], mut done: impl FnMut() -> bool) {
    let began = Instant::now();
    while !done() {
        for child in children.iter_mut() {
            assert!(child.try_wait().unwrap().is_none(), "a process ended before {what}");
        }
        assert!(began.elapsed() < Duration::from_secs(300), "{what}: not within 300 s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn wait_for_exit(child: &mut Child, name: &str, log: &Path) {
    let began = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let text = std::fs::read_to_string(log).unwrap_or_default();
            assert!(status.success(), "{name} failed: {status}\n{text}");
            return;
        }
        assert!(began.elapsed() < Duration::from_secs(300), "{name} did not end within 300 s");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The whole scenario at `url` (see the file's docs).
fn trainer_and_workers_survive_sigkill(url: &str, environment: &[(String, String)], dir: &Path) {
    let store = open(url, environment);
    // A foreign object and a corrupt shard under shards/, before anything runs.
    let corrupt = "shards/w-000000-00000000000000ff-000000.npz";
    store.put(corrupt, b"PK\x03\x04 torn".to_vec()).unwrap();
    store.put("shards/notes.txt", b"not a shard".to_vec()).unwrap();

    let config = tiny_config(dir);
    let config = config.to_str().unwrap();
    let work = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let trainer_args = |work_dir: &str| -> Vec<String> {
        ["--threads", "1", "train", config, "--run", url, "--work-dir", work_dir].iter().map(|s| s.to_string()).collect()
    };
    let worker_args = |name: &str| -> Vec<String> {
        ["worker", url, "--workers", "1", "--work-dir", &work(name)].iter().map(|s| s.to_string()).collect()
    };
    let run = |args: Vec<String>, log: &str| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        gipfzero(&args, environment, &dir.join(log)).spawn().unwrap()
    };
    let mut trainer = run(trainer_args(&work("trainer-a")), "trainer-a.log");
    let mut worker_a = run(worker_args("worker-a"), "worker-a.log");
    let mut worker_b = run(worker_args("worker-b"), "worker-b.log");

    // Kill worker A and the trainer once the first iteration is committed (the trainer is
    // then gathering or training the next), then start the trainer again elsewhere.
    wait_until("the first commit", &mut [&mut trainer, &mut worker_a, &mut worker_b], || committed(&store) >= 1);
    worker_a.kill().unwrap(); // SIGKILL
    trainer.kill().unwrap();
    worker_a.wait().unwrap();
    trainer.wait().unwrap();
    let at_kill = committed(&store);
    assert!(at_kill < 4, "the run finished before the kill");

    let mut trainer = run(trainer_args(&work("trainer-b")), "trainer-b.log");
    let mut worker_c = run(worker_args("worker-c"), "worker-c.log");
    wait_for_exit(&mut trainer, "the restarted trainer", &dir.join("trainer-b.log"));
    wait_for_exit(&mut worker_b, "worker B", &dir.join("worker-b.log"));
    wait_for_exit(&mut worker_c, "worker C", &dir.join("worker-c.log"));

    // The commit point, the metrics, the networks.
    assert_eq!(committed(&store), 4);
    let metrics = String::from_utf8(store.get("metrics.jsonl").unwrap()).unwrap();
    let iterations: Vec<u64> = metrics
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()["iteration"].as_u64().unwrap())
        .collect();
    assert_eq!(iterations, [0, 1, 2, 3]);
    let objects: BTreeMap<String, u64> = store.list("").unwrap().into_iter().map(|o| (o.key, o.size)).collect();
    for iteration in 0..4 {
        assert!(objects.contains_key(&format!("checkpoints/iter-{iteration:06}.safetensors")), "checkpoint {iteration}");
    }
    let player = json(&store, "player.json").unwrap();
    assert!(player["generation"].as_u64().unwrap() >= 3, "the workers' network did not advance: {player}");
    let steps: Vec<u64> = metrics
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()["step"].as_u64().unwrap())
        .collect();
    assert!(steps.windows(2).all(|w| w[0] < w[1]), "the network did not train every iteration: {steps:?}");

    // Every shard a generation took: taken by that generation alone, there, whole (a worker
    // uploads each under a fresh name, create-only), and each planted object rejected once.
    let mut taken = BTreeSet::new();
    let mut rejected = BTreeMap::new();
    for generation in 0..4 {
        let record = json(&store, &format!("generations/{generation:06}.json")).expect("a record per generation");
        let mut games = 0;
        for shard in record["shards"].as_array().unwrap() {
            let key = shard["key"].as_str().unwrap().to_string();
            assert!(objects.contains_key(&key), "{key} was consumed but is not there");
            assert!(objects.contains_key(&key.replace(".npz", ".jsonl")), "{key} came without its records");
            assert!(shard["positions"].as_u64().unwrap() > 0);
            games += shard["games"].as_u64().unwrap();
            assert!(taken.insert(key.clone()), "{key} was consumed twice");
        }
        assert!(games >= 4, "generation {generation} trained on {games} games, fewer than self_play.games");
        for object in record["rejected"].as_array().unwrap() {
            let key = object["key"].as_str().unwrap().to_string();
            let reason = object["reason"].as_str().unwrap().to_string();
            assert!(rejected.insert(key.clone(), reason).is_none(), "{key} was rejected twice");
        }
    }
    // The planted objects, and nothing else but shards a lagging worker played with a network
    // too old (possible on a loaded machine).
    assert!(rejected.contains_key(corrupt) && rejected.contains_key("shards/notes.txt"), "{rejected:?}");
    for (key, reason) in &rejected {
        assert!(key == corrupt || key == "shards/notes.txt" || reason.starts_with("stale"), "{key}: {reason}");
    }
    assert!(rejected[corrupt].contains("not a readable shard"), "{rejected:?}");
    assert!(rejected["shards/notes.txt"].contains("not a shard's name"), "{rejected:?}");
    let logs = ["trainer-a.log", "trainer-b.log"].map(|log| std::fs::read_to_string(dir.join(log)).unwrap()).join("");
    // Named as the store names its objects (a folder by its path).
    let corrupt_url = format!("{}/{corrupt}", store.url().trim_end_matches('/'));
    assert!(logs.contains(&format!("{corrupt_url}: rejected")), "the corrupt shard was not named:\n{logs}");
    // Nothing else was left unread or half-written: every other object under shards/ is a
    // worker's upload, each `.npz` with its records beside it; only the worker killed may
    // have left the records of a round without its `.npz` (uploaded first, never consumed).
    let mut orphans = Vec::new();
    for key in objects.keys().filter(|key| key.starts_with("shards/") && !rejected.contains_key(*key)) {
        let stem = key.trim_end_matches(".npz").trim_end_matches(".jsonl");
        assert!(stem.starts_with("shards/w-"), "{key}");
        assert!(objects.contains_key(&format!("{stem}.jsonl")), "{key} without its records");
        if !objects.contains_key(&format!("{stem}.npz")) {
            orphans.push(key.clone());
        }
    }
    assert!(orphans.len() <= 1, "records without their shard: {orphans:?}");
}

/// An evaluation worker on the finished run at `url` rates each numbered checkpoint once,
/// beside the run; a second one finds nothing left to rate.
fn an_evaluation_worker_rates_each_checkpoint_once(url: &str, environment: &[(String, String)], dir: &Path) {
    let store = open(url, environment);
    for (round, expected) in [(0, 4), (1, 0)] {
        let log = dir.join(format!("evaluator-{round}.log"));
        let work_dir = dir.join(format!("evaluator-{round}"));
        let status = gipfzero(&["worker", url, "--evaluate", "--workers", "1", "--work-dir", work_dir.to_str().unwrap()], environment, &log)
            .status()
            .unwrap();
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(status.success(), "{text}");
        assert!(text.contains(&format!("rated {expected} checkpoints")), "{text}");
    }
    for iteration in 0..4 {
        let record = json(&store, &format!("evaluations/iter-{iteration:06}.json")).expect("a rating per checkpoint");
        assert_eq!(record["iteration"].as_u64(), Some(iteration));
        let opponents: Vec<&str> = record["results"].as_array().unwrap().iter().map(|r| r["opponent"].as_str().unwrap()).collect();
        let skipped: Vec<&str> = record["skipped"].as_array().unwrap().iter().map(|r| r["key"].as_str().unwrap()).collect();
        // quick.yaml's opponents: random, and previous (which the first checkpoint lacks).
        if iteration == 0 {
            assert_eq!((opponents, skipped), (vec!["random"], vec!["previous"]));
        } else {
            assert_eq!((opponents, skipped), (vec!["random", "previous"], vec![]));
        }
        for result in record["results"].as_array().unwrap() {
            let games = ["wins", "draws", "losses"].iter().map(|k| result[k].as_u64().unwrap()).sum::<u64>();
            assert_eq!(games, 2, "{result}");
        }
    }
}

#[test]
fn a_trainer_and_two_workers_share_a_folder_and_survive_sigkill() {
    let dir = scratch("folder");
    let url = format!("file://{}", dir.join("run").display());
    trainer_and_workers_survive_sigkill(&url, &[], &dir);
    an_evaluation_worker_rates_each_checkpoint_once(&url, &[], &dir);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_trainer_and_two_workers_share_an_s3_bucket_and_survive_sigkill() {
    let server = s3_server::server();
    let environment = s3_environment(&server.endpoint, &server.access_key_id, &server.secret_access_key);
    let dir = scratch("s3");
    let url = format!("s3://{}/runs/{}", s3_server::BUCKET, std::process::id());
    trainer_and_workers_survive_sigkill(&url, &environment, &dir);
    an_evaluation_worker_rates_each_checkpoint_once(&url, &environment, &dir);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_named_and_loses_nothing() {
    let server = s3_server::server();
    let good = s3_environment(&server.endpoint, &server.access_key_id, &server.secret_access_key);
    let dir = scratch("bad-input");
    let config = tiny_config(&dir);
    let output = |args: &[&str], environment: &[(String, String)], log: &str| {
        let status = gipfzero(args, environment, &dir.join(log)).status().unwrap();
        (status, std::fs::read_to_string(dir.join(log)).unwrap())
    };

    // A bucket that does not exist: the worker stops at once, naming the URL.
    let (status, text) = output(&["worker", "s3://no-such-bucket/run"], &good, "missing-bucket.log");
    assert!(!status.success());
    assert!(text.contains("s3://no-such-bucket/run"), "{text}");

    // An endpoint nobody listens on: refused within seconds (the retries), naming the URL.
    let closed = s3_environment("http://127.0.0.1:9", &server.access_key_id, &server.secret_access_key);
    let began = Instant::now();
    let (status, text) = output(&["worker", "s3://gipfzero-test/unreachable"], &closed, "unreachable.log");
    assert!(!status.success());
    assert!(text.contains("s3://gipfzero-test/unreachable") && text.contains("Connection refused"), "{text}");
    assert!(began.elapsed() < Duration::from_secs(60), "it took {:?}", began.elapsed());

    // A wrong secret: refused, the URL named, the secret never printed.
    let wrong = s3_environment(&server.endpoint, &server.access_key_id, "a-wrong-secret-value");
    let url = format!("s3://{}/bad-input", s3_server::BUCKET);
    let (status, text) = output(&["worker", &url], &wrong, "wrong-secret.log");
    assert!(!status.success());
    assert!(text.contains(&url) && !text.contains("a-wrong-secret-value"), "{text}");

    // No run at the URL: the trainer needs a config to start one.
    let (status, text) = output(&["train", "--run", &url], &good, "no-run.log");
    assert!(!status.success());
    assert!(text.contains(&format!("{url} holds no training run")), "{text}");

    // A working directory holding someone's files is refused and left as it was.
    let precious = dir.join("precious");
    std::fs::create_dir_all(&precious).unwrap();
    std::fs::write(precious.join("thesis.tex"), "years of work").unwrap();
    let folder_url = format!("file://{}", dir.join("run").display());
    let args = ["train", config.to_str().unwrap(), "--run", &folder_url, "--work-dir", precious.to_str().unwrap()];
    let (status, text) = output(&args, &[], "precious.log");
    assert!(!status.success());
    assert!(text.contains("is not a trainer's working directory"), "{text}");
    assert_eq!(std::fs::read_to_string(precious.join("thesis.tex")).unwrap(), "years of work");

    // Another config for a run that exists: refused, naming the run and the keys.
    let other = dir.join("other.yaml");
    std::fs::write(&other, format!("{}\nseed: 2\n", std::fs::read_to_string(&config).unwrap())).unwrap();
    let finished_url = format!("file://{}", dir.join("finished").display());
    let finished = open(&finished_url, &[]);
    let resolved = Command::new(env!("CARGO_BIN_EXE_gipfzero")).args(["train", config.to_str().unwrap(), "--print-config"]).output().unwrap();
    assert!(resolved.status.success());
    finished.put("config.yaml", resolved.stdout).unwrap();
    let work_dir = dir.join("work-other");
    let args = ["train", other.to_str().unwrap(), "--run", &finished_url, "--work-dir", work_dir.to_str().unwrap()];
    let (status, text) = output(&args, &[], "other-config.log");
    assert!(!status.success());
    assert!(text.contains(&format!("{}/config.yaml holds a run with another configuration (it differs in seed (run: 1, config: 2))", finished.url())), "{text}");

    // A config.yaml under the run that is not a config: named with its URL, line and column.
    let store = open(&folder_url, &[]);
    store.put("config.yaml", b"game: [not, a, game]\n".to_vec()).unwrap();
    let (status, text) = output(&["worker", &folder_url], &[], "bad-config.log");
    assert!(!status.success());
    assert!(text.contains(&format!("{}/config.yaml:1:", store.url())), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_second_trainer_on_one_run_is_stopped() {
    // Two trainers started on one run by mistake: whichever commits second over the other's
    // commit stops, naming the run's commit point; the other finishes the run.
    let dir = scratch("two-trainers");
    let url = format!("file://{}", dir.join("run").display());
    let config = tiny_config(&dir);
    let run = |args: &[&str], log: &str| gipfzero(args, &[], &dir.join(log)).spawn().unwrap();
    let trainer = |work: &str, log: &str| {
        let work_dir = dir.join(work);
        // Eight iterations: the first trainer cannot finish before the second commits.
        run(&["train", config.to_str().unwrap(), "--run", &url, "--work-dir", work_dir.to_str().unwrap(), "--iterations", "8"], log)
    };
    let store = open(&url, &[]);
    let mut first = trainer("trainer-a", "trainer-a.log");
    let worker_dir = dir.join("worker");
    let mut worker = run(&["worker", &url, "--workers", "1", "--work-dir", worker_dir.to_str().unwrap()], "worker.log");
    wait_until("the first commit", &mut [&mut first, &mut worker], || committed(&store) >= 1);
    let mut second = trainer("trainer-b", "trainer-b.log");
    let statuses = [first.wait().unwrap(), second.wait().unwrap()];
    let logs = ["trainer-a.log", "trainer-b.log"].map(|log| std::fs::read_to_string(dir.join(log)).unwrap());
    let stopped: Vec<usize> = (0..2).filter(|&k| !statuses[k].success()).collect();
    assert_eq!(stopped.len(), 1, "{statuses:?}\n{}\n{}", logs[0], logs[1]);
    let message = format!("{}/resume.json was written by another trainer", store.url());
    assert!(logs[stopped[0]].contains(&message), "{}", logs[stopped[0]]);
    assert_eq!(committed(&store), 8, "the other trainer did not finish the run");
    wait_for_exit(&mut worker, "the worker", &dir.join("worker.log"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_distributed_benchmark_compares_both_runs_and_counts_requests() {
    let dir = scratch("bench");
    let config = tiny_config(&dir);
    let log = dir.join("bench.log");
    let output = gipfzero(
        &["bench", "distributed", "--config", config.to_str().unwrap(), "--iterations", "2", "--workers", "1", "--dir", dir.join("runs").to_str().unwrap()],
        &[],
        &log,
    )
    .stdout(Stdio::piped())
    .output()
    .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "{text}{}", std::fs::read_to_string(&log).unwrap());
    let row = |name: &str| -> Vec<f64> {
        let line = text.lines().find(|line| line.starts_with(name)).unwrap_or_else(|| panic!("no {name} row:\n{text}"));
        line[name.len()..].split_whitespace().filter_map(|word| word.parse().ok()).collect()
    };
    // wall s, positions, positions/s: both runs trained on positions, at a rate.
    for name in ["in one process", "trainer + 1 workers at file"] {
        let figures = row(name);
        assert_eq!(figures.len(), 3, "{name}: {text}");
        assert!(figures[1] > 0.0 && (figures[2] / (figures[1] / figures[0]) - 1.0).abs() < 0.1, "{name}: {text}");
    }
    // The trainer wrote (its mirror and players) and listed; the workers read and wrote.
    let trainer = row("trainer   ");
    let workers = row("workers   ");
    assert!(trainer[0] > 0.0 && trainer[2] > 0.0 && trainer[4] > 0.0, "{text}");
    assert!(workers[0] > 0.0 && workers[1] > 0.0 && workers[5] > 0.0, "{text}");
    assert!(text.contains("ratio (at a URL / in one process): "), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}
