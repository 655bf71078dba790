//! The config's tests: parsing, defaults, shipped configs, located errors, format upgrades.
use super::*;

fn parse(text: &str) -> Result<RunConfig, ConfigError> {
    RunConfig::from_yaml(text, "run.yaml")
}

#[test]
fn empty_document_gives_the_defaults() {
    let parsed = parse("{}\n").unwrap();
    assert_eq!(
        parsed,
        RunConfig {
            variant: Some("standard".into()),
            ..RunConfig::default()
        }
    );
    assert_eq!(
        parse("game: dvonn\n").unwrap().variant.as_deref(),
        Some("dvonn")
    );
}

#[test]
fn embedded_default_matches_the_rust_defaults() {
    assert_eq!(RunConfig::embedded_default(), parse("{}\n").unwrap());
}

#[test]
fn shipped_configs_are_valid() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") {
            let config = RunConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
            // Round trip through the resolved YAML.
            let again = RunConfig::from_yaml(&config.to_yaml(), "resolved").unwrap();
            assert_eq!(again, config, "{}", path.display());
            seen += 1;
        }
    }
    assert!(seen >= 7, "only {seen} configs in {}", dir.display());
}

#[test]
fn resolved_yaml_round_trips() {
    let mut config = RunConfig::embedded_default();
    config.training.optimizer = OptimizerConfig::Sgd {
        momentum: 0.8,
        nesterov: true,
        weight_decay: 0.0,
    };
    config.training.lr = LrSchedule::Step {
        base: 0.1,
        milestones: vec![10, 20],
        gamma: 0.5,
    };
    config
        .evaluation
        .opponents
        .push(Opponent::Checkpoint("a/b".into()));
    config.evaluation.gating = Some(GatingConfig {
        threshold: 0.55,
        games: Some(40),
        against: Opponent::Rollout(1000),
    });
    config.self_play.search.dirichlet = None;
    let text = config.to_yaml();
    assert_eq!(parse(&text).unwrap(), config, "{text}");
}

fn error_text(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

#[test]
fn unknown_key_is_located() {
    let text = "game: dvonn\ntraining:\n  batch_size: 64\n  bach_size: 3\n";
    let message = error_text(text);
    assert!(message.starts_with("run.yaml:4:3: "), "{message}");
    assert!(message.contains("bach_size"), "{message}");
}

#[test]
fn a_league_is_read_and_its_opponents_checked() {
    let text = "game: zertz\nself_play:\n  league:\n    share: 0.25\n    opponents: [rollout:0200, random]\n";
    let league = parse(text).unwrap().self_play.league.unwrap();
    assert_eq!(league.share, 0.25);
    assert_eq!(league.opponents, vec!["rollout:200", "random"]);
    assert_eq!(parse("game: zertz\n").unwrap().self_play.league, None);
    let networks = "game: zertz\nself_play:\n  league:\n    share: 0.25\n    opponents:\n      - greedy\n      - previous\n";
    let message = error_text(networks);
    assert!(message.starts_with("run.yaml:7:9: self_play.league.opponents.1: league opponents are random, greedy, rollout:N, checkpoint:PATH or model:NAME"), "{message}");
    // Fixed networks may play league games (the run's own `previous` and `best` may not).
    let fixed = parse("game: zertz\nself_play:\n  league:\n    share: 0.5\n    opponents: [model:zertz, checkpoint:runs/a/checkpoints/iter-000009]\n").unwrap();
    assert_eq!(fixed.self_play.league.unwrap().opponents, ["model:zertz", "checkpoint:runs/a/checkpoints/iter-000009"]);
    let share = error_text("game: zertz\nself_play:\n  league:\n    share: 1.5\n    opponents: [random]\n");
    assert!(share.starts_with("run.yaml:4:") && share.contains("self_play.league.share"), "{share}");
    let empty = error_text("game: zertz\nself_play:\n  league:\n    share: 0.5\n    opponents: []\n");
    assert!(empty.contains("self_play.league.opponents: name at least one opponent"), "{empty}");
}

#[test]
fn the_turn_cap_keeps_its_old_name() {
    let old = parse("game: dvonn\nself_play:\n  max_actions: 77\n").unwrap();
    let new = parse("game: dvonn\nself_play:\n  max_turns: 77\n").unwrap();
    assert_eq!(old.self_play.max_turns, 77);
    assert_eq!(old, new);
}

#[test]
fn rollout_mix_is_read_and_bounded() {
    let config = parse("game: zertz\nself_play:\n  search:\n    rollout_mix: 0.25\n").unwrap();
    assert_eq!(config.self_play.search.rollout_mix, 0.25);
    assert_eq!(config.evaluation.search.rollout_mix, 0.0);
    let message = error_text("game: zertz\nevaluation:\n  search:\n    rollout_mix: -0.5\n");
    assert!(message.starts_with("run.yaml:4:"), "{message}");
    assert!(message.contains("evaluation.search.rollout_mix"), "{message}");
}

#[test]
fn a_config_of_a_newer_format_is_refused() {
    let message = error_text("config_version: 7\ngame: dvonn\n");
    assert!(message.starts_with("run.yaml:1:"), "{message}");
    assert!(message.contains("newer gipfzero"), "{message}");
    assert!(error_text("config_version: 0\n").contains("config_version"));
}

#[test]
fn format_1_keeps_the_value_target_it_had() {
    // A config of one's own without the key is of the current format.
    assert_eq!(parse("game: zertz\n").unwrap().training.root_value_weight, 0.5);
    // A run's saved config without it, or any config saying format 1: the builds of
    // format 1 that wrote no root_value_weight had none (the result alone).
    let saved = RunConfig::from_run_yaml("game: zertz\n", "config.yaml").unwrap();
    assert_eq!(saved.training.root_value_weight, 0.0);
    assert_eq!(saved.config_version, CONFIG_VERSION);
    let explicit = parse("config_version: 1\ngame: zertz\n").unwrap();
    assert_eq!(explicit, saved);
    let written = "game: zertz\ntraining:\n  root_value_weight: 0.25\n";
    let saved = RunConfig::from_run_yaml(written, "config.yaml").unwrap();
    assert_eq!(saved.training.root_value_weight, 0.25);
    // Odd match sizes were played as the next even number.
    let odd = "evaluation:\n  games: 5\n  gating: { threshold: 0.55, games: 7 }\n";
    let saved = RunConfig::from_run_yaml(odd, "config.yaml").unwrap();
    assert_eq!((saved.evaluation.games, saved.evaluation.gating.unwrap().games), (6, Some(8)));
}

#[test]
fn format_2_searches_evaluate_forced_positions() {
    // The current format walks through them unless told otherwise.
    let current = parse("game: zertz\n").unwrap();
    assert!(current.self_play.search.skip_forced && current.evaluation.search.skip_forced);
        assert!(current.evaluation.search.for_evaluation().skip_forced);
    // Format 2 had no such key: its searches evaluated every position.
    let old = parse("config_version: 2\ngame: zertz\n").unwrap();
    assert!(!old.self_play.search.skip_forced && !old.evaluation.search.skip_forced);
    assert!(!old.evaluation.search.for_evaluation().skip_forced);
    assert_eq!(old.config_version, CONFIG_VERSION);
    // A format-1 run's saved config went through format 2.
    let saved = RunConfig::from_run_yaml("game: zertz\n", "config.yaml").unwrap();
    assert!(!saved.self_play.search.skip_forced);
    // Written out, the key is kept whatever the format.
    let written = "config_version: 2\nself_play:\n  search:\n    skip_forced: true\n";
    let kept = parse(written).unwrap();
    assert!(kept.self_play.search.skip_forced && !kept.evaluation.search.skip_forced);
}

#[test]
fn format_3_keeps_the_default_run_length_it_had() {
    let current = parse("game: zertz\n").unwrap();
    assert_eq!((current.iterations, current.evaluation.every, current.checkpoints.every), (120, 10, 10));
    assert!(matches!(current.training.lr, LrSchedule::Cosine { total_steps: 7_200, .. }));
    let old = parse("config_version: 3\ngame: zertz\n").unwrap();
    assert_eq!((old.iterations, old.evaluation.every, old.checkpoints.every), (40, 5, 5));
    assert!(matches!(old.training.lr, LrSchedule::Cosine { base: 2e-3, warmup_steps: 100, total_steps: 2_400, min: 1e-4 }));
    assert_eq!(old.config_version, CONFIG_VERSION);
    // What the text writes stays as written.
    let written = "config_version: 3\niterations: 7\ntraining:\n  lr: { schedule: constant, base: 0.01 }\nevaluation:\n  every: 3\ncheckpoints:\n  every: 2\n";
    let kept = parse(written).unwrap();
    assert_eq!((kept.iterations, kept.evaluation.every, kept.checkpoints.every), (7, 3, 2));
    assert_eq!(kept.training.lr, LrSchedule::Constant { base: 0.01 });
    // A run's config saved by a build of format 3 resumes with the length it had.
    let saved = RunConfig::from_run_yaml("config_version: 3\n", "config.yaml").unwrap();
    assert_eq!(saved.iterations, 40);
}

#[test]
fn format_1_with_a_cooled_gumbel_root_asks_which_meaning() {
    let schedule = "self_play:\n  search:\n    temperature:\n      - { from_move: 0, temperature: 1.0 }\n      - { from_move: 30, temperature: 0.0 }\n";
    let message = RunConfig::from_run_yaml(schedule, "config.yaml").unwrap_err().to_string();
    assert!(message.starts_with("config.yaml:4:7: self_play.search.temperature: "), "{message}");
    assert!(message.contains("config_version: 2"), "{message}");
    // Said explicitly, the schedule is honoured; a PUCT root always honoured it.
    let honoured = RunConfig::from_run_yaml(&format!("config_version: 2\n{schedule}"), "c").unwrap();
    assert_eq!(honoured.self_play.search.temperature.len(), 2);
    let puct = schedule.replace("  search:\n", "  search:\n    root_policy: puct\n");
    assert_eq!(RunConfig::from_run_yaml(&puct, "c").unwrap().self_play.search.temperature.len(), 2);
    // Noise at every move was the same in every build of format 1.
    let constant = "self_play:\n  search:\n    temperature: [{ from_move: 0, temperature: 1.0 }]\n";
    assert!(RunConfig::from_run_yaml(constant, "c").is_ok());
}

#[test]
fn match_games_come_in_pairs() {
    let message = error_text("game: dvonn\nevaluation:\n  games: 7\n");
    assert!(message.starts_with("run.yaml:3:"), "{message}");
    assert!(message.contains("evaluation.games: must be an even number"), "{message}");
    let message = error_text("evaluation:\n  gating: { threshold: 0.55, games: 3 }\n");
    assert!(message.contains("evaluation.gating.games: must be an even number"), "{message}");
    let gate = parse("evaluation:\n  gating: { threshold: 0.5, against: \"rollout:1000\" }\n").unwrap();
    assert_eq!(gate.evaluation.gating.unwrap().against, Opponent::Rollout(1000));
    let default = parse("evaluation:\n  gating: { threshold: 0.55 }\n").unwrap();
    assert_eq!(default.evaluation.gating.unwrap().against, Opponent::Best);
    let message = error_text("evaluation:\n  gating:\n    threshold: 0.5\n    against: previous\n");
    assert!(message.starts_with("run.yaml:4:") && message.contains("evaluation.gating.against: gating is against best, a baseline"), "{message}");
    let fixed = parse("evaluation:\n  gating: { threshold: 0.5, against: \"model:dvonn\" }\n").unwrap();
    assert_eq!(fixed.evaluation.gating.unwrap().against, Opponent::Model("dvonn".into()));
    assert_eq!(parse("evaluation:\n  games: 8\n").unwrap().evaluation.games, 8);
}

#[test]
fn a_partial_network_block_takes_the_rest_from_the_default() {
    let network = parse("network:\n  blocks: 5\n  channels: 48\n").unwrap().network;
    assert_eq!(network, NetConfig { blocks: 5, channels: 48, ..NetConfig::default() });
    assert_eq!((NetConfig::default().blocks, NetConfig::default().channels), (3, 32));
    assert_eq!(parse("game: lyngk\n").unwrap().network, NetConfig::default());
    let message = error_text("game: zertz\nnetwork:\n  block: 5\n");
    assert!(message.starts_with("run.yaml:3:3: unknown field `block`"), "{message}");
    let message = error_text("network:\n  channels: 32\n  norm_groups: 5\n");
    assert!(message.contains("network.norm_groups"), "{message}");
    let message = error_text("network:\n  blocks: 65\n");
    assert!(message.starts_with("run.yaml:2:11: network.blocks: must be at most 64"), "{message}");
    // A width libtorch could not allocate is a located config error, not a panic at start-up.
    let message = error_text("network:\n  channels: 1000000\n");
    assert!(message.starts_with("run.yaml:2:13: network.channels: must be at most 1024"), "{message}");
    let message = error_text("network:\n  value_hidden: 100000\n");
    assert!(message.starts_with("run.yaml:2:17: network.value_hidden: must be at most 4096"), "{message}");
}

#[test]
fn evaluation_threads_are_bounded() {
    for (value, column) in [("0", 19), ("257", 19)] {
        let message = error_text(&format!("game: zertz\nevaluation:\n  parallel_games: {value}\n"));
        assert!(
            message.starts_with(&format!("run.yaml:3:{column}: evaluation.parallel_games: must be between 1 and 256")),
            "{message}"
        );
    }
    assert_eq!(parse("evaluation:\n  parallel_games: 2\n").unwrap().evaluation.parallel_games, 2);
    assert_eq!(parse("game: dvonn\n").unwrap().evaluation.parallel_games, 16);
}

#[test]
fn root_value_weight_outside_zero_to_one_is_refused() {
    let message = error_text("game: dvonn\ntraining:\n  root_value_weight: 1.5\n");
    assert!(message.starts_with("run.yaml:3:"), "{message}");
    assert!(message.contains("root_value_weight"), "{message}");
}

#[test]
fn wrong_type_is_located() {
    let text = "game: dvonn\ntraining:\n  batch_size: lots\n";
    let message = error_text(text);
    assert!(message.starts_with("run.yaml:3:15: "), "{message}");
}

#[test]
fn the_gpu_wait_is_checked_and_reaches_the_serving() {
    let message = error_text("threads:\n  gpu_wait_ms: -1\n");
    assert!(message.starts_with("run.yaml:2:16: threads.gpu_wait_ms: must be between 0 and 1000"), "{message}");
    let config = RunConfig::from_yaml("threads: { gpu_wait_ms: 0.5, gpu_replicas: 2 }\n", "run.yaml").unwrap();
    let serving = config.serving();
    assert_eq!((serving.gpu_wait, serving.gpu_replicas), (std::time::Duration::from_micros(500), 2));
    assert_eq!(RunConfig::embedded_default().serving().gpu_wait, crate::agents::DEFAULT_GPU_WAIT);
}

#[test]
fn bad_values_are_located_at_their_key() {
    let text = "game: dvonn\nreplay:\n  max_reuse: 0\n";
    let message = error_text(text);
    assert!(
        message.starts_with("run.yaml:3:14: replay.max_reuse: must be at least 1"),
        "{message}"
    );

    let text = "training:\n  lr:\n    schedule: cosine\n    base: 0.01\n    total_steps: 10\n    warmup_steps: 20\n";
    let message = error_text(text);
    assert!(
        message.starts_with("run.yaml:6:19: training.lr.warmup_steps:"),
        "{message}"
    );

    // A search setting checked by the search itself names the YAML key.
    let text = "self_play:\n  search:\n    gumbel:\n      max_considered: 0\n";
    let message = error_text(text);
    assert!(
        message.starts_with("run.yaml:4:23: self_play.search.gumbel.max_considered:"),
        "{message}"
    );

    // An opponent string is checked while parsing, at the string.
    let text = "evaluation:\n  opponents: [random, rollout:0]\n";
    let message = error_text(text);
    assert!(message.starts_with("run.yaml:2:23: "), "{message}");
    assert!(message.contains("rollout:0"), "{message}");

    // A value left at its default that conflicts with a written one is reported at the
    // nearest written ancestor.
    let text = "game: zertz\nvariant: huge\n";
    assert!(error_text(text).starts_with("run.yaml:2:10: variant: unknown"));
    let text = "training:\n  batch_size: 100000\n";
    let message = error_text(text);
    assert!(
        message.starts_with("run.yaml:1:1: replay.min_positions:"),
        "{message}"
    );
}

#[test]
fn optimiser_and_schedule_tags_are_checked() {
    // The tag is located at its key.
    let message = error_text("training:\n  optimizer:\n    kind: rmsprop\n");
    assert!(
        message.starts_with("run.yaml:3:5: unknown variant `rmsprop`"),
        "{message}"
    );
    // Inside a tagged block serde buffers the mapping, so serde-saphyr can only point at
    // the block's key (see the module docs).
    let message = error_text("training:\n  optimizer:\n    kind: sgd\n    beta1: 0.9\n");
    assert!(
        message.starts_with("run.yaml:2:3: unknown field `beta1`"),
        "{message}"
    );
    let message = error_text("training:\n  optimizer:\n    kind: adam\n    beta1: abc\n");
    assert!(
        message.starts_with("run.yaml:2:3: invalid type"),
        "{message}"
    );
    let message = error_text("training:\n  lr:\n    schedule: cosine\n    base: 0.1\n");
    assert!(
        message.starts_with("run.yaml:2:3: missing field `total_steps`"),
        "{message}"
    );
}

#[test]
fn learning_rate_schedules() {
    let cosine = LrSchedule::Cosine {
        base: 1.0,
        warmup_steps: 10,
        total_steps: 110,
        min: 0.0,
    };
    assert!((cosine.at(0) - 0.1).abs() < 1e-12);
    assert!((cosine.at(9) - 1.0).abs() < 1e-12);
    assert!((cosine.at(10) - 1.0).abs() < 1e-12);
    assert!((cosine.at(60) - 0.5).abs() < 1e-12);
    assert!(cosine.at(109) < 0.001);
    assert_eq!(cosine.at(500), 0.0);
    let step = LrSchedule::Step {
        base: 1.0,
        milestones: vec![5, 10],
        gamma: 0.1,
    };
    assert_eq!(step.at(4), 1.0);
    assert!((step.at(5) - 0.1).abs() < 1e-12);
    assert!((step.at(10) - 0.01).abs() < 1e-12);
    assert_eq!(LrSchedule::Constant { base: 0.3 }.at(1000), 0.3);
}

#[test]
fn opponents_parse_and_print_back() {
    for text in [
        "random",
        "greedy",
        "rollout:200",
        "previous",
        "best",
        "checkpoint:runs/x/best",
        "model:zertz-blitz",
    ] {
        assert_eq!(text.parse::<Opponent>().unwrap().to_string(), text);
    }
    for bad in ["rollout:", "rollout:0", "checkpoint:", "model:", "Random", "mcts"] {
        assert!(bad.parse::<Opponent>().is_err(), "{bad}");
    }
}

#[test]
fn evaluation_search_has_no_noise() {
    let settings = SearchConfig::self_play(16);
    let search = settings.for_evaluation();
    assert_eq!(search.dirichlet, None);
    assert_eq!(search.simulations, 16);
    assert_eq!(search.root_policy, RootPolicy::Gumbel);
    assert!(!search.gumbel.noise);
}

#[test]
fn a_league_opponent_that_is_no_agent_is_located_at_its_item() {
    let message = error_text("game: zertz\nself_play:\n  league:\n    share: 0.5\n    opponents:\n      - random\n      - rollout:x\n");
    assert!(message.starts_with("run.yaml:7:9: self_play.league.opponents.1: "), "{message}");
    assert!(message.contains("rollout:x"), "{message}");
}

#[test]
fn format_4_searches_know_no_proven_results() {
    let current = parse("game: dvonn\n").unwrap();
    assert!(current.self_play.search.solver && current.evaluation.search.solver);
    let old = parse("config_version: 4\ngame: dvonn\n").unwrap();
    assert!(!old.self_play.search.solver && !old.evaluation.search.solver);
    assert_eq!(old.config_version, CONFIG_VERSION);
    let written = parse("config_version: 4\ngame: dvonn\nself_play:\n  search: {solver: true}\n").unwrap();
    assert!(written.self_play.search.solver && !written.evaluation.search.solver);
}

#[test]
fn format_5_runs_let_self_play_and_sgd_take_turns() {
    assert!(parse("game: dvonn\n").unwrap().overlap);
    let old = parse("config_version: 5\ngame: dvonn\n").unwrap();
    assert!(!old.overlap);
    assert_eq!(old.config_version, CONFIG_VERSION);
    assert!(parse("config_version: 5\ngame: dvonn\noverlap: true\n").unwrap().overlap);
}

#[test]
fn the_forward_passes_precision_is_f32_or_bf16() {
    assert_eq!(parse("game: dvonn\n").unwrap().precision(), gipfzero_model::Precision::F32);
    assert_eq!(parse("game: dvonn\nprecision: bf16\n").unwrap().precision(), gipfzero_model::Precision::Bf16);
    let message = error_text("game: dvonn\nprecision: fp8\n");
    assert!(message.starts_with("run.yaml:2:") && message.contains("precision") && message.contains("expected f32 or bf16"), "{message}");
}
