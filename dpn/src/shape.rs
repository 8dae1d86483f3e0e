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

/// How `--par` divides a tile among its sub-bands along one hyperplane (`--subbands`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Layout {
    /// Interleaved along the hyperplanes that carry no dependence, and along the others where
    /// a band is one tile along its last hyperplane; slices elsewhere.
    #[default]
    Auto,
    /// Sub-band ℓ of q takes the ℓ-th of q consecutive slices of the tile.
    Slices,
    /// Sub-band ℓ takes every q-th point from the tile's ℓ-th (where q divides the tile).
    Interleaved,
}

/// Whether `q` sub-bands of a tile of `size` along a hyperplane take every `q`-th point
/// (`φ mod q`) rather than a slice each; `carries`: some dependence of the nest has a
/// positive distance along the hyperplane; `one_tile`: the nest's bands are one tile along
/// their last hyperplane.
///
/// Interleaved, a band cut short by the domain (GEMM's last rows) is still split evenly. But
/// along a hyperplane that carries values from sub-band to sub-band (Jacobi-1D's time), the
/// sub-bands then form a ring that every q rows of a tile wait around, while slices form a
/// chain that each sub-band joins once the one before it has done most of a tile. The ring
/// waits per tile, the chain fills once per band: `Auto` interleaves there only where a band
/// is one tile, whose rows the chain would pass on whole.
pub fn interleaved(layout: Layout, size: i64, q: i64, carries: bool, one_tile: bool) -> bool {
    let can = q > 1 && size % q == 0;
    match layout {
        Layout::Auto => can && (!carries || one_tile),
        Layout::Slices => false,
        Layout::Interleaved => can,
    }
}

/// The sub-band, of `q` along a hyperplane with tiles of `size` ([`interleaved`] or not),
/// of a point where the hyperplane takes the value `phi`.
pub fn subband_of(phi: i64, size: i64, q: i64, interleaved: bool) -> i64 {
    let r = phi.rem_euclid(size);
    if interleaved {
        r % q
    } else {
        r * q / size
    }
}
