//! The LYNGK position and its rules: who may move what, where a line ends, LYNGK chains,
//! claims, 5-stacks, passes and the end of the game.
//!
//! Move generation is one small recursion (`line_completes` / `collect_paths`): follow
//! a line to the first occupied point; a point topped by the moving colour (when the mover
//! owns it) is a LYNGK point and the recursion fans out in six directions from it, anything
//! else is a landing or a dead end. The legal actions offer a start or a continuation only
//! when at least one complete move lies behind it, so the search never walks into a dead end.
use super::geometry::{points, Direction, Point, POINTS};
use super::stack::{Colour, Piece, Stack, MAX_HEIGHT};
use super::turn::{Move, Path, Step, Turn};
use crate::error::{SetupError, TurnError};
use crate::game::{Action, Outcome, Player, Status};
use crate::rng::SplitMix64;

/// All five colours as a set.
pub const ALL_COLOURS: u8 = 0b1_1111;
/// A player may hold at most this many colours.
pub const MAX_CLAIMS: u32 = 2;

/// The 43 pieces in the canonical order that [`Lyngk::from_seed`] shuffles.
pub const CANONICAL_PIECES: &str = "IIIIIIIIBBBBBBBBRRRRRRRRGGGGGGGGKKKKKKKKWWW";

/// A move in progress: the stack has left its origin and stands on LYNGK point `at`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Moving {
    pub(crate) origin: Point,
    pub(crate) at: Point,
    /// LYNGK points used so far this turn (including `at`).
    pub(crate) used: u64,
    pub(crate) stack: Stack,
}

/// A LYNGK position, possibly between two actions of a turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lyngk {
    pub(crate) stacks: [Stack; POINTS],
    pub(crate) occupied: u64,
    /// Colours claimed by each player, as sets.
    pub(crate) claims: [u8; 2],
    /// 5-stacks removed by each player.
    pub(crate) removed: [u8; 2],
    pub(crate) to_move: Player,
    /// The colour claimed in the turn under way, until the turn ends.
    pub(crate) claimed_now: Option<Colour>,
    pub(crate) moving: Option<Moving>,
    /// Neither player has a move (kept up to date at every turn start).
    pub(crate) over: bool,
    /// The set-up letters the game started from (all zero for a hand-built position).
    pub(crate) setup: [u8; POINTS],
}

/// The first occupied point on the line from `from` in direction `dir`.
#[inline]
fn first_occupied(occupied: u64, from: Point, dir: Direction) -> Option<Point> {
    let hits = from.ray(dir) & occupied;
    if hits == 0 {
        return None;
    }
    let index = if dir.ascending() { hits.trailing_zeros() } else { 63 - hits.leading_zeros() };
    Point::new(index as usize)
}

/// Whether `moving` may land on `target`: rule 3 always; a neutral top only on a stack no
/// higher than itself (for a single piece: only on a single piece).
#[inline]
fn can_land(moving: Stack, target: Stack, own: bool) -> bool {
    target.fits_under(moving) && (own || target.height() <= moving.height())
}

/// Why `moving` may not land on `target`, for error messages.
fn landing_refusal(moving: Stack, target: Stack, own: bool) -> &'static str {
    if target.height() + moving.height() > MAX_HEIGHT {
        "the stack would be higher than 5"
    } else if target.colours() & moving.colours() != 0 {
        "a colour would appear twice in the stack"
    } else if !own && target.height() > moving.height() {
        "a neutral top may land only on a single piece or a stack no higher than itself"
    } else {
        "the landing is refused"
    }
}

impl Lyngk {
    fn empty(to_move: Player) -> Lyngk {
        Lyngk {
            stacks: [Stack::EMPTY; POINTS],
            occupied: 0,
            claims: [0; 2],
            removed: [0; 2],
            to_move,
            claimed_now: None,
            moving: None,
            over: false,
            setup: [0; POINTS],
        }
    }

    /// The start of a game from its set-up string: 43 letters `I B R G K W` in the point order
    /// a1, b1…b4, c1…c7, …, i1, with 8 of each colour and 3 jokers `W`.
    pub fn from_setup(text: &str) -> Result<Lyngk, SetupError> {
        let text = text.trim();
        let letters: Vec<char> = text.chars().collect();
        if letters.len() != POINTS {
            return Err(SetupError(format!(
                "a LYNGK set-up has {POINTS} letters (one per point, a1 … i1), got {}",
                letters.len()
            )));
        }
        let mut counts = [0usize; 6];
        let mut position = Lyngk::empty(Player::One);
        for (point, &letter) in Point::all().zip(&letters) {
            let Some(piece) = Piece::from_letter(letter) else {
                return Err(SetupError(format!(
                    "letter '{letter}' for point {point} is not a piece (expected one of I, B, R, G, K, W)"
                )));
            };
            counts[piece.colour().map_or(5, Colour::index)] += 1;
            position.stacks[point.index()] = Stack::single(piece);
            position.setup[point.index()] = letter as u8;
        }
        for (i, &count) in counts.iter().enumerate() {
            let (letter, expected) = if i == 5 { ('W', 3) } else { (Colour::ALL[i].letter(), 8) };
            if count != expected {
                return Err(SetupError(format!(
                    "the set-up has {count} '{letter}'; expected 8 of each colour I, B, R, G, K and 3 jokers W"
                )));
            }
        }
        position.occupied = (1u64 << POINTS) - 1;
        position.refresh_over();
        Ok(position)
    }

    /// A set-up drawn from `seed`: the canonical list [`CANONICAL_PIECES`] shuffled by
    /// [`SplitMix64::shuffle`] seeded with `seed`; the i-th letter goes to the i-th point.
    pub fn from_seed(seed: u64) -> Lyngk {
        let mut letters: Vec<u8> = CANONICAL_PIECES.bytes().collect();
        SplitMix64::new(seed).shuffle(&mut letters);
        let text = String::from_utf8(letters).expect("set-up letters are ASCII");
        Lyngk::from_setup(&text).expect("a shuffle of the canonical pieces is a valid set-up")
    }

    /// The set-up this game started from (an empty string for a position built with
    /// [`Lyngk::from_position`]).
    pub fn setup_string(&self) -> String {
        if self.setup[0] == 0 {
            return String::new();
        }
        self.setup.iter().map(|&b| b as char).collect()
    }

    /// Builds any position that the rules can hold, for tests and analysis.
    ///
    /// - `stacks`: entries `point=pieces` separated by white space, pieces bottom to top
    ///   (`b4=B b1=RB e2=W`); unlisted points are empty.
    /// - `claims`: the colours each player holds (`["B", "RG"]`), at most two each, disjoint.
    /// - `removed`: 5-stacks each player has removed.
    ///
    /// The position is at a turn start. Refused: unknown points or letters, a point given
    /// twice, a stack that breaks rule 3, more than 8 pieces of a colour or 3 jokers on the
    /// board, more than 43 pieces counting the removed stacks.
    pub fn from_position(
        stacks: &str,
        claims: [&str; 2],
        removed: [u32; 2],
        to_move: Player,
    ) -> Result<Lyngk, SetupError> {
        let mut position = Lyngk::empty(to_move);
        let mut counts = [0u32; 6];
        for entry in stacks.split_whitespace() {
            let Some((name, pieces)) = entry.split_once('=') else {
                return Err(SetupError(format!("\"{entry}\" is not a stack (expected point=pieces, like b1=RB)")));
            };
            let point = Point::parse(name)
                .ok_or_else(|| SetupError(format!("\"{name}\" is not a point (expected like e4)")))?;
            if position.occupied & point.bit() != 0 {
                return Err(SetupError(format!("point {point} is given twice")));
            }
            let pieces: Vec<Piece> = pieces
                .chars()
                .map(|l| {
                    Piece::from_letter(l).ok_or_else(|| {
                        SetupError(format!("'{l}' at {point} is not a piece (expected I, B, R, G, K or W)"))
                    })
                })
                .collect::<Result<_, _>>()?;
            if pieces.is_empty() {
                return Err(SetupError(format!("the stack at {point} has no pieces")));
            }
            let stack = Stack::from_pieces(&pieces).ok_or_else(|| {
                SetupError(format!("the stack at {point} is higher than 5 or repeats a colour"))
            })?;
            for piece in pieces {
                counts[piece.colour().map_or(5, Colour::index)] += 1;
            }
            position.stacks[point.index()] = stack;
            position.occupied |= point.bit();
        }
        for (i, &count) in counts.iter().enumerate() {
            let (letter, most) = if i == 5 { ('W', 3) } else { (Colour::ALL[i].letter(), 8) };
            if count > most {
                return Err(SetupError(format!("{count} pieces '{letter}' on the board; there are only {most}")));
            }
        }
        let on_board: u32 = counts.iter().sum();
        if removed.iter().any(|&r| r > 8) || on_board + 5 * (removed[0] + removed[1]) > POINTS as u32 {
            return Err(SetupError(format!(
                "{on_board} pieces on the board and {} removed 5-stacks make more than {POINTS} pieces",
                removed[0] + removed[1]
            )));
        }
        for (player, text) in claims.iter().enumerate() {
            for letter in text.chars() {
                let colour = Colour::from_letter(letter).ok_or_else(|| {
                    SetupError(format!("claim '{letter}' is not a colour (expected I, B, R, G or K)"))
                })?;
                if (position.claims[0] | position.claims[1]) & colour.bit() != 0 {
                    return Err(SetupError(format!("colour {colour} is claimed twice")));
                }
                position.claims[player] |= colour.bit();
            }
            if position.claims[player].count_ones() > MAX_CLAIMS {
                return Err(SetupError(format!("a player holds at most {MAX_CLAIMS} colours, got \"{text}\"")));
            }
        }
        position.removed = [removed[0] as u8, removed[1] as u8];
        position.refresh_over();
        Ok(position)
    }

    /// The stack on `point` (empty when the point is).
    pub fn stack(&self, point: Point) -> Stack {
        self.stacks[point.index()]
    }

    /// The colours `player` has claimed, as a set (bit `c.index()` for colour `c`).
    pub fn claims(&self, player: Player) -> u8 {
        self.claims[player.index()]
    }

    /// Number of pieces on the board.
    pub fn pieces_on_board(&self) -> u32 {
        self.stacks.iter().map(|s| s.height() as u32).sum::<u32>()
            + self.moving.map_or(0, |m| m.stack.height() as u32)
    }

    /// 5-stacks removed by each player.
    pub fn removed(&self) -> [u32; 2] {
        [self.removed[0] as u32, self.removed[1] as u32]
    }

    pub fn to_move(&self) -> Player {
        self.to_move
    }

    pub fn is_turn_start(&self) -> bool {
        self.claimed_now.is_none() && self.moving.is_none()
    }

    /// Colours `player` may claim at the start of a turn.
    fn claimable(&self, player: Player) -> u8 {
        if self.claims[player.index()].count_ones() < MAX_CLAIMS {
            !(self.claims[0] | self.claims[1]) & ALL_COLOURS
        } else {
            0
        }
    }

    /// The stack on `origin` if `player`, owning the colours `own`, may move it, and whether
    /// its top is one of `own`. Jokers on top never move; neither does a 5-stack (it could land
    /// nowhere).
    #[inline]
    fn movable(&self, origin: Point, player: Player, own: u8) -> Option<(Stack, bool)> {
        let stack = self.stacks[origin.index()];
        let colour = stack.top_colour()?;
        if stack.height() >= MAX_HEIGHT || self.claims[player.other().index()] & colour.bit() != 0 {
            return None;
        }
        Some((stack, own & colour.bit() != 0))
    }

    /// Whether the line from `from` in `dir` leads to at least one complete move for `moving`
    /// (owned by the mover when `own`), with the LYNGK points `used` already spent. `occupied`
    /// excludes the vacated origin.
    ///
    /// Inlined into the loops over origins and directions, where almost every line ends in a
    /// landing or nothing; only a LYNGK point pays for a call.
    #[inline(always)]
    fn line_completes(&self, occupied: u64, from: Point, dir: Direction, moving: Stack, own: bool, used: u64) -> bool {
        let Some(point) = first_occupied(occupied, from, dir) else { return false };
        let target = self.stacks[point.index()];
        if own && target.top() == moving.top() {
            return self.chain_completes(occupied, point, moving, used);
        }
        can_land(moving, target, own)
    }

    /// Whether a move of the owned `moving` goes on to completion from LYNGK point `point`.
    #[inline(never)]
    fn chain_completes(&self, occupied: u64, point: Point, moving: Stack, used: u64) -> bool {
        if used & point.bit() != 0 {
            return false;
        }
        let used = used | point.bit();
        Direction::ALL.iter().any(|&d| self.line_completes(occupied, point, d, moving, true, used))
    }

    /// Pushes every complete path that continues `path` along the line from its last point.
    #[allow(clippy::too_many_arguments)]
    fn collect_paths(
        &self,
        occupied: u64,
        dir: Direction,
        moving: Stack,
        own: bool,
        used: u64,
        path: &mut Path,
        claim: Option<Colour>,
        out: &mut Vec<Turn>,
    ) {
        let Some(point) = first_occupied(occupied, path.landing(), dir) else { return };
        let target = self.stacks[point.index()];
        path.push(point);
        if own && target.top() == moving.top() {
            if used & point.bit() == 0 {
                for d in Direction::ALL {
                    self.collect_paths(occupied, d, moving, own, used | point.bit(), path, claim, out);
                }
            }
        } else if can_land(moving, target, own) {
            out.push(Turn::Move(Move { claim, path: *path }));
        }
        path.pop();
    }

    /// Pushes the start actions that `player`, owning `own`, has: one per origin and first
    /// direction with a complete move behind it.
    fn push_starts(&self, player: Player, own: u8, out: &mut Vec<Action>) {
        for origin in points(self.occupied) {
            let Some((stack, is_own)) = self.movable(origin, player, own) else { continue };
            let occupied = self.occupied & !origin.bit();
            for d in Direction::ALL {
                if self.line_completes(occupied, origin, d, stack, is_own, 0) {
                    out.push(Step::Start(origin, d).action());
                }
            }
        }
    }

    /// Whether `player`, owning `own`, has any move.
    fn has_move_with(&self, player: Player, own: u8) -> bool {
        for origin in points(self.occupied) {
            if let Some((stack, is_own)) = self.movable(origin, player, own) {
                let occupied = self.occupied & !origin.bit();
                if Direction::ALL.iter().any(|&d| self.line_completes(occupied, origin, d, stack, is_own, 0)) {
                    return true;
                }
            }
        }
        false
    }

    /// Whether `player` could move at a turn start, claims included.
    fn has_any_move(&self, player: Player) -> bool {
        let own = self.claims[player.index()];
        self.has_move_with(player, own)
            || Colour::members(self.claimable(player)).any(|c| self.has_move_with(player, own | c.bit()))
    }

    fn refresh_over(&mut self) {
        self.over = !self.has_any_move(self.to_move) && !self.has_any_move(self.to_move.other());
    }

    /// The legal actions, ascending.
    pub fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.over {
            return;
        }
        let player = self.to_move;
        let own = self.claims[player.index()];
        if let Some(m) = self.moving {
            for d in Direction::ALL {
                if self.line_completes(self.occupied, m.at, d, m.stack, true, m.used) {
                    out.push(Step::Continue(d).action());
                }
            }
            return;
        }
        self.push_starts(player, own, out);
        if self.claimed_now.is_some() {
            return;
        }
        let claimable = self.claimable(player);
        if out.is_empty() {
            // Claiming is the only way to move, if any: offer the claims that open a move.
            for c in Colour::members(claimable) {
                if self.has_move_with(player, own | c.bit()) {
                    out.push(Step::Claim(c).action());
                }
            }
            if out.is_empty() {
                out.push(Step::Pass.action());
            }
        } else {
            // Claiming never removes a move, so every claimable colour leads to a move.
            let starts = out.len();
            out.extend(Colour::members(claimable).map(|c| Step::Claim(c).action()));
            let claims = out.len() - starts;
            out.rotate_right(claims);
        }
    }

    /// Applies one legal action.
    pub fn apply(&mut self, action: Action) {
        let player = self.to_move;
        match Step::from_action(action) {
            Some(Step::Claim(c)) => {
                debug_assert!(self.is_turn_start() && self.claimable(player) & c.bit() != 0);
                self.claims[player.index()] |= c.bit();
                self.claimed_now = Some(c);
            }
            Some(Step::Start(origin, dir)) => {
                let stack = self.stacks[origin.index()];
                debug_assert!(self.moving.is_none() && stack.top_colour().is_some());
                self.stacks[origin.index()] = Stack::EMPTY;
                self.occupied &= !origin.bit();
                let own = stack.top_colour().is_some_and(|c| self.claims[player.index()] & c.bit() != 0);
                self.advance(origin, origin, dir, stack, own, 0);
            }
            Some(Step::Continue(dir)) => {
                let Some(m) = self.moving else {
                    debug_assert!(false, "a continuation outside a LYNGK chain");
                    return;
                };
                self.advance(m.origin, m.at, dir, m.stack, true, m.used);
            }
            Some(Step::Pass) => self.end_turn(),
            None => debug_assert!(false, "action {action:?} outside the action space"),
        }
    }

    /// Moves the lifted `stack` along the line from `from`: onto a LYNGK point (the move goes
    /// on) or onto its landing (the turn ends).
    fn advance(&mut self, origin: Point, from: Point, dir: Direction, stack: Stack, own: bool, used: u64) {
        let Some(point) = first_occupied(self.occupied, from, dir) else {
            debug_assert!(false, "a line that reaches no piece is no move");
            return;
        };
        if own && self.stacks[point.index()].top() == stack.top() {
            self.moving = Some(Moving { origin, at: point, used: used | point.bit(), stack });
            return;
        }
        let landed = self.stacks[point.index()].put(stack);
        let mover = self.to_move.index();
        let owned_top = landed.top_colour().is_some_and(|c| self.claims[mover] & c.bit() != 0);
        if landed.height() == MAX_HEIGHT && owned_top {
            self.stacks[point.index()] = Stack::EMPTY;
            self.occupied &= !point.bit();
            self.removed[mover] += 1;
        } else {
            self.stacks[point.index()] = landed;
        }
        self.end_turn();
    }

    fn end_turn(&mut self) {
        self.claimed_now = None;
        self.moving = None;
        self.to_move = self.to_move.other();
        self.refresh_over();
    }

    /// The legal turns (at a turn start; empty when the game is over).
    pub fn legal_turns(&self, out: &mut Vec<Turn>) {
        out.clear();
        if self.over || !self.is_turn_start() {
            return;
        }
        let player = self.to_move;
        let own = self.claims[player.index()];
        self.collect_moves(player, None, own, out);
        for c in Colour::members(self.claimable(player)) {
            self.collect_moves(player, Some(c), own | c.bit(), out);
        }
        if out.is_empty() {
            out.push(Turn::Pass);
        }
    }

    fn collect_moves(&self, player: Player, claim: Option<Colour>, own: u8, out: &mut Vec<Turn>) {
        for origin in Point::all() {
            let Some((stack, is_own)) = self.movable(origin, player, own) else { continue };
            let occupied = self.occupied & !origin.bit();
            let mut path = Path::default();
            path.push(origin);
            for d in Direction::ALL {
                self.collect_paths(occupied, d, stack, is_own, 0, &mut path, claim, out);
            }
        }
    }

    /// The actions of a legal turn.
    pub fn turn_actions(&self, turn: &Turn) -> Vec<Action> {
        let mut actions = Vec::with_capacity(4);
        match turn {
            Turn::Pass => actions.push(Step::Pass.action()),
            Turn::Move(m) => {
                if let Some(c) = m.claim {
                    actions.push(Step::Claim(c).action());
                }
                let points = m.path.points();
                for (i, pair) in points.windows(2).enumerate() {
                    let dir = pair[0].direction_to(pair[1]).expect("a legal path runs along lines");
                    actions.push(if i == 0 { Step::Start(pair[0], dir) } else { Step::Continue(dir) }.action());
                }
            }
        }
        actions
    }

    /// Reads a turn in record notation and checks it against the rules here.
    pub fn parse_turn(&self, text: &str) -> Result<Turn, TurnError> {
        let turn = super::turn::parse_turn_text(text).map_err(TurnError::Malformed)?;
        if self.over {
            return Err(TurnError::Illegal("the game is over".into()));
        }
        if !self.is_turn_start() {
            return Err(TurnError::Illegal("a turn is under way".into()));
        }
        let mut legal = Vec::new();
        self.legal_turns(&mut legal);
        if legal.contains(&turn) {
            return Ok(turn);
        }
        Err(TurnError::Illegal(format!("{turn}: {}", self.explain_refusal(&turn, &legal))))
    }

    /// Why a well-formed turn that is not in `legal` is refused.
    fn explain_refusal(&self, turn: &Turn, legal: &[Turn]) -> String {
        let player = self.to_move;
        let Turn::Move(m) = turn else {
            return format!("{player} has a move and may not pass");
        };
        if legal == [Turn::Pass] {
            return format!("{player} has no move at all and must pass");
        }
        let mut own = self.claims[player.index()];
        if let Some(c) = m.claim {
            if (self.claims[0] | self.claims[1]) & c.bit() != 0 {
                return format!("colour {c} is already claimed");
            }
            if self.claimable(player) == 0 {
                return format!("{player} already holds {MAX_CLAIMS} colours");
            }
            own |= c.bit();
        }
        let points = m.path.points();
        let origin = points[0];
        let stack = self.stacks[origin.index()];
        let Some(colour) = stack.top_colour() else {
            return if stack.is_empty() {
                format!("there is no piece on {origin}")
            } else {
                format!("{origin} is topped by a joker, which never moves")
            };
        };
        if self.claims[player.other().index()] & colour.bit() != 0 {
            return format!("{origin} is topped by {colour}, claimed by {}", player.other());
        }
        let is_own = own & colour.bit() != 0;
        let occupied = self.occupied & !origin.bit();
        let mut used = 0u64;
        for (i, pair) in points.windows(2).enumerate() {
            let (from, to) = (pair[0], pair[1]);
            let Some(dir) = from.direction_to(to) else {
                return format!("{from} and {to} are not on one line");
            };
            let target = self.stacks[to.index()];
            if target.is_empty() || to == origin {
                return format!("{to} is empty: a move ends on the first occupied point");
            }
            if let Some(p) = first_occupied(occupied, from, dir).filter(|&p| p != to) {
                return format!("the line from {from} towards {to} stops at {p}");
            }
            let last = i + 2 == points.len();
            let lyngk_point = is_own && target.top() == stack.top();
            if last {
                if lyngk_point {
                    return format!("{to} is a LYNGK point, not a landing: the move must go on");
                }
                return format!("{origin} may not land on {to}: {}", landing_refusal(stack, target, is_own));
            }
            if !lyngk_point {
                return if is_own {
                    format!("{to} is not topped by {colour}, so it is no LYNGK point")
                } else {
                    format!("LYNGK chains are only for a colour the mover has claimed ({colour} is not {player}'s)")
                };
            }
            if used & to.bit() != 0 {
                return format!("LYNGK point {to} is used twice");
            }
            used |= to.bit();
        }
        if m.claim.is_none() && !self.has_move_with(player, own) {
            return format!("{player} has no move without claiming a colour");
        }
        "not a legal turn here".into()
    }

    /// Stacks of heights 4, 3, 2 and 1 (in that order) whose top `player` has claimed: the
    /// tie-break of the end of the game.
    pub fn controlled_stacks(&self, player: Player) -> [u32; 4] {
        let mut counts = [0u32; 4];
        for stack in &self.stacks {
            let Some(c) = stack.top_colour() else { continue };
            let h = stack.height();
            if (1..MAX_HEIGHT).contains(&h) && self.claims[player.index()] & c.bit() != 0 {
                counts[(MAX_HEIGHT - 1 - h) as usize] += 1;
            }
        }
        counts
    }

    /// The outcome by the end-of-game rules (meaningful once the game is over), and the
    /// height (4 to 1) whose controlled stacks broke a tie, if one did.
    pub fn ranking(&self) -> (Outcome, Option<u8>) {
        let [one, two] = self.removed;
        if one != two {
            let winner = if one > two { Player::One } else { Player::Two };
            return (Outcome::Win(winner), None);
        }
        let counts = [self.controlled_stacks(Player::One), self.controlled_stacks(Player::Two)];
        for (i, (one, two)) in counts[0].iter().zip(&counts[1]).enumerate() {
            if one != two {
                let winner = if one > two { Player::One } else { Player::Two };
                return (Outcome::Win(winner), Some(MAX_HEIGHT - 1 - i as u8));
            }
        }
        (Outcome::Draw, None)
    }

    pub fn status(&self) -> Status {
        if self.over {
            Status::Over(self.ranking().0)
        } else {
            Status::Ongoing
        }
    }

    /// `player 1 wins: 5-stacks 3 - 2`, with the deciding tie-break when there was one, or
    /// `draw: …`; `game not over: …` while it is being played.
    pub fn result_text(&self) -> String {
        let [one, two] = self.removed;
        let scores = format!("5-stacks {one} - {two}");
        if !self.over {
            return format!("game not over: {scores}");
        }
        match self.ranking() {
            (Outcome::Win(winner), None) => format!("{winner} wins: {scores}"),
            (Outcome::Win(winner), Some(height)) => {
                let i = (MAX_HEIGHT - 1 - height) as usize;
                format!(
                    "{winner} wins: {scores}, controlled stacks of {height} {} - {}",
                    self.controlled_stacks(Player::One)[i],
                    self.controlled_stacks(Player::Two)[i]
                )
            }
            (Outcome::Draw, _) => format!("draw: {scores}, controlled stacks equal"),
        }
    }

    /// A hash of the position (not of the set-up it came from).
    pub fn position_hash(&self) -> u64 {
        let mut h: u64 = 0x243F_6A88_85A3_08D3;
        let mut mix = |v: u64| h = (h.rotate_left(5) ^ v).wrapping_mul(0x517C_C1B7_2722_0A95);
        for stack in &self.stacks {
            mix(stack.packed() as u64);
        }
        mix(self.claims[0] as u64 | (self.claims[1] as u64) << 8 | (self.removed[0] as u64) << 16);
        mix(self.removed[1] as u64 | (self.to_move.index() as u64) << 8);
        mix(self.claimed_now.map_or(0xFF, |c| c.index() as u64));
        match self.moving {
            None => mix(0xFFFF),
            Some(m) => {
                mix(m.origin.index() as u64 | (m.at.index() as u64) << 8 | (m.stack.packed() as u64) << 16);
                mix(m.used);
            }
        }
        let mut z = h;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}
