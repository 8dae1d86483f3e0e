//! The memory process's fixed text: the AXI write and read sides, the DDR order between them
//! and the landed-store bookkeeping, as templates (`rtl/templates/memory/`). The stages in
//! `module.rs` fill them with widths and with what the array needs.

use askama::Template;

/// Widths both AXI sides use.
pub(super) struct Widths {
    /// Bits of a burst's beat count (`BURST` beats at most).
    pub(super) bw: u32,
    /// Bits of an open burst's idle count (`HOLD` cycles at most).
    pub(super) hw: u32,
    /// Bytes per line (one beat).
    pub(super) lb: usize,
    /// `AxSIZE`: log2 of the bytes per beat.
    pub(super) size: u32,
    /// Bits of the W buffer's count.
    pub(super) wc: u32,
}

/// The write side: the open burst with its held beat, the AW offered, the W beats, the bursts
/// awaiting B.
#[derive(Template)]
#[template(path = "memory/write_side.v", escape = "none")]
pub(super) struct WriteSide<'a> {
    pub(super) w: &'a Widths,
    /// Loads and stores of the array are ordered (it is both loaded and stored).
    pub(super) ordered: bool,
    /// The σ-next store issues from the store stage's `sb` (`stage::last` compared its line).
    pub(super) staged: bool,
    /// Loads wait for their own sources: at most `landed` bursts await B.
    pub(super) fine: bool,
    pub(super) landed: usize,
    /// Entries of the W buffer (its pointers and count take `w.wc` bits).
    pub(super) wbuf: usize,
    /// Bits of a beat's data (its strobe has one bit per byte).
    pub(super) data: u32,
    /// Bits and bytes of one store's values (an element, or one per vector lane).
    pub(super) ew: u32,
    pub(super) eb: u32,
    /// `AWLEN` of the open burst.
    pub(super) len: String,
    /// Where a beat holds several stores' values of a power of two bytes: its slots.
    pub(super) slots: Option<Slots>,
}

/// The slots of a beat that one store's values fill ([`WriteSide`]).
pub(super) struct Slots {
    /// How many, and the address bit where a slot's number starts.
    pub(super) count: u32,
    pub(super) low: u32,
    /// The data and strobe masks of the slot `st_at` names, as concatenations.
    pub(super) keep: String,
    pub(super) strb: String,
}

impl Slots {
    /// The slots of a beat of `data` bits filled `ew` bits (`eb` bytes) at a time, where
    /// there are several and `eb` is a power of two.
    pub(super) fn new(data: u32, ew: u32, eb: u32) -> Option<Slots> {
        if ew >= data || !eb.is_power_of_two() || !data.is_multiple_of(ew) {
            return None;
        }
        let count = data / ew;
        let mask = |bits: u32| {
            let each: Vec<String> = (0..count).rev().map(|k| format!("{{{bits}{{st_at[{k}]}}}}")).collect();
            format!("{{{}}}", each.join(", "))
        };
        Some(Slots { count, low: eb.trailing_zeros(), keep: mask(ew), strb: mask(eb) })
    }
}

/// The read side: the open burst of consecutive misses, then the AR offered.
#[derive(Template)]
#[template(path = "memory/read_side.v", escape = "none")]
pub(super) struct ReadSide<'a> {
    pub(super) w: &'a Widths,
    /// Whether the σ-next load's line extends the open burst (`Plan::extends_burst`).
    pub(super) extends: String,
    /// `ld_go` and `ld_miss` written per generator (`Plan::goes`), where the read side decides so.
    pub(super) goes: Option<String>,
    /// A load waits for the write responses of earlier bands (the array is also stored, and
    /// loads do not wait for their own sources).
    pub(super) wait_for_bands: bool,
    /// `ARLEN` of the open burst.
    pub(super) len: String,
    /// A lane of a shared read port, which sets `ARSIZE` and `ARBURST` itself and buffers
    /// the beats.
    pub(super) lane: bool,
    /// Beats the module's read buffer holds (not a lane's) and their width.
    pub(super) buffer: usize,
    pub(super) data: u32,
    /// Bits of a line's number in the array (`ld_line`), one past its last line included.
    pub(super) line_bits: u32,
}

/// The DDR order between the two sides of an array both loaded and stored.
#[derive(Template)]
#[template(path = "memory/order.v", escape = "none")]
pub(super) struct Order {
    /// Loads wait for their own sources rather than for earlier bands.
    pub(super) fine: bool,
    /// The registers of the last store's band key.
    pub(super) bands: String,
    /// The σ-next load is in the last store's band.
    pub(super) ld_same: String,
}

/// The counters of [`Order`], updated with the write side.
#[derive(Template)]
#[template(path = "memory/order_update.v", escape = "none")]
pub(super) struct OrderUpdate {
    pub(super) fine: bool,
    /// The band key's registers set from the store that goes.
    pub(super) sets: String,
}

/// Landed stores, where loads wait for their sources: per write burst awaiting B, the number
/// of stores issued up to it and, `keyed`, the σ key of its last store; a B retires the oldest.
#[derive(Template)]
#[template(path = "memory/sources.v", escape = "none")]
pub(super) struct Sources<'a> {
    pub(super) s: &'a Landed,
}

/// [`Sources`] updated with the write side.
#[derive(Template)]
#[template(path = "memory/sources_update.v", escape = "none")]
pub(super) struct SourcesUpdate<'a> {
    pub(super) s: &'a Landed,
}

/// What [`Sources`] and [`SourcesUpdate`] hold.
pub(super) struct Landed {
    /// Some load has a store to wait for: the bursts keep the σ keys of their last stores.
    pub(super) keyed: bool,
    /// Bursts awaiting B at most.
    pub(super) landed: usize,
    /// Bits of a burst pointer.
    pub(super) bkw: u32,
    /// Entries of the load cache, and the bits of an entry's index.
    pub(super) entries: usize,
    pub(super) ib: u32,
    /// Top bit of a key.
    pub(super) kw: u32,
}

/// The load cache's freshness where loads wait for their sources only: stores of earlier
/// bands may land after a line is fetched, so a line is used again only if every store to its
/// entry had landed when it was fetched, and every store to it since wrote its cells into the
/// cached line too (a store whose line is there, filled, writes into it as it issues).
#[derive(Template)]
#[template(path = "memory/fresh.v", escape = "none")]
pub(super) struct Fresh {
    /// Lines of the cache, and the bits of an index.
    pub(super) lines: usize,
    pub(super) ib: u32,
    /// The table per line (`Table`) of the number of its last miss: its declaration, its entry
    /// at the queue head's `h_idx`, and the statement that writes it at a fetch.
    pub(super) miss_nos: String,
    pub(super) fill_miss_no: String,
    pub(super) miss_at_fetch: String,
    /// ` && <the entry's tag> == sa_tag`, or nothing where every line has its own entry.
    pub(super) sa_tag_match: String,
    /// The filled and awaiting bits at `sa_idx`: looked up there, or the wires of a two-cycle
    /// lookup (`filled::NextLine::store`).
    pub(super) sa_filled: String,
    pub(super) sa_awaiting: String,
    /// Whether the σ-next load's line is sa's, the σ-next store's and the queue head's
    /// (`ld_idx == sa_idx`, …; [`super::filled::ld_line_is`]).
    pub(super) ld_at_sa: String,
    pub(super) ld_at_st: String,
    pub(super) ld_at_head: String,
    /// `current` and `awaiting` are written a cycle late ([`super::deferred`]), not here, and the
    /// load's `in_flight` bit is looked up over two cycles (`ld_in_flight`).
    pub(super) deferred: bool,
    /// Where it is not, `in_flight` at the σ-next load's line, looked up per source
    /// ([`super::filled::per_source`]).
    pub(super) ld_in_flight: String,
    /// Whether a miss to sa's or sb's entry fetches the store's own line: `ld_tag == sa_tag`
    /// (`st_tag`), or `1'b1` where every line has its own entry.
    pub(super) sa_ours: String,
    pub(super) st_ours: String,
}
