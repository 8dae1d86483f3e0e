//! Per-cell state of one array during construction (its DDR version, where it was last
//! loaded). A network touches only the cells its kernel accesses, however large the array is
//! declared: small arrays keep a dense table, large ones a map of the cells touched, so that
//! memory follows the accesses and not the declared extent.

use std::collections::HashMap;

/// Arrays of at most this many cells are dense (a table of them costs at most 192 MiB).
const DENSE_CELLS: usize = 1 << 24;

pub(super) enum CellTable<T> {
    Dense(Vec<T>),
    Sparse(HashMap<usize, T>),
}

impl<T: Copy + Default> CellTable<T> {
    /// A table of `cells` cells, all `T::default()`.
    pub(super) fn new(cells: usize) -> CellTable<T> {
        if cells <= DENSE_CELLS {
            CellTable::Dense(vec![T::default(); cells])
        } else {
            CellTable::Sparse(HashMap::new())
        }
    }

    pub(super) fn get(&self, cell: usize) -> T {
        match self {
            CellTable::Dense(v) => v[cell],
            CellTable::Sparse(m) => m.get(&cell).copied().unwrap_or_default(),
        }
    }

    pub(super) fn get_mut(&mut self, cell: usize) -> &mut T {
        match self {
            CellTable::Dense(v) => &mut v[cell],
            CellTable::Sparse(m) => m.entry(cell).or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_and_sparse_tables_agree() {
        let mut dense: CellTable<(u32, u32)> = CellTable::new(100);
        let mut sparse: CellTable<(u32, u32)> = CellTable::new(DENSE_CELLS + 1);
        assert!(matches!(sparse, CellTable::Sparse(_)));
        for (k, cell) in [3usize, 97, 3, 50].into_iter().enumerate() {
            for t in [&mut dense, &mut sparse] {
                t.get_mut(cell).0 += 1;
                t.get_mut(cell).1 = k as u32;
            }
        }
        for cell in 0..100 {
            assert_eq!(dense.get(cell), sparse.get(cell), "cell {cell}");
        }
        assert_eq!(sparse.get(3), (2, 2));
        assert_eq!(sparse.get(DENSE_CELLS), (0, 0));
    }
}
