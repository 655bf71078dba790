//! The game interface shared by the rules engines, the search, the network and self-play.
//!
//! Why this shape:
//! - **One trait, implemented by a position type.** A position is a plain value (`Clone`, cheap
//!   to copy, `Send + Sync`) so the search can keep millions of them and move them between
//!   threads. Everything a variant fixes (board geometry, action count, plane count) lives in a
//!   `&'static` [`Spec`] the position points to, so variants are runtime values, not types.
//! - **Two granularities.** Players think in *turns* (`Wd4,d1`, `b4-b1-c3-e2`), which is what
//!   records, the command line and players exchange. The network and the search think in
//!   *actions*: small decisions drawn from a fixed, per-variant action space, small enough for
//!   a policy head. A turn is a sequence of one or more actions by the same player. Between
//!   the actions of one turn the position is "inside a turn" ([`Game::is_turn_start`] is
//!   false) and the player to move does not change. The player to move is always explicit
//!   ([`Game::to_move`]); nothing may assume that players alternate — ZÈRTZ and LYNGK turns take
//!   several actions, and DVONN's White moves twice in a row at the phase change.
//! - **Observations and symmetries without tensors.** [`Game::encode`] writes `f32` planes of a
//!   fixed shape into a caller's buffer, so `games` stays free of tch; a symmetry acts on
//!   positions, actions and observations alike, which is what the tests check
//!   (`encode(transform(s)) == transform_observation(encode(s))`).
//! - **Allocation-free hot path.** Legal actions are written into a caller-owned `Vec` that the
//!   search reuses; `apply` never allocates.
use std::fmt;
use std::hash::Hash;

use crate::error::TurnError;

/// One of the two players. Player one moves first in every game (ZÈRTZ's "player 1",
/// DVONN's White, LYNGK's first player).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Player {
    One,
    Two,
}

impl Player {
    /// Both players, first mover first.
    pub const BOTH: [Player; 2] = [Player::One, Player::Two];

    /// The opponent.
    #[inline]
    pub fn other(self) -> Player {
        match self {
            Player::One => Player::Two,
            Player::Two => Player::One,
        }
    }

    /// 0 for player one, 1 for player two: an index into per-player arrays.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Player::One => "player 1",
            Player::Two => "player 2",
        })
    }
}

/// An index into a variant's fixed action space (`0..spec.action_count`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Action(pub u16);

impl Action {
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// How a finished game ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win(Player),
    Draw,
}

impl Outcome {
    /// The result from `player`'s point of view: 1 for a win, -1 for a loss, 0 for a draw.
    /// This is the value target of the network and the terminal value of the search.
    #[inline]
    pub fn value_for(self, player: Player) -> f32 {
        match self {
            Outcome::Draw => 0.0,
            Outcome::Win(winner) if winner == player => 1.0,
            Outcome::Win(_) => -1.0,
        }
    }
}

/// Whether a position is still being played.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Ongoing,
    Over(Outcome),
}

impl Status {
    #[inline]
    pub fn is_over(self) -> bool {
        matches!(self, Status::Over(_))
    }
}

/// What a game variant fixes once and for all: the contract with the network and datasets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// `zertz`, `dvonn` or `lyngk`.
    pub game: &'static str,
    /// The variant name as the command line takes it (`standard`, `48`, …); the game's name
    /// for games with a single variant.
    pub variant: &'static str,
    /// Size of the action space; every [`Action`] is below it.
    pub action_count: usize,
    /// Observation shape: planes × height × width, row-major, as [`Game::encode`] writes it.
    pub planes: usize,
    pub height: usize,
    pub width: usize,
    /// Number of symmetries, identity first (index 0).
    pub symmetry_count: usize,
}

impl Spec {
    /// Number of `f32` values in one observation.
    pub fn observation_len(&self) -> usize {
        self.planes * self.height * self.width
    }
}

/// A position of one of the games, with the rules that act on it.
///
/// Contract (checked by every engine's tests):
/// - `legal_actions` is empty exactly when `status()` is `Over`; a forced pass is an action.
/// - applying the actions of a turn from a turn start leads to the next turn start, and the
///   player to move stays the same between them.
/// - `legal_turns` and the turns reachable by `legal_actions` sequences are the same set,
///   and `turn_actions` maps each turn to its sequence.
pub trait Game: Clone + fmt::Debug + Send + Sync + 'static {
    /// A whole turn as a player states it.
    type Turn: Clone + fmt::Debug + PartialEq + Eq + Hash + Send + Sync;

    /// The variant's fixed facts.
    fn spec(&self) -> &'static Spec;

    /// The player who makes the next decision.
    fn to_move(&self) -> Player;

    /// Ongoing, or the final outcome.
    fn status(&self) -> Status;

    /// The game's score for each player where it has one (DVONN: pieces in controlled stacks;
    /// LYNGK: 5-stacks removed; ZÈRTZ: marbles captured), indexed by [`Player::index`].
    fn score(&self) -> [u32; 2];

    /// True between turns, false between two actions of one turn.
    fn is_turn_start(&self) -> bool;

    /// Writes the legal actions into `out` (cleared first), in increasing order.
    fn legal_actions(&self, out: &mut Vec<Action>);

    /// Applies one legal action. Applying an illegal action is a logic error: it may panic in
    /// debug builds and leaves an unspecified (but memory-safe) position in release builds.
    fn apply(&mut self, action: Action);

    /// A hash of everything that matters for the future of the game (for transposition
    /// tables and repetition): equal positions have equal hashes.
    fn position_hash(&self) -> u64;

    /// Writes the legal turns into `out` (cleared first). Only meaningful at a turn start;
    /// empty when the game is over.
    fn legal_turns(&self, out: &mut Vec<Self::Turn>);

    /// The actions that make up `turn`, which must be legal here.
    fn turn_actions(&self, turn: &Self::Turn) -> Vec<Action>;

    /// Plays a legal turn (the same as applying its actions).
    fn play(&mut self, turn: &Self::Turn) {
        for action in self.turn_actions(turn) {
            self.apply(action);
        }
    }

    /// The record notation of a turn legal in this position.
    fn format_turn(&self, turn: &Self::Turn) -> String;

    /// Reads one turn in record notation and checks that it is legal here.
    fn parse_turn(&self, text: &str) -> Result<Self::Turn, TurnError>;

    /// Splits record text into turn tokens. The default splits on white space; a game whose
    /// notation may contain spaces (ZÈRTZ's `x d1Gd3`) overrides it.
    fn split_turns<'a>(&self, text: &'a str) -> Vec<&'a str> {
        text.split_whitespace().collect()
    }

    /// A turn that records may leave out before the turn `next` (DVONN's forced 49th
    /// placement); `None` for most games.
    fn implied_turn_before(&self, _next: &str) -> Option<Self::Turn> {
        None
    }

    /// A start position of this variant drawn from `seed`: LYNGK draws a random set-up;
    /// games with one fixed start return it. Self-play and matches start games through this.
    fn seeded_start(&self, _seed: u64) -> Self {
        self.clone()
    }

    /// The set-up a game started from, in the form its set-up option takes (LYNGK's 43-letter
    /// set-up string), for game records; `None` for games with one fixed start.
    fn setup_text(&self) -> Option<String> {
        None
    }

    /// Writes the observation planes (`spec().observation_len()` values) into `out`.
    fn encode(&self, out: &mut [f32]);

    /// The position seen through symmetry `sym` (`0..spec().symmetry_count`).
    fn transform(&self, sym: usize) -> Self;

    /// The action that corresponds to `action` after symmetry `sym`.
    fn transform_action(&self, sym: usize, action: Action) -> Action;

    /// Maps an observation through symmetry `sym`: `encode(transform(s, sym))` equals
    /// `transform_observation(sym, encode(s))`.
    fn transform_observation(&self, sym: usize, input: &[f32], output: &mut [f32]);

    /// A multi-line text drawing of the position (board, reserves, player to move).
    fn render_text(&self) -> String;

    /// The one-line result of a finished game (`player 1 wins`, `white 21 - black 18`, …).
    fn result_text(&self) -> String;
}
