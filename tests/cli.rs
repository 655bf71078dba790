//! Smoke tests of the built `gipfzero` binary: it starts without LD_LIBRARY_PATH (the rpath
//! from build.rs finds libtorch), reports the pinned libtorch, and the `rules` commands keep
//! the contract of shared/rules/cli.md (formats and exit codes).
use std::process::{Command, Output};

fn gipfzero(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gipfzero"))
        .args(args)
        .env_remove("LD_LIBRARY_PATH")
        .env_remove("GLIBC_TUNABLES")
        .output()
        .expect("the gipfzero binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("utf-8 output")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("utf-8 output")
}

#[test]
fn a_closed_stdout_ends_a_listing_without_a_panic() {
    // The reader of stdout is gone before the first line (`gipfzero rules … | head` once head
    // has had enough): the command dies of SIGPIPE as Unix tools do, with nothing on stderr,
    // rather than panicking in println!. A match too, which keeps SIGPIPE ignored for the
    // programs it may play against.
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::os::unix::process::ExitStatusExt;
    let commands = [
        &["info"][..],
        &["rules", "perft", "dvonn", "--depth", "1"][..],
        &["evaluate", "dvonn", "random", "random", "--games", "2", "--quiet"][..],
    ];
    for args in commands {
        let mut ends = [0; 2];
        // SAFETY: `ends` has room for the two descriptors pipe(2) writes.
        assert_eq!(unsafe { libc::pipe(ends.as_mut_ptr()) }, 0, "a pipe");
        // SAFETY: both descriptors were just opened and are owned here alone.
        let (reader, writer) = unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) };
        drop(reader);
        let output = Command::new(env!("CARGO_BIN_EXE_gipfzero"))
            .args(args)
            .env_remove("LD_LIBRARY_PATH")
            .stdout(writer)
            .output()
            .expect("the gipfzero binary runs");
        assert_eq!(output.status.signal(), Some(libc::SIGPIPE), "{args:?}: {:?}, stderr:\n{}", output.status, stderr(&output));
        assert!(stderr(&output).is_empty(), "{args:?}: {}", stderr(&output));
    }
}

#[test]
fn info_runs_without_ld_library_path_and_reports_libtorch_2_11() {
    let output = gipfzero(&["info"]);
    assert!(output.status.success(), "info failed: {}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("libtorch 2.11.0"), "no libtorch 2.11.0 in:\n{text}");
    assert!(text.contains("cuda: "), "no CUDA line in:\n{text}");
    // Whether the CUDA graph shim was built (model/build.rs), as the model crate says.
    let graphs = if gipfzero_model::cuda_graph::GRAPHS_BUILT { "cuda graphs: in this build" } else { "cuda graphs: not in this build" };
    assert!(text.contains(graphs), "no {graphs:?} in:\n{text}");
    assert!(text.contains("threads: rayon"), "no thread line in:\n{text}");
    assert!(
        text.contains("allocator: glibc malloc, mmap threshold 32 MiB, trim threshold 64 MiB, no fastbins"),
        "no allocator line in:\n{text}"
    );
    for game in ["zertz", "dvonn", "lyngk"] {
        assert!(text.contains(&format!("  {game}")), "{game} missing in:\n{text}");
    }
}

#[test]
fn the_users_malloc_tunables_are_left_alone() {
    let output = Command::new(env!("CARGO_BIN_EXE_gipfzero"))
        .arg("info")
        .env("GLIBC_TUNABLES", "glibc.malloc.top_pad=1048576")
        .output()
        .expect("gipfzero runs");
    assert!(output.status.success(), "info failed: {}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("allocator: glibc malloc as GLIBC_TUNABLES sets it"), "in:\n{text}");
}

#[test]
fn binary_carries_an_rpath_to_libtorch_and_needs_libtorch() {
    let output = Command::new("readelf")
        .args(["-d", env!("CARGO_BIN_EXE_gipfzero")])
        .output()
        .expect("readelf (binutils) is installed");
    let dynamic = stdout(&output);
    let runpath = dynamic
        .lines()
        .find(|line| line.contains("(RUNPATH)") || line.contains("(RPATH)"))
        .unwrap_or_else(|| panic!("no RUNPATH in:\n{dynamic}"));
    assert!(runpath.contains("torch"), "RUNPATH does not point at libtorch: {runpath}");
    assert!(
        dynamic.contains("Shared library: [libtorch.so]"),
        "libtorch.so is not NEEDED (was --no-as-needed lost?):\n{dynamic}"
    );
}

#[test]
fn rules_moves_prints_sorted_turns() {
    let output = gipfzero(&["rules", "moves", "dvonn"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let lines: Vec<String> = stdout(&output).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 49, "49 empty spaces at the start");
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted, "not in byte order");
}

#[test]
fn rules_perft_counts_turn_sequences() {
    let output = gipfzero(&["rules", "perft", "dvonn", "--depth", "2"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), "2352\n");
    let output = gipfzero(&["rules", "perft", "zertz", "--depth", "0"]);
    assert_eq!(stdout(&output), "1\n");
    let output = gipfzero(&["rules", "perft", "zertz", "--depth", "1"]);
    assert_eq!(stdout(&output), "1944\n");
}

#[test]
fn an_illegal_turn_exits_2_and_names_its_position_and_text() {
    let output = gipfzero(&["rules", "moves", "dvonn", "--moves", "e3 e3"]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(message.contains("turn 2") && message.contains("\"e3\""), "{message}");
    let output = gipfzero(&["rules", "show", "zertz", "--moves", "Qd4,d1"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("turn 1"), "{}", stderr(&output));
}

#[test]
fn replay_reads_a_file_with_comments_and_reports_file_and_line() {
    let dir = std::env::temp_dir().join(format!("gipfzero-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.txt");
    std::fs::write(&good, "# a DVONN opening\ne3 d4\nc3\n").unwrap();
    let output = gipfzero(&["rules", "replay", "dvonn", good.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("to move: player 2"), "{text}");
    assert!(text.contains("score: "), "{text}");

    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "e3\n# comment\nd4 e3\n").unwrap();
    let output = gipfzero(&["rules", "replay", "dvonn", bad.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(message.contains("bad.txt:3") && message.contains("turn 3"), "{message}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn random_games_are_reproducible_and_end_with_a_result() {
    for game in ["zertz", "dvonn", "lyngk"] {
        let first = gipfzero(&["rules", "random", game, "--seed", "5"]);
        assert!(first.status.success(), "{game}: {}", stderr(&first));
        let again = gipfzero(&["rules", "random", game, "--seed", "5"]);
        assert_eq!(stdout(&first), stdout(&again), "{game} not reproducible");
        let text = stdout(&first);
        let turns: Vec<&str> = text.lines().collect();
        assert!(turns.len() > 2, "{game}: too short:\n{text}");
        // The record replays to a finished game.
        let record = turns[..turns.len() - 1].join("\n");
        let mut args = vec!["rules", "replay", game, "-"];
        if game == "lyngk" {
            args.extend(["--seed", "5"]);
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_gipfzero"))
            .args(&args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(record.as_bytes()).unwrap();
        let replayed = child.wait_with_output().unwrap();
        assert!(replayed.status.success(), "{game}: record does not replay");
        assert!(stdout(&replayed).contains("result: "), "{game}: replay not finished");
    }
}

#[test]
fn bad_options_are_refused_with_a_message() {
    let output = gipfzero(&["rules", "moves", "dvonn", "--variant", "48"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("zertz only"), "{}", stderr(&output));
    let output = gipfzero(&["rules", "moves", "zertz", "--variant", "49"]);
    assert_eq!(output.status.code(), Some(1));
    let output = gipfzero(&["rules", "moves", "lyngk", "--setup", "IBR"]);
    assert_eq!(output.status.code(), Some(1));
    let output = gipfzero(&["rules", "moves", "chess"]);
    assert_ne!(output.status.code(), Some(0));
    // Numbers a measurement cannot run with are refused by name before anything runs (NaN
    // seconds used to panic converting to a Duration; a batch of 0 printed 0 positions/s).
    let refused = [
        (&["bench", "model", "zertz", "--seconds", "nan"][..], "--seconds"),
        (&["bench", "rules", "dvonn", "--seconds", "inf"][..], "--seconds"),
        (&["bench", "train", "dvonn", "--batch", "0"][..], "--batch"),
        (&["bench", "train", "dvonn", "--steps", "0"][..], "--steps"),
        (&["bench", "mcts", "dvonn", "--trees", "0"][..], "--trees"),
        (&["bench", "selfplay", "dvonn", "--tiny", "--gpu-wait-ms", "nan"][..], "--gpu-wait-ms"),
    ];
    for (args, option) in refused {
        let output = gipfzero(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", stderr(&output));
        let text = stderr(&output);
        assert!(text.contains(option) && !text.contains("panicked"), "{args:?}: {text}");
    }
}

#[test]
fn exit_codes_tell_a_bad_config_from_a_bad_checkpoint() {
    let dir = std::env::temp_dir().join(format!("gipfzero-cli-exit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("bad.yaml");
    std::fs::write(&config, "game: dvonn\nself_play:\n  games_per_iteration: 4\n  no_such_key: 1\n").unwrap();
    let output = gipfzero(&["train", config.to_str().unwrap(), "--print-config"]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(stderr(&output).contains("bad.yaml:4:"), "the error is located: {}", stderr(&output));

    let missing = dir.join("missing");
    let agent = format!("checkpoint:{}", missing.display());
    let output = gipfzero(&["evaluate", "dvonn", &agent, "random", "--games", "2", "--quiet"]);
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    let text = stderr(&output);
    assert!(text.contains(&format!("agent \"{agent}\": checkpoint {}", missing.display())), "the chain names the agent and the file: {text}");
    std::fs::remove_dir_all(&dir).ok();
}
