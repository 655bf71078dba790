//! Rules engines for the GIPF-project games ZÈRTZ, DVONN and LYNGK behind one trait.
//!
//! This crate knows nothing of search or of neural networks: it gives positions, their legal
//! actions and turns, the record notation, observation planes and board symmetries. The
//! search (`gipfzero-mcts`), the network (`gipfzero-model`) and self-play build on
//! [`Game`]. The rules follow the project's specifications in `shared/rules/`.
//!
//! The three engines share one layout: `geometry` (the board as bits of a `u64`), `turn` (turns
//! and the fixed action space), `position` (the position and its rules), `observation` and
//! `symmetries` (the network's view), and `impl Game` in the engine's module root; ZÈRTZ adds
//! `variant` (its board and marble variants), `notation` and `setup`, LYNGK `stack`. Each file
//! imports only those below it, never the module root. [`bitboard`] walks the cells of a
//! bitboard for all three.
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
