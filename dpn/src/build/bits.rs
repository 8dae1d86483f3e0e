//! A bit per instance (the values pass 1 marks as stored), with ranks for dense numbering.

/// A set of dense numbers, with ranks once [`Bits::index`] has run.
pub(super) struct Bits {
    pub(super) words: Vec<u64>,
    /// Per word, the members before it.
    pub(super) before: Vec<u64>,
}

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
            .iter()
            .map(|w| {
                let b = n;
                n += w.count_ones() as u64;
                b
            })
            .collect();
    }
    /// Whether numbers `a..a + len` and `b..b + len` are members alike, 64 at a time.
    pub(super) fn same(&self, a: u64, b: u64, len: u64) -> bool {
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
        let (w, s) = ((at / 64) as usize, at % 64);
        let high = if s == 0 { 0 } else { self.words.get(w + 1).copied().unwrap_or(0) << (64 - s) };
        let v = self.words[w] >> s | high;
        if n == 64 {
            v
        } else {
            v & ((1u64 << n) - 1)
        }
    }
    /// Members below `i` (after [`Bits::index`]).
    pub(super) fn rank(&self, i: u64) -> usize {
        let w = (i / 64) as usize;
        (self.before[w] + (self.words[w] & ((1u64 << (i % 64)) - 1)).count_ones() as u64) as usize
    }
}
