//! The tile shape as the command line gives it: `--tile` and `--par` lists, one entry per band
//! hyperplane, the last one repeating.

/// The tile size of a hyperplane that no `--tile` value names.
pub const DEFAULT_TILE: i64 = 32;

/// The tile size along hyperplane `d` under the `--tile` list `tile`.
pub fn tile_size(tile: &[i64], d: usize) -> i64 {
    entry(tile, d).unwrap_or(DEFAULT_TILE)
}

/// The sub-bands along hyperplane `d` under the `--par` list `par` (one when it is empty).
pub fn par_size(par: &[i64], d: usize) -> i64 {
    entry(par, d).unwrap_or(1)
}

fn entry(list: &[i64], d: usize) -> Option<i64> {
    list.get(d).or(list.last()).copied()
}
