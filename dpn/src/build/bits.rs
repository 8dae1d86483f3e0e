//! A bit per instance (the values pass 1 marks as stored), with ranks for dense numbering.

/// A set of dense numbers, with ranks once [`Bits::index`] has run.
pub(super) struct Bits {
    pub(super) words: Vec<u64>,
    /// Per block of [`RANK_BLOCK`] words, the members before it.
    pub(super) before: Vec<u64>,
}

/// Words per rank entry: a rank counts at most this many words more, and the ranks take an
/// eighth of the set's own memory rather than as much (a bit per instance is a gigabyte at
/// 2048³).
const RANK_BLOCK: usize = 8;

impl Bits {
    pub(super) fn new(n: u64) -> Bits {
        Bits { words: vec![0; n.div_ceil(64) as usize], before: Vec::new() }
    }
    pub(super) fn set(&mut self, i: u64) {
        self.words[(i / 64) as usize] |= 1 << (i % 64);
    }
    pub(super) fn get(&self, i: u64) -> bool {
        self.words[(i / 64) as usize] >> (i % 64) & 1 == 1
    }
    pub(super) fn count(&self) -> u64 {
        self.words.iter().map(|w| w.count_ones() as u64).sum()
    }
    pub(super) fn index(&mut self) {
        let mut n = 0;
        self.before = self
            .words
            .chunks(RANK_BLOCK)
            .map(|block| {
                let b = n;
                n += block.iter().map(|w| w.count_ones() as u64).sum::<u64>();
                b
            })
            .collect();
    }
    /// Whether numbers `a..a + len` and `b..b + len` are members alike, 64 at a time.
    pub(super) fn same(&self, a: u64, b: u64, len: u64) -> bool {
        // Equally aligned (a band shifted by whole rows of a statement's box): the words
        // between the ends compare as slices.
        if a % 64 == b % 64 && len >= 128 {
            let head = (64 - a % 64) % 64;
            let words = (len - head) / 64;
            let (wa, wb) = (((a + head) / 64) as usize, ((b + head) / 64) as usize);
            let tail = len - head - 64 * words;
            return self.window(a, head) == self.window(b, head)
                && self.words[wa..wa + words as usize] == self.words[wb..wb + words as usize]
                && self.window(a + head + 64 * words, tail) == self.window(b + head + 64 * words, tail);
        }
        let mut i = 0;
        while i < len {
            let n = (len - i).min(64);
            if self.window(a + i, n) != self.window(b + i, n) {
                return false;
            }
            i += n;
        }
        true
    }
    /// Numbers `at..at + n` (`n` at most 64) as the low bits of a word.
    fn window(&self, at: u64, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let (w, s) = ((at / 64) as usize, at % 64);
        let high = if s == 0 { 0 } else { self.words.get(w + 1).copied().unwrap_or(0) << (64 - s) };
        let v = self.words[w] >> s | high;
        if n == 64 {
            v
        } else {
            v & ((1u64 << n) - 1)
        }
    }
    /// The members, in increasing order.
    pub(super) fn members(&self) -> impl Iterator<Item = u64> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &word)| {
            std::iter::successors((word != 0).then_some(word), |x| Some(x & (x - 1)).filter(|x| *x != 0))
                .map(move |x| 64 * w as u64 + x.trailing_zeros() as u64)
        })
    }
    /// Members below `i` (after [`Bits::index`]).
    pub(super) fn rank(&self, i: u64) -> usize {
        let w = (i / 64) as usize;
        let block = w / RANK_BLOCK;
        let whole: u64 = self.words[block * RANK_BLOCK..w].iter().map(|x| x.count_ones() as u64).sum();
        (self.before[block] + whole + (self.words[w] & ((1u64 << (i % 64)) - 1)).count_ones() as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::Bits;

    /// Every rank is the count of members below, across blocks and within them; the members
    /// come out in order.
    #[test]
    fn ranks_count_the_members_below() {
        let n = 64 * 37 + 5;
        let mut bits = Bits::new(n);
        (0..n).filter(|i| i % 7 == 0 || i % 64 == 63).for_each(|i| bits.set(i));
        bits.index();
        let mut below = 0;
        for i in 0..n {
            assert_eq!(bits.rank(i), below, "rank of {i}");
            below += usize::from(bits.get(i));
        }
        assert!(bits.members().eq((0..n).filter(|&i| bits.get(i))));
    }

    /// `same` answers as a bit-by-bit comparison, for ranges equally aligned or not, reaching
    /// the set's last word or not, on sets that differ in one bit or in none.
    #[test]
    fn same_compares_as_bit_by_bit() {
        let n = 64 * 40;
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for round in 0..4000 {
            let mut bits = Bits::new(n);
            // A periodic pattern, so that shifted ranges often agree.
            let period = 1 + next(130);
            (0..n).filter(|i| i % period == 0).for_each(|i| bits.set(i));
            let len = next(n / 2);
            let a = next(n - len + 1);
            let b = if round % 2 == 0 { (a % 64 + 64 * next((n - len) / 64 + 1)).min(n - len) } else { next(n - len + 1) };
            if round % 3 == 0 && len > 0 {
                let flip = b + next(len);
                bits.words[(flip / 64) as usize] ^= 1 << (flip % 64);
            }
            let expect = (0..len).all(|i| bits.get(a + i) == bits.get(b + i));
            assert_eq!(bits.same(a, b, len), expect, "a {a} b {b} len {len} period {period}");
        }
    }
}
