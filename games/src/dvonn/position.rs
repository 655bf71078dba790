//! A DVONN position and the rules that act on it.
//!
//! What a position keeps: for every occupied space the stack's height, its top piece (which
//! decides who controls it) and whether a DVONN piece is somewhere inside it (which keeps it,
//! and everything joined to it, on the board). The colours buried under the top never matter
//! again — a stack only ever moves as a whole and is counted as a whole — so they are not
//! kept. A top piece that is a DVONN piece is always a lone DVONN piece: DVONN pieces never
//! move by themselves, so nothing ever ends up under one.
use std::ops::ControlFlow;

use super::geometry::{self, cells, Cell, Direction, GRID};
use super::turn::{Decoded, Turn};
use crate::error::{SetupError, TurnError};
use crate::game::{Action, Outcome, Player, Status};

/// Pieces of each colour, and DVONN pieces.
pub const PIECES_PER_COLOUR: usize = 23;
pub const DVONN_PIECES: usize = 3;
/// Placements in phase 1: every space gets one piece.
pub const PLACEMENTS: u8 = 49;

/// A piece: White's, Black's or a red DVONN piece.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Piece {
    White,
    Black,
    Dvonn,
}

impl Piece {
    /// The piece of a player's colour (White is player one).
    pub fn of(player: Player) -> Piece {
        match player {
            Player::One => Piece::White,
            Player::Two => Piece::Black,
        }
    }

    /// The player who controls a stack with this piece on top.
    pub fn owner(self) -> Option<Player> {
        match self {
            Piece::White => Some(Player::One),
            Piece::Black => Some(Player::Two),
            Piece::Dvonn => None,
        }
    }

    fn letter(self) -> char {
        match self {
            Piece::White => 'W',
            Piece::Black => 'B',
            Piece::Dvonn => 'D',
        }
    }
}

/// `white` or `black`: the players as DVONN names them.
pub fn colour_name(player: Player) -> &'static str {
    match player {
        Player::One => "white",
        Player::Two => "black",
    }
}

/// What a position knows of one stack.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Stack {
    /// Number of pieces; also the exact distance the stack moves.
    pub height: u8,
    /// The top piece, which decides who controls the stack.
    pub top: Piece,
    /// Whether a DVONN piece is in the stack (at any level).
    pub has_dvonn: bool,
}

/// Where phase 2 stands for the player to move; kept up to date by `apply` so that listing
/// the legal actions never has to look at the opponent's moves.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum Mobility {
    /// Phase 1.
    Placing,
    /// The player to move has a move.
    Moves,
    /// The player to move has none but the opponent has: a pass.
    MustPass,
    /// Neither player can move.
    Over,
}

/// A DVONN position: the board, how many pieces have been placed and the player to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dvonn {
    heights: [u8; GRID],
    occupied: u64,
    /// Stacks with a white piece on top.
    white: u64,
    /// Stacks with a black piece on top.
    black: u64,
    /// Stacks holding at least one DVONN piece.
    dvonn: u64,
    placed: u8,
    to_move: Player,
    mobility: Mobility,
}

impl Default for Dvonn {
    fn default() -> Self {
        Dvonn::new()
    }
}

impl Dvonn {
    /// The empty board: White places the first DVONN piece.
    pub fn new() -> Dvonn {
        Dvonn {
            heights: [0; GRID],
            occupied: 0,
            white: 0,
            black: 0,
            dvonn: 0,
            placed: 0,
            to_move: Player::One,
            mobility: Mobility::Placing,
        }
    }

    /// A phase-2 position from its stacks (space, pieces bottom → top) and the player to move.
    ///
    /// Refuses what play can never reach: a space given twice, an empty stack, more than 23
    /// pieces of a colour, other than three DVONN pieces, a DVONN piece on top of other
    /// pieces, and a stack that no chain of occupied spaces joins to a DVONN piece (it would
    /// have been removed).
    pub fn from_stacks<S: AsRef<[Piece]>>(
        stacks: impl IntoIterator<Item = (Cell, S)>,
        to_move: Player,
    ) -> Result<Dvonn, SetupError> {
        let mut position = Dvonn { placed: PLACEMENTS, to_move, ..Dvonn::new() };
        let mut counts = [0usize; 3];
        for (cell, pieces) in stacks {
            let pieces = pieces.as_ref();
            if position.occupied & cell.bit() != 0 {
                return Err(SetupError(format!("space {cell} is given twice")));
            }
            let Some(&top) = pieces.last() else {
                return Err(SetupError(format!("the stack on {cell} has no pieces")));
            };
            if top == Piece::Dvonn && pieces.len() > 1 {
                return Err(SetupError(format!(
                    "the stack on {cell} has a DVONN piece on top of other pieces, which play never leads to"
                )));
            }
            for &piece in pieces {
                counts[piece as usize] += 1;
            }
            position.put(cell, top, pieces.len(), pieces.contains(&Piece::Dvonn));
        }
        if counts[Piece::White as usize] > PIECES_PER_COLOUR || counts[Piece::Black as usize] > PIECES_PER_COLOUR {
            return Err(SetupError(format!(
                "{} white and {} black pieces: each player has only {PIECES_PER_COLOUR}",
                counts[0], counts[1]
            )));
        }
        if counts[Piece::Dvonn as usize] != DVONN_PIECES {
            return Err(SetupError(format!(
                "{} DVONN pieces: phase 2 always has all {DVONN_PIECES} on the board",
                counts[2]
            )));
        }
        let cut_off = position.occupied & !geometry::connected(position.dvonn, position.occupied);
        if let Some(cell) = cells(cut_off).next() {
            return Err(SetupError(format!(
                "the stack on {cell} is not joined to any DVONN piece, so it would have been removed"
            )));
        }
        position.update_mobility();
        Ok(position)
    }

    /// A phase-2 position from text: stacks `space:pieces` separated by white space or commas,
    /// pieces bottom → top as `w`, `b`, `d` (either case), e.g. `"e3:wbd"` is wrong (a DVONN
    /// piece on top) but `"e3:dbw f3:d c3:b"` reads. See [`Dvonn::from_stacks`] for what is
    /// refused.
    pub fn from_setup(text: &str, to_move: Player) -> Result<Dvonn, SetupError> {
        let mut stacks = Vec::new();
        for item in text.split(|c: char| c.is_whitespace() || c == ',').filter(|s| !s.is_empty()) {
            let (name, pieces) = item
                .split_once(':')
                .ok_or_else(|| SetupError(format!("\"{item}\": expected space:pieces, e.g. e3:dbw")))?;
            let cell = Cell::from_name(name).map_err(SetupError)?;
            let pieces = pieces
                .chars()
                .map(|c| match c.to_ascii_lowercase() {
                    'w' => Ok(Piece::White),
                    'b' => Ok(Piece::Black),
                    'd' => Ok(Piece::Dvonn),
                    other => Err(SetupError(format!(
                        "\"{item}\": '{other}' is no piece (w, b or d, bottom to top)"
                    ))),
                })
                .collect::<Result<Vec<_>, _>>()?;
            stacks.push((cell, pieces));
        }
        Dvonn::from_stacks(stacks, to_move)
    }

    /// The stack on `cell`, if any.
    pub fn stack(&self, cell: Cell) -> Option<Stack> {
        (self.occupied & cell.bit() != 0).then(|| Stack {
            height: self.heights[cell.grid()],
            top: self.top(cell),
            has_dvonn: self.dvonn & cell.bit() != 0,
        })
    }

    /// Occupied spaces as a bitboard over the padded grid ([`Cell::bit`]).
    pub fn occupied(&self) -> u64 {
        self.occupied
    }

    /// Pieces placed so far (49 in phase 2).
    pub fn placed(&self) -> usize {
        self.placed as usize
    }

    /// True in phase 1.
    pub fn is_placing(&self) -> bool {
        self.placed < PLACEMENTS
    }

    /// The piece the next placement puts down: DVONN pieces for placements 1–3, then the
    /// placing player's colour. `None` in phase 2.
    pub fn next_piece(&self) -> Option<Piece> {
        match self.placed {
            0..=2 => Some(Piece::Dvonn),
            PLACEMENTS.. => None,
            _ => Some(Piece::of(self.to_move)),
        }
    }

    /// The player to move.
    pub fn to_move(&self) -> Player {
        self.to_move
    }

    /// Pieces in the stacks each player controls, indexed by [`Player::index`].
    pub fn score(&self) -> [u32; 2] {
        [self.white, self.black].map(|set| cells(set).map(|c| self.heights[c.grid()] as u32).sum())
    }

    /// Ongoing, or the outcome once neither player can move.
    pub fn status(&self) -> Status {
        if self.mobility != Mobility::Over {
            return Status::Ongoing;
        }
        let [white, black] = self.score();
        Status::Over(match white.cmp(&black) {
            std::cmp::Ordering::Greater => Outcome::Win(Player::One),
            std::cmp::Ordering::Less => Outcome::Win(Player::Two),
            std::cmp::Ordering::Equal => Outcome::Draw,
        })
    }

    /// The player to move has no move but the opponent has one.
    pub fn must_pass(&self) -> bool {
        self.mobility == Mobility::MustPass
    }

    fn top(&self, cell: Cell) -> Piece {
        if self.white & cell.bit() != 0 {
            Piece::White
        } else if self.black & cell.bit() != 0 {
            Piece::Black
        } else {
            Piece::Dvonn
        }
    }

    fn controlled(&self, player: Player) -> u64 {
        match player {
            Player::One => self.white,
            Player::Two => self.black,
        }
    }

    fn put(&mut self, cell: Cell, top: Piece, height: usize, has_dvonn: bool) {
        let bit = cell.bit();
        self.occupied |= bit;
        self.heights[cell.grid()] = height as u8;
        match top {
            Piece::White => self.white |= bit,
            Piece::Black => self.black |= bit,
            Piece::Dvonn => {}
        }
        if has_dvonn {
            self.dvonn |= bit;
        }
    }

    fn clear(&mut self, set: u64) {
        self.occupied &= !set;
        self.white &= !set;
        self.black &= !set;
        self.dvonn &= !set;
        for cell in cells(set) {
            self.heights[cell.grid()] = 0;
        }
    }

    /// Visits `player`'s moves (origin, direction, destination) in action order until the
    /// visitor breaks.
    fn visit_moves(
        &self,
        player: Player,
        mut visit: impl FnMut(Cell, Direction, Cell) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let mobile = self.controlled(player) & !geometry::surrounded(self.occupied);
        for from in cells(mobile) {
            let height = self.heights[from.grid()] as usize;
            // Most stacks have no landing space at all: one test skips them.
            if from.targets(height) & self.occupied == 0 {
                continue;
            }
            for (direction, bit) in Direction::ALL.into_iter().zip(from.ray_bits(height)) {
                if self.occupied >> bit & 1 != 0 {
                    visit(from, direction, Cell::from_board_bit(bit))?;
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn has_move(&self, player: Player) -> bool {
        self.visit_moves(player, |_, _, _| ControlFlow::Break(())).is_break()
    }

    /// Spaces from which `player` has a move (whoever is to move).
    pub fn movable(&self, player: Player) -> u64 {
        let mut set = 0;
        let _ = self.visit_moves(player, |from, _, _| {
            set |= from.bit();
            ControlFlow::Continue(())
        });
        set
    }

    fn update_mobility(&mut self) {
        self.mobility = if self.is_placing() {
            Mobility::Placing
        } else if self.has_move(self.to_move) {
            Mobility::Moves
        } else if self.has_move(self.to_move.other()) {
            Mobility::MustPass
        } else {
            Mobility::Over
        };
    }

    /// Visits the legal turns, each with its action, in action order.
    #[inline]
    fn visit_legal(&self, mut visit: impl FnMut(Decoded, Turn)) {
        match self.mobility {
            Mobility::Placing => {
                for cell in cells(geometry::BOARD & !self.occupied) {
                    visit(Decoded::Place(cell), Turn::Place(cell));
                }
            }
            Mobility::Moves => {
                let _ = self.visit_moves(self.to_move, |from, direction, to| {
                    visit(Decoded::Move(from, direction), Turn::Move { from, to });
                    ControlFlow::Continue(())
                });
            }
            Mobility::MustPass => visit(Decoded::Pass, Turn::Pass),
            Mobility::Over => {}
        }
    }

    pub(crate) fn write_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        self.visit_legal(|decoded, _| out.push(decoded.action()));
    }

    pub(crate) fn write_turns(&self, out: &mut Vec<Turn>) {
        out.clear();
        self.visit_legal(|_, turn| out.push(turn));
    }

    pub(crate) fn apply_action(&mut self, action: Action) {
        match Decoded::of(action) {
            Decoded::Place(cell) => {
                debug_assert!(self.is_placing() && self.occupied & cell.bit() == 0, "illegal placement {cell}");
                let piece = self.next_piece().unwrap_or(Piece::of(self.to_move));
                self.put(cell, piece, 1, piece == Piece::Dvonn);
                self.placed += 1;
                // Placements alternate, White making the odd ones; White, who makes the 49th,
                // also makes the first move of phase 2.
                self.to_move = if self.placed % 2 == 1 && self.placed < PLACEMENTS {
                    Player::Two
                } else {
                    Player::One
                };
            }
            Decoded::Move(from, direction) => {
                debug_assert_eq!(self.mobility, Mobility::Moves);
                debug_assert!(self.controlled(self.to_move) & from.bit() != 0, "no stack of the mover on {from}");
                let height = self.heights[from.grid()] as usize;
                let to = from.step(direction, height).expect("a legal move stays on the board");
                debug_assert!(self.occupied & to.bit() != 0, "a move must land on a stack");
                let top = self.top(from);
                let has_dvonn = self.dvonn & (from.bit() | to.bit()) != 0;
                let below = self.heights[to.grid()] as usize;
                self.clear(from.bit() | to.bit());
                self.put(to, top, height + below, has_dvonn);
                let cut_off = self.occupied & !geometry::connected(self.dvonn, self.occupied);
                self.clear(cut_off);
                self.to_move = self.to_move.other();
            }
            Decoded::Pass => {
                debug_assert_eq!(self.mobility, Mobility::MustPass);
                self.to_move = self.to_move.other();
            }
        }
        self.update_mobility();
    }

    /// Why `turn` is not legal here, or `Ok` when it is.
    pub fn check_turn(&self, turn: Turn) -> Result<(), TurnError> {
        let illegal = |why: String| Err(TurnError::Illegal(why));
        let mover = colour_name(self.to_move);
        if self.mobility == Mobility::Over {
            return illegal("the game is over".into());
        }
        match turn {
            Turn::Place(cell) => {
                if !self.is_placing() {
                    return illegal(format!("all 49 pieces are placed: {mover} must move a stack or pass"));
                }
                if self.occupied & cell.bit() != 0 {
                    return illegal(format!("{cell} is already occupied"));
                }
                Ok(())
            }
            Turn::Move { from, to } => {
                if self.is_placing() {
                    let left = PLACEMENTS - self.placed;
                    return illegal(format!("{left} pieces are still to be placed before stacks move"));
                }
                let Some(stack) = self.stack(from) else {
                    return illegal(format!("there is no stack on {from}"));
                };
                match stack.top.owner() {
                    None => return illegal(format!("the DVONN piece on {from} never moves by itself")),
                    Some(owner) if owner != self.to_move => {
                        return illegal(format!("the stack on {from} has a {} piece on top", colour_name(owner)));
                    }
                    Some(_) => {}
                }
                if geometry::surrounded(self.occupied) & from.bit() != 0 {
                    return illegal(format!("the stack on {from} is surrounded on all six sides"));
                }
                let Some((_, distance)) = from.line_to(to) else {
                    return illegal(format!("{from} and {to} are not on one straight line"));
                };
                if distance != stack.height as usize {
                    return illegal(format!(
                        "the stack on {from} has height {}, so it moves exactly {} spaces, not {distance}",
                        stack.height, stack.height
                    ));
                }
                if self.occupied & to.bit() == 0 {
                    return illegal(format!("{to} is empty: a move must end on an occupied space"));
                }
                Ok(())
            }
            Turn::Pass => match self.mobility {
                Mobility::Placing => illegal("no pass while pieces are being placed".into()),
                Mobility::MustPass => Ok(()),
                _ => illegal(format!("{mover} has a legal move, so may not pass")),
            },
        }
    }

    /// The single action of a turn legal here.
    pub(crate) fn turn_action(&self, turn: Turn) -> Action {
        match turn {
            Turn::Place(cell) => Decoded::Place(cell),
            Turn::Move { from, to } => {
                let (direction, _) = from.line_to(to).expect("a legal move runs along a line");
                Decoded::Move(from, direction)
            }
            Turn::Pass => Decoded::Pass,
        }
        .action()
    }

    /// The turn of a legal action.
    pub fn action_turn(&self, action: Action) -> Turn {
        match Decoded::of(action) {
            Decoded::Place(cell) => Turn::Place(cell),
            Decoded::Move(from, direction) => Turn::Move {
                from,
                to: from
                    .step(direction, self.heights[from.grid()] as usize)
                    .unwrap_or(from),
            },
            Decoded::Pass => Turn::Pass,
        }
    }

    /// The forced 49th placement, when one empty space is left.
    pub(crate) fn last_empty_space(&self) -> Option<Cell> {
        (self.placed == PLACEMENTS - 1).then(|| cells(geometry::BOARD & !self.occupied).next()).flatten()
    }

    /// The position with every space and direction moved by `sym`.
    pub(crate) fn transformed(&self, sym: &super::symmetries::Symmetry) -> Dvonn {
        let mut image = Dvonn { heights: [0; GRID], ..*self };
        for cell in cells(self.occupied) {
            image.heights[sym.cell(cell).grid()] = self.heights[cell.grid()];
        }
        image.occupied = sym.bitboard(self.occupied);
        image.white = sym.bitboard(self.white);
        image.black = sym.bitboard(self.black);
        image.dvonn = sym.bitboard(self.dvonn);
        image
    }

    /// A hash of the whole position, with a SplitMix64 finaliser folded over the stacks.
    pub(crate) fn hash64(&self) -> u64 {
        let mix = |mut z: u64| {
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let mut hash = mix(0x9E37_79B9_7F4A_7C15 ^ self.placed as u64 ^ (self.to_move.index() as u64) << 8);
        for cell in cells(self.occupied) {
            let stack = self.stack(cell).expect("occupied");
            let word = (cell.grid() as u64) << 16
                | (stack.height as u64) << 8
                | (stack.top as u64) << 1
                | stack.has_dvonn as u64;
            hash = mix(hash.wrapping_add(0x9E37_79B9_7F4A_7C15) ^ word);
        }
        hash
    }

    /// A text drawing: rows 5 to 1 between the names of their end rows, each stack as its top
    /// piece (`W`, `B`, `D`), its height and `*` when a DVONN piece is inside; `.` for an
    /// empty space.
    pub fn render_text(&self) -> String {
        // Each row sits half a space (two characters) left of the row above it; rows 1 and 5
        // line up, so their names frame the drawing.
        let line = |prefix: &str, row: i32, draw: &dyn Fn(Cell) -> String| {
            let mut line = prefix.to_string();
            for cell in Cell::ALL.into_iter().filter(|c| c.row() == row) {
                let column = (4 * cell.letter() - 2 * (row - 1) + 6) as usize;
                line.extend(std::iter::repeat_n(' ', column.saturating_sub(line.len())));
                line.push_str(&draw(cell));
            }
            line + "\n"
        };
        let name = |cell: Cell| cell.to_string();
        let stack = |cell: Cell| match self.stack(cell) {
            None => ".".to_string(),
            Some(s) => format!("{}{}{}", s.top.letter(), s.height, if s.has_dvonn && s.height > 1 { "*" } else { "" }),
        };
        let mut text = line("", 5, &name);
        for row in (1..=5).rev() {
            text.push_str(&line(&format!("{row} "), row, &stack));
        }
        text.push_str(&line("", 1, &name));
        let [white, black] = self.score();
        let mover = colour_name(self.to_move);
        match self.mobility {
            Mobility::Placing => text.push_str(&format!(
                "phase 1: placement {} of 49, {mover} places a {} piece\n",
                self.placed + 1,
                match self.next_piece() {
                    Some(Piece::Dvonn) => "DVONN",
                    _ => mover,
                }
            )),
            Mobility::Moves => text.push_str(&format!("phase 2: {mover} to move\n")),
            Mobility::MustPass => text.push_str(&format!("phase 2: {mover} to move, has no move and must pass\n")),
            Mobility::Over => text.push_str(&format!("game over: {}\n", self.result_text())),
        }
        text.push_str(&format!("score: white {white} - black {black}\n"));
        text
    }

    /// `white 21 - black 18: white wins` (or `: draw`); while the game goes on,
    /// `white 21 - black 18: not over`.
    pub fn result_text(&self) -> String {
        let [white, black] = self.score();
        let verdict = match self.status() {
            Status::Ongoing => "not over".to_string(),
            Status::Over(Outcome::Draw) => "draw".to_string(),
            Status::Over(Outcome::Win(player)) => format!("{} wins", colour_name(player)),
        };
        format!("white {white} - black {black}: {verdict}")
    }
}
