//! One module per subcommand.
pub mod agents;
pub mod bench;
pub mod engine;
pub mod evaluate;
pub mod info;
pub mod play;
pub mod render;
pub mod rules;
pub mod selfplay;
pub mod train;

/// Exit code for an error: 2 for a refused turn or record (the `gipfzero rules` contract),
/// 1 for everything else.
pub fn exit_code(error: &anyhow::Error) -> u8 {
    if error.chain().any(|cause| cause.is::<gipfzero_games::RecordError>()) {
        2
    } else {
        1
    }
}
