//! Pieces, colours and stacks.
//!
//! A stack is at most five pieces, so it packs into a `u16` (three bits per piece, bottom
//! first) beside its height and the set of colours it holds: the two questions every move
//! asks — "does a colour repeat?" and "how high would it be?" — are one AND and one add.
use std::fmt;

/// One of the five colours (jokers are no colour).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Colour(u8);

impl Colour {
    pub const COUNT: usize = 5;
    pub const IVORY: Colour = Colour(0);
    pub const BLUE: Colour = Colour(1);
    pub const RED: Colour = Colour(2);
    pub const GREEN: Colour = Colour(3);
    pub const BLACK: Colour = Colour(4);
    pub const ALL: [Colour; 5] = [Colour(0), Colour(1), Colour(2), Colour(3), Colour(4)];
    const LETTERS: [char; 5] = ['I', 'B', 'R', 'G', 'K'];

    pub fn new(index: usize) -> Option<Colour> {
        (index < Self::COUNT).then_some(Colour(index as u8))
    }

    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The colour as a one-bit set.
    #[inline]
    pub fn bit(self) -> u8 {
        1 << self.0
    }

    pub fn letter(self) -> char {
        Self::LETTERS[self.index()]
    }

    pub fn from_letter(letter: char) -> Option<Colour> {
        Self::LETTERS.iter().position(|&l| l == letter).map(|i| Colour(i as u8))
    }

    /// The colours of a set, in order.
    pub fn members(set: u8) -> impl Iterator<Item = Colour> {
        Self::ALL.into_iter().filter(move |c| set & c.bit() != 0)
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// A piece: a colour or a joker.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Piece {
    Coloured(Colour),
    Joker,
}

impl Piece {
    /// Code 0–4 for the colours, 5 for the joker (the packed stack stores code + 1).
    #[inline]
    fn code(self) -> u16 {
        match self {
            Piece::Coloured(c) => c.0 as u16,
            Piece::Joker => 5,
        }
    }

    #[inline]
    fn from_code(code: u16) -> Piece {
        if code == 5 {
            Piece::Joker
        } else {
            Piece::Coloured(Colour(code as u8))
        }
    }

    pub fn letter(self) -> char {
        match self {
            Piece::Coloured(c) => c.letter(),
            Piece::Joker => 'W',
        }
    }

    pub fn from_letter(letter: char) -> Option<Piece> {
        if letter == 'W' {
            Some(Piece::Joker)
        } else {
            Colour::from_letter(letter).map(Piece::Coloured)
        }
    }

    pub fn colour(self) -> Option<Colour> {
        match self {
            Piece::Coloured(c) => Some(c),
            Piece::Joker => None,
        }
    }
}

/// A stack of 0 to 5 pieces. The empty stack stands for an empty point.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Stack {
    /// Piece codes + 1, three bits each, bottom piece in the lowest bits.
    packed: u16,
    height: u8,
    /// Set of the colours in the stack (jokers not included).
    colours: u8,
}

/// The highest stack the rules allow.
pub const MAX_HEIGHT: u8 = 5;

impl Stack {
    pub const EMPTY: Stack = Stack { packed: 0, height: 0, colours: 0 };

    /// A single piece.
    #[inline]
    pub fn single(piece: Piece) -> Stack {
        Stack {
            packed: piece.code() + 1,
            height: 1,
            colours: piece.colour().map_or(0, Colour::bit),
        }
    }

    /// A stack from its pieces bottom to top, if it keeps the rules (at most 5 pieces, no
    /// colour twice).
    pub fn from_pieces(pieces: &[Piece]) -> Option<Stack> {
        pieces.iter().try_fold(Stack::EMPTY, |stack, &piece| {
            let single = Stack::single(piece);
            stack.fits_under(single).then(|| stack.put(single))
        })
    }

    #[inline]
    pub fn height(self) -> u8 {
        self.height
    }

    #[inline]
    pub fn is_empty(self) -> bool {
        self.height == 0
    }

    /// The set of colours in the stack.
    #[inline]
    pub fn colours(self) -> u8 {
        self.colours
    }

    /// The top piece (the stack must not be empty).
    #[inline]
    pub fn top(self) -> Piece {
        debug_assert!(self.height > 0);
        Piece::from_code(((self.packed >> (3 * (self.height - 1))) & 7) - 1)
    }

    /// The top colour, `None` for a joker on top or an empty stack.
    #[inline]
    pub fn top_colour(self) -> Option<Colour> {
        if self.height == 0 {
            None
        } else {
            self.top().colour()
        }
    }

    /// The pieces bottom to top.
    pub fn pieces(self) -> impl Iterator<Item = Piece> {
        (0..self.height).map(move |i| Piece::from_code(((self.packed >> (3 * i)) & 7) - 1))
    }

    /// Number of jokers in the stack.
    pub fn jokers(self) -> u8 {
        self.height - self.colours.count_ones() as u8
    }

    /// Whether `upper` may be put on this stack as far as rule 3 of Moving goes: at most 5
    /// pieces and no colour twice.
    #[inline]
    pub fn fits_under(self, upper: Stack) -> bool {
        self.height + upper.height <= MAX_HEIGHT && self.colours & upper.colours == 0
    }

    /// This stack with `upper` put on top (which must fit).
    #[inline]
    pub fn put(self, upper: Stack) -> Stack {
        Stack {
            packed: self.packed | (upper.packed << (3 * self.height)),
            height: self.height + upper.height,
            colours: self.colours | upper.colours,
        }
    }

    /// The stack with every colour renamed by `map` (jokers stay jokers).
    pub fn recoloured(self, map: &[Colour; 5]) -> Stack {
        let mut out = Stack::EMPTY;
        for piece in self.pieces() {
            let piece = match piece {
                Piece::Coloured(c) => Piece::Coloured(map[c.index()]),
                Piece::Joker => Piece::Joker,
            };
            out = out.put(Stack::single(piece));
        }
        out
    }

    /// A compact number for hashing.
    #[inline]
    pub(crate) fn packed(self) -> u16 {
        self.packed
    }
}

impl fmt::Display for Stack {
    /// The pieces bottom to top, `.` for an empty point.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str(".");
        }
        for piece in self.pieces() {
            write!(f, "{}", piece.letter())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stack(text: &str) -> Option<Stack> {
        let pieces: Vec<Piece> = text.chars().map(|c| Piece::from_letter(c).unwrap()).collect();
        Stack::from_pieces(&pieces)
    }

    #[test]
    fn stacks_keep_order_and_top() {
        let s = stack("RWBW").unwrap();
        assert_eq!(s.to_string(), "RWBW");
        assert_eq!(s.top(), Piece::Joker);
        assert_eq!(s.jokers(), 2);
        assert_eq!(s.colours(), Colour::RED.bit() | Colour::BLUE.bit());
        assert_eq!(stack("IBRGK").unwrap().top_colour(), Some(Colour::BLACK));
    }

    #[test]
    fn stacks_refuse_repeated_colours_and_height_over_five() {
        assert!(stack("RBR").is_none());
        assert!(stack("WWW").is_some());
        assert!(stack("IBRGKW").is_none());
        assert!(stack("IBWGKW").is_none());
    }
}
