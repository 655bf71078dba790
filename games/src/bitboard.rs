//! Sets of cells as the bits of a `u64`, and the one iterator over them.
//!
//! Every board here fits in 64 bits (ZÈRTZ's 61 cells at most, DVONN's padded 11 × 5 grid,
//! LYNGK's 43 points), so each engine keeps sets of cells as bitboards and walks them the same
//! way: take the lowest set bit, clear it. That loop is written once, here, for any cell type
//! that is a bit position ([`BitCell`]); each engine names its own `Cells<Cell>`.
use std::marker::PhantomData;

/// A cell type whose values are the bit positions of its engine's bitboards.
pub trait BitCell: Copy {
    /// The cell of bit `bit`, found set in a bitboard of the engine's cells.
    fn from_bit(bit: u8) -> Self;
}

/// The cells of a bitboard in increasing bit order; knows its length, so `extend` reserves
/// once.
#[derive(Clone, Copy, Debug)]
pub struct Cells<C> {
    bits: u64,
    cell: PhantomData<C>,
}

impl<C> Cells<C> {
    #[inline]
    pub const fn new(bits: u64) -> Self {
        Cells { bits, cell: PhantomData }
    }
}

impl<C: BitCell> Iterator for Cells<C> {
    type Item = C;

    #[inline]
    fn next(&mut self) -> Option<C> {
        if self.bits == 0 {
            return None;
        }
        let bit = self.bits.trailing_zeros() as u8;
        self.bits &= self.bits - 1;
        Some(C::from_bit(bit))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.bits.count_ones() as usize;
        (n, Some(n))
    }
}

impl<C: BitCell> ExactSizeIterator for Cells<C> {}

#[cfg(test)]
mod tests {
    use super::*;

    impl BitCell for u8 {
        fn from_bit(bit: u8) -> u8 {
            bit
        }
    }

    #[test]
    fn cells_come_lowest_first_and_know_their_count() {
        let cells = Cells::<u8>::new(1 | 1 << 5 | 1 << 63);
        assert_eq!(cells.len(), 3);
        assert_eq!(cells.collect::<Vec<_>>(), [0, 5, 63]);
        assert_eq!(Cells::<u8>::new(0).next(), None);
    }
}
