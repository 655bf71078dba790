//! Rules engines for the GIPF-project games ZÈRTZ, DVONN and LYNGK behind one trait.
//!
//! This crate knows nothing of search or of neural networks: it gives positions, their legal
//! actions and turns, the record notation, observation planes and board symmetries. The
//! search (`gipfzero-mcts`), the network (`gipfzero-model`) and self-play build on
//! [`Game`]. The rules follow the project's specifications in `shared/rules/`.
pub mod bitboard;
pub mod dvonn;
pub mod error;
pub mod game;
pub mod lyngk;
pub mod record;
pub mod registry;
pub mod rng;
pub mod render;
pub mod symmetry;
pub mod zertz;

pub use error::{RecordError, SetupError, TurnError};
pub use game::{Action, Game, Outcome, Player, Spec, Status};
pub use rng::SplitMix64;
