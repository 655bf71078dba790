//! The object-store API against real stores: local folders (`file://` and plain paths) and a
//! real S3-compatible server (moto's) that these tests start on 127.0.0.1 through
//! `scripts/s3-server.sh`, which installs it into a per-user venv when it is missing. If it
//! cannot be installed or started the S3 tests fail, saying why; they never skip.
//!
//! The server checks credentials (moto's IAM mode): the tests use the access key it creates,
//! and a wrong secret or an unknown key id is refused. One server serves every test of this
//! file (each test under its own prefix); it stops when this test process ends, since it
//! watches its standard input, a pipe from here.
#![cfg(feature = "object")]
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Barrier;
use std::thread;
use std::time::{Duration, Instant};

use gipfzero_store::object::{ObjectError, ObjectInfo, Options, RunLocation, RunStore, Traffic};

#[path = "support/s3_server.rs"]
mod s3_server;
use s3_server::{server, BUCKET};

/// Short limits: a failing test fails in seconds instead of retrying for minutes.
fn options(environment: Vec<(String, String)>) -> Options {
    Options {
        environment: Some(environment),
        operation_timeout: Duration::from_secs(30),
        retry_timeout: Duration::from_secs(2),
        connect_timeout: Duration::from_secs(2),
    }
}

fn s3_environment(endpoint: &str, key_id: &str, secret: &str) -> Vec<(String, String)> {
    [
        ("AWS_ENDPOINT_URL", endpoint),
        ("AWS_ALLOW_HTTP", "true"),
        ("AWS_ACCESS_KEY_ID", key_id),
        ("AWS_SECRET_ACCESS_KEY", secret),
        ("AWS_DEFAULT_REGION", "us-east-1"),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_string(), value.to_string()))
    .collect()
}

fn s3_store(prefix: &str) -> RunStore {
    let server = server();
    let url = format!("s3://{BUCKET}/{prefix}-{}", std::process::id());
    let environment = s3_environment(&server.endpoint, &server.access_key_id, &server.secret_access_key);
    RunStore::open_location(RunLocation::parse(&url).unwrap(), options(environment)).unwrap()
}

fn local_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gipfzero-object-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn local_store(dir: &std::path::Path, as_url: bool) -> RunStore {
    let location = if as_url { format!("file://{}", dir.display()) } else { dir.display().to_string() };
    RunStore::open_location(RunLocation::parse(&location).unwrap(), options(Vec::new())).unwrap()
}

fn keys(objects: &[ObjectInfo]) -> Vec<&str> {
    objects.iter().map(|object| object.key.as_str()).collect()
}

/// Create-only, replace, read, list and delete, with their errors.
fn round_trips(store: &RunStore) {
    assert_eq!(store.list("").unwrap(), []);
    store.put_create_only("games/0001-a.npz", b"first shard".to_vec()).unwrap();
    let error = store.put_create_only("games/0001-a.npz", b"an impostor".to_vec()).unwrap_err();
    assert!(error.is_already_exists(), "{error}");
    let text = error.to_string();
    assert!(text.contains(store.url()) && text.contains("games/0001-a.npz"), "{text}");
    assert_eq!(store.get("games/0001-a.npz").unwrap(), b"first shard");

    store.put_create_only("games/0002-b.npz", vec![7u8; 100_000]).unwrap();
    store.put("manifest.json", b"{\"generation\": 1}".to_vec()).unwrap();
    store.put("manifest.json", b"{\"generation\": 2, \"longer\": true}".to_vec()).unwrap();
    assert_eq!(store.get("manifest.json").unwrap(), b"{\"generation\": 2, \"longer\": true}");
    assert_eq!(store.get("games/0002-b.npz").unwrap(), vec![7u8; 100_000]);

    let all = store.list("").unwrap();
    assert_eq!(keys(&all), ["games/0001-a.npz", "games/0002-b.npz", "manifest.json"]);
    assert_eq!(all.iter().map(|object| object.size).collect::<Vec<_>>(), [11, 100_000, 33]);
    assert_eq!(keys(&store.list("games").unwrap()), ["games/0001-a.npz", "games/0002-b.npz"]);
    assert_eq!(store.list("networks").unwrap(), []);

    store.delete("games/0001-a.npz").unwrap();
    store.delete("games/0001-a.npz").unwrap();
    let error = store.get("games/0001-a.npz").unwrap_err();
    assert!(error.is_not_found(), "{error}");
    assert!(error.to_string().contains(&format!("{}/games/0001-a.npz", store.url())), "{error}");
    assert_eq!(keys(&store.list("").unwrap()), ["games/0002-b.npz", "manifest.json"]);
    // Once deleted, a key can be created again.
    store.put_create_only("games/0001-a.npz", b"again".to_vec()).unwrap();
    assert_eq!(store.get("games/0001-a.npz").unwrap(), b"again");

    let error = store.put("../escape", b"x".to_vec()).unwrap_err();
    assert!(matches!(error, ObjectError::InvalidKey { .. }), "{error}");
}

/// Eight threads create the same key at once, each with its own bytes: exactly one wins and
/// the object holds the winner's bytes. Run against local folders only: moto checks
/// `If-None-Match: *` and then writes, two steps that concurrent requests can interleave, so
/// against it this would test moto (real S3 documents the conditional write as atomic).
/// Against S3, [`round_trips`] checks the create-only semantics one request at a time.
fn create_only_race(open: impl Fn() -> RunStore + Sync) {
    const RACERS: usize = 8;
    let barrier = Barrier::new(RACERS);
    let winners: Vec<usize> = thread::scope(|scope| {
        let handles: Vec<_> = (0..RACERS)
            .map(|racer| {
                let store = open();
                let barrier = &barrier;
                scope.spawn(move || {
                    barrier.wait();
                    match store.put_create_only("games/race.npz", format!("racer {racer}").into_bytes()) {
                        Ok(()) => Some(racer),
                        Err(error) if error.is_already_exists() => None,
                        Err(error) => panic!("racer {racer}: {error}"),
                    }
                })
            })
            .collect();
        handles.into_iter().filter_map(|handle| handle.join().unwrap()).collect()
    });
    assert_eq!(winners.len(), 1, "winners: {winners:?}");
    assert_eq!(open().get("games/race.npz").unwrap(), format!("racer {}", winners[0]).into_bytes());
}

/// A manifest version: a header naming its number and length, then that many bytes of one
/// value, so a reader can tell a whole version from a mix of two.
fn manifest(version: usize) -> Vec<u8> {
    let length = 1_000 + (version * 7_919) % 200_000;
    let mut bytes = format!("version={version} length={length}\n").into_bytes();
    bytes.extend(std::iter::repeat_n((version % 251) as u8, length));
    bytes
}

fn check_manifest(bytes: &[u8]) -> usize {
    let newline = bytes.iter().position(|&byte| byte == b'\n').expect("a header line");
    let header = std::str::from_utf8(&bytes[..newline]).unwrap();
    let (version, length) = header.strip_prefix("version=").unwrap().split_once(" length=").unwrap();
    let (version, length): (usize, usize) = (version.parse().unwrap(), length.parse().unwrap());
    let body = &bytes[newline + 1..];
    assert_eq!(body.len(), length, "version {version}: a partial object");
    assert!(body.iter().all(|&byte| byte == (version % 251) as u8), "version {version}: a mixed object");
    version
}

/// One writer replaces the manifest again and again while readers (each with its own store,
/// as other machines would) read it: every read is one whole version, never going back.
fn manifest_replaced_while_read(open: impl Fn() -> RunStore + Sync) {
    const VERSIONS: usize = 30;
    let writer = open();
    writer.put("manifest.json", manifest(0)).unwrap();
    let written = AtomicUsize::new(0);
    let reads = AtomicUsize::new(0);
    // Readers stop by themselves if the writer fails (a panic in it would otherwise leave
    // them waiting for the last version, and the scope waiting for them).
    let deadline = Instant::now() + Duration::from_secs(120);
    thread::scope(|scope| {
        for _ in 0..3 {
            let reader = open();
            let (written, reads) = (&written, &reads);
            scope.spawn(move || {
                let mut last = 0;
                loop {
                    let done = written.load(Ordering::SeqCst) == VERSIONS;
                    let version = check_manifest(&reader.get("manifest.json").unwrap());
                    assert!(version >= last, "read version {version} after {last}");
                    last = version;
                    reads.fetch_add(1, Ordering::SeqCst);
                    if done || Instant::now() > deadline {
                        break;
                    }
                }
            });
        }
        for version in 1..=VERSIONS {
            writer.put("manifest.json", manifest(version)).unwrap();
            written.store(version, Ordering::SeqCst);
        }
    });
    assert_eq!(check_manifest(&writer.get("manifest.json").unwrap()), VERSIONS);
    assert!(reads.load(Ordering::SeqCst) >= 3 * 2, "too few reads to mean anything");
}

#[test]
fn traffic_counts_requests_and_bytes_and_reads_back() {
    let dir = local_dir("traffic");
    let store = local_store(&dir, false);
    assert_eq!(store.traffic(), Traffic::default(), "opening is not counted");
    store.put("a/one", b"12345".to_vec()).unwrap();
    store.put_create_only("a/two", b"123".to_vec()).unwrap();
    assert!(store.put_create_only("a/two", b"x".to_vec()).is_err());
    assert_eq!(store.get("a/one").unwrap(), b"12345");
    assert!(store.get("a/missing").is_err());
    assert_eq!(store.list("a").unwrap().len(), 2);
    store.delete("a/one").unwrap();
    let traffic = store.traffic();
    // Requests count whether or not they succeed; a put sends its bytes either way, a get
    // reads only what it found.
    let expected = Traffic { puts: 3, gets: 2, lists: 1, deletes: 1, bytes_written: 9, bytes_read: 5 };
    assert_eq!(traffic, expected);
    assert_eq!(traffic.to_string().parse::<Traffic>(), Ok(expected));
    assert_eq!(expected + expected, Traffic { puts: 6, gets: 4, lists: 2, deletes: 2, bytes_written: 18, bytes_read: 10 });
    assert!("puts=1 bogus=2".parse::<Traffic>().unwrap_err().contains("bogus"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn local_folders_round_trip() {
    for as_url in [false, true] {
        let dir = local_dir(if as_url { "url" } else { "path" });
        let store = local_store(&dir, as_url);
        assert_eq!(store.url(), dir.display().to_string());
        round_trips(&store);
        // The objects are plain files of the folder, as a local run's other files are.
        assert_eq!(std::fs::read(dir.join("games/0001-a.npz")).unwrap(), b"again");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn local_folders_create_only_race() {
    let dir = local_dir("race");
    create_only_race(|| local_store(&dir, true));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn local_folders_never_show_a_partial_manifest() {
    let dir = local_dir("manifest");
    manifest_replaced_while_read(|| local_store(&dir, false));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_foreign_file_in_a_local_run_is_listed_not_hidden() {
    let dir = local_dir("foreign");
    let store = local_store(&dir, false);
    std::fs::create_dir_all(dir.join("games")).unwrap();
    std::fs::write(dir.join("games/notes by hand.txt"), b"mine").unwrap();
    assert_eq!(keys(&store.list("games").unwrap()), ["games/notes by hand.txt"]);
    // gipfzero never writes such a name.
    let error = store.put("games/notes by hand.txt", b"x".to_vec()).unwrap_err();
    assert!(matches!(error, ObjectError::InvalidKey { .. }), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn s3_round_trips() {
    round_trips(&s3_store("round-trips"));
}

#[test]
fn s3_never_shows_a_partial_manifest() {
    manifest_replaced_while_read(|| s3_store("manifest"));
}

#[test]
fn s3_missing_bucket_is_named() {
    let server = server();
    let url = "s3://gipfzero-no-such-bucket/run";
    let environment = s3_environment(&server.endpoint, &server.access_key_id, &server.secret_access_key);
    let error = RunStore::open_location(RunLocation::parse(url).unwrap(), options(environment)).unwrap_err();
    eprintln!("{error}");
    assert!(matches!(error, ObjectError::MissingBucket { .. }), "{error}");
    assert!(error.to_string().contains(url), "{error}");
}

#[test]
fn s3_wrong_credentials_are_refused_and_never_printed() {
    let server = server();
    let url = format!("s3://{BUCKET}/credentials");
    let wrong_secret = "wrong-secret-0123456789abcdef";
    for key_id in [server.access_key_id.as_str(), "AKIAUNKNOWNKEY000000"] {
        let environment = s3_environment(&server.endpoint, key_id, wrong_secret);
        let error = RunStore::open_location(RunLocation::parse(&url).unwrap(), options(environment)).unwrap_err();
        let text = error.to_string();
        eprintln!("{text}");
        assert!(matches!(error, ObjectError::Credentials { .. }), "{text}");
        assert!(text.contains(&url), "{text}");
        assert!(!text.contains(wrong_secret) && !format!("{error:?}").contains(wrong_secret), "{text}");
        assert!(!text.contains(&server.secret_access_key), "{text}");
    }
    // The right secret opens it (the refusal above was about the credentials).
    let environment = s3_environment(&server.endpoint, &server.access_key_id, &server.secret_access_key);
    RunStore::open_location(RunLocation::parse(&url).unwrap(), options(environment)).unwrap();
}

#[test]
fn s3_unreachable_endpoint_fails_fast_naming_the_url() {
    // A port that was free a moment ago and has no listener now: connections are refused.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("s3://{BUCKET}/unreachable");
    let environment = s3_environment(&format!("http://127.0.0.1:{port}"), "AKIAEXAMPLE", "secret-never-shown");
    let started = Instant::now();
    let error = RunStore::open_location(RunLocation::parse(&url).unwrap(), options(environment)).unwrap_err();
    let text = error.to_string();
    eprintln!("{text} ({:?})", started.elapsed());
    assert!(matches!(error, ObjectError::Failed { .. }), "{text}");
    assert!(text.contains(&url), "{text}");
    assert!(!text.contains("secret-never-shown"), "{text}");
    assert!(started.elapsed() < Duration::from_secs(30), "took {:?}", started.elapsed());
}

#[test]
fn s3_silent_endpoint_times_out_naming_the_url() {
    // A listener that takes connections (the kernel's backlog) and never answers.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let url = format!("s3://{BUCKET}/silent");
    let environment = s3_environment(&format!("http://127.0.0.1:{port}"), "AKIAEXAMPLE", "secret-never-shown");
    let options = Options { operation_timeout: Duration::from_secs(1), ..options(environment) };
    let started = Instant::now();
    let error = RunStore::open_location(RunLocation::parse(&url).unwrap(), options).unwrap_err();
    let text = error.to_string();
    eprintln!("{text} ({:?})", started.elapsed());
    assert!(matches!(error, ObjectError::TimedOut { .. }), "{text}");
    assert!(text.contains(&url), "{text}");
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    drop(silent);
}

#[test]
fn s3_credentials_from_an_aws_profile_file() {
    let server = server();
    let home = local_dir("aws-home");
    std::fs::create_dir_all(home.join(".aws")).unwrap();
    let credentials = format!(
        "[default]\naws_access_key_id = {}\naws_secret_access_key = {}\n[stale]\naws_access_key_id = {}\naws_secret_access_key = stale-secret-0123456789\n",
        server.access_key_id, server.secret_access_key, server.access_key_id
    );
    std::fs::write(home.join(".aws/credentials"), credentials).unwrap();
    let environment = |profile: Option<&str>| {
        let mut vars: Vec<(String, String)> = [
            ("HOME", home.display().to_string()),
            ("AWS_ENDPOINT_URL", server.endpoint.clone()),
            ("AWS_ALLOW_HTTP", "true".to_string()),
            ("AWS_DEFAULT_REGION", "us-east-1".to_string()),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_string(), value))
        .collect();
        vars.extend(profile.map(|profile| ("AWS_PROFILE".to_string(), profile.to_string())));
        vars
    };
    let url = format!("s3://{BUCKET}/profile-{}", std::process::id());
    let store = RunStore::open_location(RunLocation::parse(&url).unwrap(), options(environment(None))).unwrap();
    store.put("manifest.json", b"from the profile's keys".to_vec()).unwrap();
    assert_eq!(store.get("manifest.json").unwrap(), b"from the profile's keys");
    let error =
        RunStore::open_location(RunLocation::parse(&url).unwrap(), options(environment(Some("stale")))).unwrap_err();
    let text = error.to_string();
    assert!(matches!(error, ObjectError::Credentials { .. }), "{text}");
    assert!(text.contains(&url) && !text.contains("stale-secret-0123456789"), "{text}");
    std::fs::remove_dir_all(&home).unwrap();
}
