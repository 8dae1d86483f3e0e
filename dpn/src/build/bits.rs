//! Sets of dense numbers: the instances whose values pass 1 marks as stored (with ranks, for
//! numbering the stored values densely), and the cells of an array that are read.
//!
//! A set is cut into blocks of [`BLOCK`] numbers. A block of few members keeps them as a list
//! and a block of many as a bit each, so a set takes memory for its members, not for its
//! range: GEMM at 4096³ stores one value in 4,096 of 68.7 billion instances, which would be
//! 8.6 GB as a bit per instance.

/// Numbers per block (fewer in unit tests, so that small sets cross blocks and mix lists and
/// bits).
const BLOCK_SHIFT: u32 = if cfg!(test) { 10 } else { 16 };
const BLOCK: u64 = 1 << BLOCK_SHIFT;
const WORDS: usize = (BLOCK / 64) as usize;
/// A list set more often than this turns to bits: it may hold as many members, which at 2
/// bytes a member take as much memory as the block's bits.
const LIST_MAX: usize = WORDS * 4;
/// Members a list takes unsorted before they are sorted in (at least).
const TAIL: usize = 64;

/// Words per rank entry in a block of bits: a rank counts at most this many words more.
const RANK_BLOCK: usize = 8;

/// One block's members, as offsets in the block.
enum Block {
    Empty,
    /// The first `sorted` members sorted and distinct, the rest in the order of [`Bits::set`]
    /// (duplicates allowed) until the list is settled: a member is looked up in the sorted
    /// part before it is added, so a block set again and again stays short. `sets` counts
    /// the calls: a block set more than [`LIST_MAX`] times turns to bits, which are cheaper
    /// to set.
    List {
        members: Vec<u16>,
        sorted: u32,
        sets: u32,
    },
    Bits {
        words: Box<[u64]>,
        /// Per [`RANK_BLOCK`] words, the block's members before them (after [`Bits::index`]).
        ranks: Box<[u32]>,
    },
}

/// A set of the numbers below a bound, with ranks once [`Bits::index`] has run. A set made
/// by [`Bits::new`] must be indexed between its last [`Bits::set`] and its first read; one
/// made by [`Bits::dense`] may be read at any time.
pub(super) struct Bits {
    blocks: Vec<Block>,
    /// Per block, the members before it (after [`Bits::index`]).
    before: Vec<u64>,
    /// Whether a list was written since the last [`Bits::index`].
    unsorted: bool,
}

impl Bits {
    /// An empty set of numbers below `n` whose memory grows with its members.
    pub(super) fn new(n: u64) -> Bits {
        Bits { blocks: (0..n.div_ceil(BLOCK)).map(|_| Block::Empty).collect(), before: Vec::new(), unsorted: false }
    }
    /// An empty set of numbers below `n`, a bit each from the start (an array's cells: set
    /// in any order, read while written).
    pub(super) fn dense(n: u64) -> Bits {
        let mut bits = Bits::new(n);
        bits.blocks.iter_mut().for_each(|b| *b = Block::words());
        bits
    }
    #[inline]
    pub(super) fn set(&mut self, i: u64) {
        let (b, lo) = split(i);
        let block = &mut self.blocks[b];
        block.set(lo);
        self.unsorted |= matches!(block, Block::List { members, sorted, .. } if (*sorted as usize) < members.len());
    }
    #[inline]
    pub(super) fn get(&self, i: u64) -> bool {
        debug_assert!(!self.unsorted, "a set read before it is indexed");
        let (b, lo) = split(i);
        match &self.blocks[b] {
            Block::Empty => false,
            Block::List { members, .. } => members.binary_search(&lo).is_ok(),
            Block::Bits { words, .. } => words[lo as usize / 64] >> (lo % 64) & 1 == 1,
        }
    }
    pub(super) fn count(&self) -> u64 {
        debug_assert!(!self.unsorted, "a set counted before it is indexed");
        self.blocks.iter().map(Block::count).sum()
    }
    /// Adds the members of `other`, a set of the same bound.
    pub(super) fn union(&mut self, other: Bits) {
        self.unsorted = true;
        for (b, theirs) in other.blocks.into_iter().enumerate() {
            match (&mut self.blocks[b], theirs) {
                (_, Block::Empty) => {}
                (mine @ Block::Empty, theirs) => *mine = theirs,
                (Block::Bits { words, .. }, Block::Bits { words: more, .. }) => {
                    words.iter_mut().zip(more.iter()).for_each(|(w, x)| *w |= x)
                }
                (mine, Block::List { members, .. }) => members.iter().for_each(|&lo| mine.set(lo)),
                (mine, theirs @ Block::Bits { .. }) => {
                    let Block::List { members, .. } = std::mem::replace(mine, theirs) else { unreachable!("matched above") };
                    members.iter().for_each(|&lo| mine.set(lo));
                }
            }
        }
    }
    /// Sorts the lists and numbers the members: [`Bits::rank`] from here on.
    pub(super) fn index(&mut self) {
        let mut n = 0;
        self.before = self
            .blocks
            .iter_mut()
            .map(|block| {
                block.settle();
                if let Block::Bits { words, ranks } = block {
                    let mut m = 0;
                    *ranks = words
                        .chunks(RANK_BLOCK)
                        .map(|chunk| {
                            let r = m;
                            m += chunk.iter().map(|w| w.count_ones()).sum::<u32>();
                            r
                        })
                        .collect();
                }
                let b = n;
                n += block.count();
                b
            })
            .collect();
        self.unsorted = false;
    }
    /// Members below `i` (after [`Bits::index`]).
    pub(super) fn rank(&self, i: u64) -> usize {
        let (b, lo) = split(i);
        let within = match &self.blocks[b] {
            Block::Empty => 0,
            Block::List { members, .. } => members.partition_point(|&x| x < lo) as u64,
            Block::Bits { words, ranks } => {
                let w = lo as usize / 64;
                let first = w / RANK_BLOCK * RANK_BLOCK;
                let whole: u32 = words[first..w].iter().map(|x| x.count_ones()).sum();
                (ranks[w / RANK_BLOCK] + whole + (words[w] & ((1u64 << (lo % 64)) - 1)).count_ones()) as u64
            }
        };
        (self.before[b] + within) as usize
    }
    /// The members, in increasing order.
    pub(super) fn members(&self) -> impl Iterator<Item = u64> + '_ {
        debug_assert!(!self.unsorted, "a set listed before it is indexed");
        self.blocks.iter().enumerate().flat_map(|(b, block)| {
            let base = (b as u64) << BLOCK_SHIFT;
            let (list, words): (&[u16], &[u64]) = match block {
                Block::Empty => (&[], &[]),
                Block::List { members, .. } => (members, &[]),
                Block::Bits { words, .. } => (&[], words),
            };
            let from_list = list.iter().map(move |&lo| base + lo as u64);
            let from_words = words.iter().enumerate().flat_map(move |(w, &word)| {
                std::iter::successors((word != 0).then_some(word), |x| Some(x & (x - 1)).filter(|x| *x != 0))
                    .map(move |x| base + 64 * w as u64 + x.trailing_zeros() as u64)
            });
            from_list.chain(from_words)
        })
    }
    /// Whether numbers `a..a + len` and `b..b + len` are members alike, a stretch within
    /// one block of each at a time.
    pub(super) fn same(&self, a: u64, b: u64, len: u64) -> bool {
        debug_assert!(!self.unsorted, "a set read before it is indexed");
        let mut i = 0;
        while i < len {
            let (x, y) = (a + i, b + i);
            let n = (len - i).min(BLOCK - x % BLOCK).min(BLOCK - y % BLOCK);
            // Most blocks of a sparse set hold no member: nothing to compare.
            if !(self.empty(split(x).0) && self.empty(split(y).0) || self.stretch(x, n).same(&self.stretch(y, n))) {
                return false;
            }
            i += n;
        }
        true
    }
    /// Whether numbers `a + s * stride + (0..len)` and `b + s * stride + (0..len)` are
    /// members alike for every `s` in `0..count`. Stretches that lie in blocks without
    /// members on both sides are passed over together.
    pub(super) fn same_strided(&self, a: u64, b: u64, len: u64, stride: u64, count: u64) -> bool {
        debug_assert!(!self.unsorted, "a set read before it is indexed");
        let mut s = 0;
        while s < count {
            let (x, y) = (a + s * stride, b + s * stride);
            let (bx, by) = (split(x).0, split(y).0);
            if stride > 0 && self.empty(bx) && self.empty(by) {
                // The stretches that end within both blocks.
                let last = |from: u64, block: usize| ((block as u64 + 1) * BLOCK).checked_sub(from + len).map(|room| room / stride);
                if let (Some(mx), Some(my)) = (last(x, bx), last(y, by)) {
                    s += 1 + mx.min(my);
                    continue;
                }
            }
            if !self.same(x, y, len) {
                return false;
            }
            s += 1;
        }
        true
    }
    fn empty(&self, block: usize) -> bool {
        matches!(self.blocks[block], Block::Empty)
    }
    /// Numbers `at..at + n`, within one block.
    fn stretch(&self, at: u64, n: u64) -> Stretch<'_> {
        let (b, lo) = split(at);
        let (lo, hi) = (lo as u64, lo as u64 + n);
        match &self.blocks[b] {
            Block::Empty => Stretch::List { members: &[], from: lo },
            Block::List { members, .. } => {
                let (s, e) = (members.partition_point(|&x| (x as u64) < lo), members.partition_point(|&x| (x as u64) < hi));
                Stretch::List { members: &members[s..e], from: lo }
            }
            Block::Bits { words, .. } => Stretch::Bits { words, from: lo, len: n },
        }
    }
}

/// The block of `i` and `i`'s offset in it.
#[inline]
fn split(i: u64) -> (usize, u16) {
    ((i >> BLOCK_SHIFT) as usize, (i % BLOCK) as u16)
}

impl Block {
    fn words() -> Block {
        Block::Bits { words: vec![0; WORDS].into(), ranks: Box::default() }
    }
    /// Sets offset `lo` (while the set is written).
    #[inline]
    fn set(&mut self, lo: u16) {
        match self {
            Block::Empty => *self = Block::List { members: vec![lo], sorted: 1, sets: 1 },
            Block::List { members, sorted, sets } => {
                *sets += 1;
                let many = *sets as usize > LIST_MAX;
                // Runs of one member (a value read by many instances in a row) and members
                // already sorted in are not added again.
                let sorted = *sorted as usize;
                if !many && (members.last() == Some(&lo) || members[..sorted].binary_search(&lo).is_ok()) {
                    return;
                }
                members.push(lo);
                if many {
                    self.make_bits();
                } else if members.len() - sorted > TAIL.max(sorted / 2) {
                    // The unsorted tail is sorted in when it grows by half the sorted part:
                    // each member is sorted in a bounded number of times.
                    self.settle();
                }
            }
            Block::Bits { words, .. } => words[lo as usize / 64] |= 1 << (lo % 64),
        }
    }
    /// Sorts a list and drops its duplicates (a list holds at most [`LIST_MAX`] members: it
    /// turns to bits when set more often).
    fn settle(&mut self) {
        let Block::List { members, sorted, .. } = self else { return };
        members.sort_unstable();
        members.dedup();
        *sorted = members.len() as u32;
    }
    /// A list as bits.
    fn make_bits(&mut self) {
        let Block::List { members, .. } = self else { return };
        let mut words = vec![0u64; WORDS];
        members.iter().for_each(|&lo| words[lo as usize / 64] |= 1 << (lo % 64));
        *self = Block::Bits { words: words.into(), ranks: Box::default() };
    }
    fn count(&self) -> u64 {
        match self {
            Block::Empty => 0,
            Block::List { members, .. } => members.len() as u64,
            Block::Bits { words, .. } => words.iter().map(|w| w.count_ones() as u64).sum(),
        }
    }
}

/// Part of one block: its members in `from..from + len`.
enum Stretch<'a> {
    /// The members, as offsets in the block.
    List {
        members: &'a [u16],
        from: u64,
    },
    Bits {
        words: &'a [u64],
        from: u64,
        len: u64,
    },
}

impl Stretch<'_> {
    /// Whether two stretches of one length hold members at the same places.
    fn same(&self, other: &Stretch) -> bool {
        match (self, other) {
            (Stretch::List { members: m, from: f }, Stretch::List { members: n, from: g }) => {
                m.len() == n.len() && m.iter().zip(*n).all(|(&x, &y)| x as u64 - f == y as u64 - g)
            }
            (Stretch::List { members, from }, Stretch::Bits { words, from: at, len })
            | (Stretch::Bits { words, from: at, len }, Stretch::List { members, from }) => {
                ones(words, *at, *len) == members.len() as u64
                    && members.iter().all(|&x| {
                        let i = x as u64 - from + at;
                        words[i as usize / 64] >> (i % 64) & 1 == 1
                    })
            }
            (Stretch::Bits { words: wa, from: a, len }, Stretch::Bits { words: wb, from: b, .. }) => same_words(wa, *a, wb, *b, *len),
        }
    }
}

/// Members among bits `at..at + n` of `words`.
fn ones(words: &[u64], at: u64, n: u64) -> u64 {
    let mut i = 0;
    let mut c = 0;
    while i < n {
        let k = (n - i).min(64);
        c += window(words, at + i, k).count_ones() as u64;
        i += k;
    }
    c
}

/// Whether bits `a..a + len` of `wa` and `b..b + len` of `wb` are equal, 64 at a time.
fn same_words(wa: &[u64], a: u64, wb: &[u64], b: u64, len: u64) -> bool {
    // Equally aligned (a band shifted by whole rows of a statement's box): the words
    // between the ends compare as slices.
    if a % 64 == b % 64 && len >= 128 {
        let head = (64 - a % 64) % 64;
        let words = (len - head) / 64;
        let (ia, ib) = (((a + head) / 64) as usize, ((b + head) / 64) as usize);
        let tail = len - head - 64 * words;
        return window(wa, a, head) == window(wb, b, head)
            && wa[ia..ia + words as usize] == wb[ib..ib + words as usize]
            && window(wa, a + head + 64 * words, tail) == window(wb, b + head + 64 * words, tail);
    }
    let mut i = 0;
    while i < len {
        let n = (len - i).min(64);
        if window(wa, a + i, n) != window(wb, b + i, n) {
            return false;
        }
        i += n;
    }
    true
}

/// Bits `at..at + n` (`n` at most 64) of `words` as the low bits of a word.
fn window(words: &[u64], at: u64, n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    let (w, s) = ((at / 64) as usize, at % 64);
    let high = if s == 0 { 0 } else { words.get(w + 1).copied().unwrap_or(0) << (64 - s) };
    let v = words[w] >> s | high;
    if n == 64 {
        v
    } else {
        v & ((1u64 << n) - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::{Bits, BLOCK};
    use crate::build::xorshift;

    /// A set of the numbers below `n` that `member` picks, written in the order `order`
    /// gives and then indexed.
    fn set_of(n: u64, member: impl Fn(u64) -> bool, order: impl Iterator<Item = u64>) -> Bits {
        let mut bits = Bits::new(n);
        order.filter(|&i| member(i)).for_each(|i| bits.set(i));
        bits.index();
        bits
    }

    /// Every rank is the count of members below, across blocks and within them, in lists
    /// and in bits, whatever the order the members were set in; the members come out in
    /// order.
    #[test]
    fn ranks_count_the_members_below() {
        let n = 3 * BLOCK + 64 * 37 + 5;
        // Block 0 dense, block 1 sparse, block 2 empty, the last dense, set backwards.
        let member = |i: u64| match i / BLOCK {
            0 | 3 => i % 7 == 0 || i % 64 == 63,
            1 => i % 97 == 0,
            _ => false,
        };
        let bits = set_of(n, member, (0..n).rev().chain(0..n / 2));
        let mut below = 0;
        for i in 0..n {
            assert_eq!(bits.rank(i), below, "rank of {i}");
            assert_eq!(bits.get(i), member(i), "member {i}");
            below += usize::from(bits.get(i));
        }
        assert_eq!(bits.count(), below as u64);
        assert!(bits.members().eq((0..n).filter(|&i| member(i))));
    }

    /// A union holds the members of both sets, whichever of lists and bits each block is.
    #[test]
    fn union_holds_both() {
        let n = 4 * BLOCK;
        let a = |i: u64| (i / BLOCK == 0 && i % 3 == 0) || (i / BLOCK == 2 && i % 101 == 0) || i % 1000 == 7;
        let b = |i: u64| (i / BLOCK == 1 && i % 2 == 0) || (i / BLOCK == 2 && i % 5 == 0) || i % 333 == 1;
        let mut x = Bits::new(n);
        (0..n).filter(|&i| a(i)).for_each(|i| x.set(i));
        let y = set_of(n, b, 0..n);
        x.union(y);
        x.index();
        assert!(x.members().eq((0..n).filter(|&i| a(i) || b(i))));
    }

    /// `same` answers as a bit-by-bit comparison, for ranges equally aligned or not, across
    /// blocks or not, in lists or bits, on sets that differ in one number or in none.
    #[test]
    fn same_compares_as_bit_by_bit() {
        let n = 3 * BLOCK + 64 * 5;
        let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
        for round in 0..1500 {
            // A periodic pattern, so that shifted ranges often agree: dense in some blocks
            // (bits) and sparse in others (lists).
            let (period, dense_block) = (8 + next(100), next(4));
            let mut member: Vec<bool> = (0..n).map(|i| i % period == 0 || (i / BLOCK == dense_block && i % 3 == 0)).collect();
            let len = next(n / 2);
            let a = next(n - len + 1);
            let b = if round % 2 == 0 { (a % 64 + 64 * next((n - len) / 64 + 1)).min(n - len) } else { next(n - len + 1) };
            if round % 3 == 0 && len > 0 {
                let flip = (b + next(len)) as usize;
                member[flip] = !member[flip];
            }
            let bits = set_of(n, |i| member[i as usize], 0..n);
            let expect = (0..len).all(|i| bits.get(a + i) == bits.get(b + i));
            assert_eq!(bits.same(a, b, len), expect, "a {a} b {b} len {len} period {period}");
        }
    }

    /// `same_strided` answers as `same` on each stretch, on a set with empty blocks between
    /// members, stretches in one block or crossing them.
    #[test]
    fn strided_compares_as_each_stretch() {
        let n = 8 * BLOCK;
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15u64);
        for round in 0..3000 {
            // Members in blocks 2 and 5 only (one of them moved on some rounds).
            let moved = if round % 4 == 0 { next(BLOCK) } else { 0 };
            let bits = set_of(n, |i| (i / BLOCK == 2 && i % 50 == 0) || (i / BLOCK == 5 && (i - moved) % 50 == 0), 0..n);
            let (len, stride) = (1 + next(100), next(150));
            let count = 1 + next(30);
            let span = stride * (count - 1) + len;
            let a = next(n - span);
            let b = (if round % 2 == 0 { a + 3 * BLOCK - next(2) * 50 } else { next(n - span) }).min(n - span);
            let expect = (0..count).all(|s| bits.same(a + s * stride, b + s * stride, len));
            assert_eq!(bits.same_strided(a, b, len, stride, count), expect, "a {a} b {b} len {len} stride {stride} count {count}");
        }
    }
}
