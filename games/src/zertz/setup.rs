//! Building arbitrary positions, validated: tests, puzzles and the search's tests need
//! positions that no short game reaches, and a position built here is one the rules could
//! have produced as far as can be checked locally (marbles conserved, no full group left on
//! the board, nobody already at a goal).
use super::geometry::{cells, Cell};
use super::position::Zertz;
use super::variant::{Colour, Variant};
use crate::error::SetupError;
use crate::game::Player;

/// A description of a turn-start position, read and checked by [`Setup::build`].
///
/// ```
/// use gipfzero_games::zertz::{Setup, Variant};
/// use gipfzero_games::Player;
/// let position = Setup::new(Variant::Standard)
///     .removed("a1 a2")
///     .marbles("Wd4 Bc3")
///     .captures(Player::One, [1, 0, 2])
///     .to_move(Player::Two)
///     .build()
///     .unwrap();
/// assert_eq!(position.pool(), [4, 8, 7]);
/// ```
#[derive(Clone, Debug)]
pub struct Setup {
    variant: Variant,
    rings: Option<String>,
    removed: String,
    marbles: String,
    pool: Option<[u8; 3]>,
    captures: [[u8; 3]; 2],
    to_move: Player,
}

impl Setup {
    /// The starting position of `variant`; the other methods change it.
    pub fn new(variant: Variant) -> Setup {
        Setup {
            variant,
            rings: None,
            removed: String::new(),
            marbles: String::new(),
            pool: None,
            captures: [[0; 3]; 2],
            to_move: Player::One,
        }
    }

    /// Exactly these rings are on the board (cell names separated by spaces).
    pub fn rings(mut self, cells: &str) -> Setup {
        self.rings = Some(cells.to_string());
        self
    }

    /// These rings are gone (cell names separated by spaces).
    pub fn removed(mut self, cells: &str) -> Setup {
        self.removed = cells.to_string();
        self
    }

    /// The marbles on the board, such as `"Wd4 Gd3 Bc2"`.
    pub fn marbles(mut self, marbles: &str) -> Setup {
        self.marbles = marbles.to_string();
        self
    }

    /// The pool by colour (white, grey, black). Without it the pool holds whatever the board
    /// and the captures leave of the variant's marbles.
    pub fn pool(mut self, pool: [u8; 3]) -> Setup {
        self.pool = Some(pool);
        self
    }

    /// The marbles `player` has captured, by colour.
    pub fn captures(mut self, player: Player, captured: [u8; 3]) -> Setup {
        self.captures[player.index()] = captured;
        self
    }

    pub fn to_move(mut self, player: Player) -> Setup {
        self.to_move = player;
        self
    }

    fn cells(&self, text: &str) -> Result<u64, SetupError> {
        text.split_whitespace().try_fold(0, |set, name| {
            let cell = self.variant.cell(name).ok_or_else(|| {
                SetupError(format!(
                    "{name} is not a cell of the {} board",
                    self.variant
                ))
            })?;
            Ok(set | cell.bit())
        })
    }

    /// Checks the description and builds the position.
    pub fn build(&self) -> Result<Zertz, SetupError> {
        let rules = self.variant.rules();
        let geometry = &rules.geometry;
        let base = match &self.rings {
            Some(text) => self.cells(text)?,
            None => geometry.all,
        };
        let rings = base & !self.cells(&self.removed)?;
        if rings == 0 {
            return Err(SetupError("a position needs at least one ring".into()));
        }
        let mut marbles = [0u64; 3];
        for word in self.marbles.split_whitespace() {
            let mut chars = word.chars();
            let colour = chars.next().and_then(Colour::from_letter).ok_or_else(|| {
                SetupError(format!(
                    "marble \"{word}\": expected a colour W, G or B and a cell"
                ))
            })?;
            let name = chars.as_str();
            let cell: Cell = self.variant.cell(name).ok_or_else(|| {
                SetupError(format!(
                    "marble \"{word}\": {name} is not a cell of the {} board",
                    self.variant
                ))
            })?;
            if rings & cell.bit() == 0 {
                return Err(SetupError(format!("marble \"{word}\": {name} has no ring")));
            }
            if (marbles[0] | marbles[1] | marbles[2]) & cell.bit() != 0 {
                return Err(SetupError(format!(
                    "marble \"{word}\": {name} already holds a marble"
                )));
            }
            marbles[colour.index()] |= cell.bit();
        }
        let mut pool = [0u8; 3];
        for colour in Colour::ALL {
            let c = colour.index();
            let used =
                marbles[c].count_ones() + self.captures.iter().map(|p| p[c] as u32).sum::<u32>();
            let total = rules.total[c] as u32;
            pool[c] = match self.pool {
                Some(given) if given[c] as u32 + used == total => given[c],
                Some(given) => {
                    return Err(SetupError(format!(
                        "{} {colour} marbles in the pool, on the board and captured; the {} variant has {total}",
                        given[c] as u32 + used,
                        self.variant
                    )))
                }
                None if used <= total => (total - used) as u8,
                None => {
                    return Err(SetupError(format!(
                        "{used} {colour} marbles on the board and captured; the {} variant has {total}",
                        self.variant
                    )))
                }
            };
        }
        for player in Player::BOTH {
            if rules.goal_reached(self.captures[player.index()]) {
                return Err(SetupError(format!("{player} has already reached a goal")));
            }
        }
        let position = Zertz::from_parts(rules, rings, marbles, pool, self.captures, self.to_move);
        let full = position.isolated();
        if full != 0 {
            let names: Vec<String> = cells(full).map(|c| geometry.name(c)).collect();
            return Err(SetupError(format!(
                "rings {} form groups with a marble on every ring, which isolation would have removed",
                names.join(" ")
            )));
        }
        Ok(position)
    }
}
