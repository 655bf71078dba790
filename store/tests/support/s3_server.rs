//! The S3-compatible test server (moto's, through `scripts/s3-server.sh`, which installs it
//! into a per-user venv when it is missing), started once per test process on 127.0.0.1
//! with credential checking on. It stops when the test process ends, since it watches its
//! standard input, a pipe from here. Included by the tests that need it (`#[path]`), so that
//! the store's tests and the binary's share one way of starting it.
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

pub const BUCKET: &str = "gipfzero-test";
/// Installing moto on a fresh machine downloads ~30 MB from PyPI; starting takes seconds.
const SERVER_START_LIMIT: Duration = Duration::from_secs(900);

pub struct S3Server {
    pub endpoint: String,
    pub access_key_id: String,
    pub secret_access_key: String,
    /// Kept so that its stdin pipe stays open for as long as this process lives.
    _child: Mutex<Child>,
}

/// The one server of this test process, started by the first test that needs it. A failure
/// to start is kept too, so that the other tests fail with it instead of installing again.
pub fn server() -> &'static S3Server {
    static SERVER: OnceLock<Result<S3Server, String>> = OnceLock::new();
    match SERVER.get_or_init(start_server) {
        Ok(server) => server,
        Err(why) => panic!("the S3 test server could not be started: {why}"),
    }
}

fn start_server() -> Result<S3Server, String> {
    // The workspace's script, from the root crate's tests or from the store crate's.
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let script = [crate_dir.join("scripts/s3-server.sh"), crate_dir.join("../scripts/s3-server.sh")]
        .into_iter()
        .find(|path| path.is_file())
        .unwrap_or_else(|| crate_dir.join("scripts/s3-server.sh"));
    let mut child = Command::new("bash")
        .arg(&script)
        .args(["start", "--bucket", BUCKET, "--auth", "--until-stdin-closes"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|error| format!("cannot run {}: {error}", script.display()))?;
    let stdout = child.stdout.take().expect("piped stdout");
    let (lines_tx, lines_rx) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + SERVER_START_LIMIT;
    let mut values = std::collections::HashMap::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines_rx.recv_timeout(left) {
            Ok(line) if line == "ready" => break,
            Ok(line) => {
                if let Some((key, value)) = line.split_once('=') {
                    values.insert(key.to_string(), value.to_string());
                }
            }
            Err(error) => {
                let _ = child.kill();
                let status = child.wait().map(|status| status.to_string()).unwrap_or_default();
                let what = match error {
                    mpsc::RecvTimeoutError::Timeout => format!("gave no `ready` line within {SERVER_START_LIMIT:?}"),
                    mpsc::RecvTimeoutError::Disconnected => "ended before it was ready".to_string(),
                };
                return Err(format!("{} start {what} ({status}; its messages are above)", script.display()));
            }
        }
    }
    let take = |key: &str| values.get(key).cloned().ok_or_else(|| format!("the server printed no {key}"));
    Ok(S3Server {
        endpoint: take("endpoint")?,
        access_key_id: take("access_key_id")?,
        secret_access_key: take("secret_access_key")?,
        _child: Mutex::new(child),
    })
}

