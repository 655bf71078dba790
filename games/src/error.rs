//! Errors of the rules engines: what was read, and why it was refused.
use thiserror::Error;

/// Why one turn in record notation was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TurnError {
    /// The text is not a turn in the game's notation.
    #[error("malformed turn: {0}")]
    Malformed(String),
    /// The text is a well-formed turn that the rules forbid here.
    #[error("illegal turn: {0}")]
    Illegal(String),
}

/// A turn of a record that could not be played, with where it stands in the record.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("turn {index} \"{text}\": {error}")]
pub struct RecordError {
    /// 1-based position of the turn in the record.
    pub index: usize,
    /// 1-based line of the record text the turn is on.
    pub line: usize,
    /// The turn as written.
    pub text: String,
    pub error: TurnError,
}

/// A setting of a game (variant name, set-up string) that is not valid.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{0}")]
pub struct SetupError(pub String);
