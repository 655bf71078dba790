//! Choosing a game at run time: from a name, a ZÈRTZ variant and a LYNGK set-up to a start
//! position, and from there into code that is generic over [`Game`]. The command line,
//! self-play and the configs all start games through here, so every game is set up the same
//! way everywhere.
use std::fmt;
use std::str::FromStr;

use crate::dvonn::Dvonn;
use crate::error::SetupError;
use crate::game::Game;
use crate::lyngk::Lyngk;
use crate::zertz::{Variant, Zertz};

/// The three games.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GameName {
    Zertz,
    Dvonn,
    Lyngk,
}

impl GameName {
    pub const ALL: [GameName; 3] = [GameName::Zertz, GameName::Dvonn, GameName::Lyngk];

    pub fn as_str(self) -> &'static str {
        match self {
            GameName::Zertz => "zertz",
            GameName::Dvonn => "dvonn",
            GameName::Lyngk => "lyngk",
        }
    }
}

impl fmt::Display for GameName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for GameName {
    type Err = SetupError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        GameName::ALL
            .into_iter()
            .find(|game| game.as_str() == text)
            .ok_or_else(|| SetupError(format!("unknown game \"{text}\": expected zertz, dvonn or lyngk")))
    }
}

/// Everything that fixes a game's start position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSetting {
    pub game: GameName,
    /// ZÈRTZ only: the board variant (`standard` when absent).
    pub variant: Option<String>,
    /// LYNGK only: an explicit 43-letter set-up.
    pub setup: Option<String>,
    /// LYNGK only: draw the set-up from this seed (0 when neither set-up nor seed is given).
    pub seed: Option<u64>,
}

impl GameSetting {
    pub fn new(game: GameName) -> Self {
        GameSetting { game, variant: None, setup: None, seed: None }
    }

    /// The start position this setting describes.
    pub fn start(&self) -> Result<AnyGame, SetupError> {
        if self.variant.is_some() && self.game != GameName::Zertz {
            return Err(SetupError(format!("--variant applies to zertz only, not {}", self.game)));
        }
        if (self.setup.is_some() || self.seed.is_some()) && self.game != GameName::Lyngk {
            return Err(SetupError(format!("--setup and --seed apply to lyngk only, not {}", self.game)));
        }
        Ok(match self.game {
            GameName::Zertz => {
                let variant = match &self.variant {
                    Some(name) => Variant::from_name(name)?,
                    None => Variant::Standard,
                };
                AnyGame::Zertz(Zertz::new(variant))
            }
            GameName::Dvonn => AnyGame::Dvonn(Dvonn::new()),
            GameName::Lyngk => match (&self.setup, self.seed) {
                (Some(_), Some(_)) => {
                    return Err(SetupError("give either --setup or --seed, not both".into()))
                }
                (Some(setup), None) => AnyGame::Lyngk(Lyngk::from_setup(setup)?),
                (None, seed) => AnyGame::Lyngk(Lyngk::from_seed(seed.unwrap_or(0))),
            },
        })
    }
}

/// A start position of any of the games.
#[derive(Clone, Debug)]
pub enum AnyGame {
    Zertz(Zertz),
    Dvonn(Dvonn),
    Lyngk(Lyngk),
}

/// Code that runs on a position of whichever game was chosen.
pub trait GameVisitor {
    type Output;
    fn visit<G: Game>(self, start: G) -> Self::Output;
}

impl AnyGame {
    /// Runs `visitor` on the concrete position.
    pub fn visit<V: GameVisitor>(self, visitor: V) -> V::Output {
        match self {
            AnyGame::Zertz(position) => visitor.visit(position),
            AnyGame::Dvonn(position) => visitor.visit(position),
            AnyGame::Lyngk(position) => visitor.visit(position),
        }
    }
}
