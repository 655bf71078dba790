//! One module per subcommand.
pub mod bench;
pub mod distributed_bench;
pub mod engine;
pub mod evaluate;
pub mod export;
pub mod info;
pub mod play;
pub mod referee;
pub mod render;
pub mod rules;
pub mod selfplay;
pub mod train;
pub mod worker;

/// `--seconds` of a measurement: a finite number of seconds, at least 0 (0 measures one
/// pass or playout). A clap value parser: NaN or infinity would otherwise reach `Duration`.
pub fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(value) if value.is_finite() && value >= 0.0 => Ok(value),
        _ => Err(format!("expected a number of seconds, at least 0, found {text:?}")),
    }
}

/// A count that must be at least 1 (a batch, steps, trees). A clap value parser.
pub fn parse_count(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(value) if value >= 1 => Ok(value),
        _ => Err(format!("expected a whole number, at least 1, found {text:?}")),
    }
}

/// Exit code for an error, by the kind of its first cause that has one (the README lists
/// them): 2 for a refused turn or record (the `gipfzero rules` contract), 3 for a config
/// that cannot be used, 4 for a checkpoint that cannot be read or does not fit the game, 1
/// for everything else.
pub fn exit_code(error: &anyhow::Error) -> u8 {
    use gipfzero_model::CheckpointError;
    use gipfzero_train::config::ConfigError;
    error
        .chain()
        .find_map(|cause| {
            if cause.is::<gipfzero_games::RecordError>() {
                Some(2)
            } else if cause.is::<ConfigError>() {
                Some(3)
            } else if cause.is::<CheckpointError>() {
                Some(4)
            } else {
                None
            }
        })
        .unwrap_or(1)
}
