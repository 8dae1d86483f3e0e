//! DDR across bands: each cell's version, the loads a band needs and the stores it makes.

use super::*;

/// State that lives across bands.
pub(super) struct Streams {
    pub(super) load_proc: HashMap<usize, usize, SmallKeys>,
    pub(super) store_proc: HashMap<usize, usize, SmallKeys>,
    pub(super) compute_proc: HashMap<(usize, usize), usize, SmallKeys>,
    /// DDR versions: the k-th store of a cell creates version k (0 = the initial value).
    pub(super) versions: Vec<CellTable<u32>>,
    /// The DDR version each stored value created, by the value's rank among stored values.
    pub(super) version_of_value: Vec<u32>,
    pub(super) loads_needed: HashMap<CellVersion, u32>,
    pub(super) ddr_reads: Vec<u64>,
    pub(super) ddr_writes: Vec<u64>,
    /// Value ids: a computed value is its instance's rank in σ; loaded values come after.
    pub(super) next_vid: u64,
    pub(super) next_load_vid: u64,
    /// Bands so far; per variable and cell, the last band that loaded it: (band, version,
    /// index among the band's loads). A second version of a cell in one band (rare) goes
    /// to a map.
    pub(super) band_no: u32,
    pub(super) load_slot: Vec<CellTable<(u32, u32, u32)>>,
    /// Per variable, the cells whose initial value is read (the compulsory reads).
    pub(super) initial: Vec<Bits>,
}

impl Streams {
    /// The DDR version a read from `cell` of `var` needs: that of its producer's store
    /// (`None`: the initial value, a compulsory read).
    pub(super) fn version_read(&mut self, stored: &Bits, var: usize, cell: usize, producer: Option<u64>) -> Result<u32, Error> {
        match producer {
            Some(id) => match self.version_of_value[stored.rank(id)] {
                0 => Err(Error::internal("a value is loaded before it is stored")),
                v => Ok(v),
            },
            None => {
                self.initial[var].set(cell as u64);
                Ok(0)
            }
        }
    }
    /// The next version of `cell` of `var`, created by storing the value of instance `id`.
    pub(super) fn version_store(&mut self, stored: &Bits, var: usize, cell: usize, id: u64) -> u32 {
        let v = self.versions[var].get_mut(cell);
        *v += 1;
        self.version_of_value[stored.rank(id)] = *v;
        *v
    }
}
