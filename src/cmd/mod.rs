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
