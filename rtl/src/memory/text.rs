//! The memory process's fixed text: the AXI write and read sides, the DDR order between them
//! and the landed-store bookkeeping, as templates (`rtl/templates/memory/`). The stages in
//! `module.rs` fill them with widths and with what the array needs.

use askama::Template;

/// Widths both AXI sides use.
pub(super) struct Widths {
    /// Top bit of a burst's beat count (`BURST` beats at most).
    pub(super) b: u32,
    /// Top bit of an open burst's idle count (`HOLD` cycles at most).
    pub(super) h: u32,
    /// Bits of a burst's beat count.
    pub(super) bw: u32,
    /// Bits of an open burst's idle count.
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
    /// Loads wait for their own sources: at most `landed` bursts await B.
    pub(super) fine: bool,
    pub(super) landed: usize,
    /// Top entry, entries, top bit of a pointer and of a count of the W buffer.
    pub(super) wl: usize,
    pub(super) wbuf: usize,
    pub(super) wi: u32,
    pub(super) wm: u32,
    /// Zero padding of one element's data and of its strobe up to a beat.
    pub(super) pad: String,
    pub(super) spad: String,
    /// Top bits of a beat's data and strobe, and of a W buffer entry.
    pub(super) dw: usize,
    pub(super) sw: usize,
    pub(super) fw: usize,
    /// Top bit of a byte offset in a line.
    pub(super) ls: u32,
    /// Bits and bytes of one element.
    pub(super) ew: usize,
    pub(super) eb: usize,
    /// `AWLEN` of the open burst.
    pub(super) len: String,
}

/// The read side: the open burst of consecutive misses, then the AR offered.
#[derive(Template)]
#[template(path = "memory/read_side.v", escape = "none")]
pub(super) struct ReadSide<'a> {
    pub(super) w: &'a Widths,
    /// A load waits for the write responses of earlier bands (the array is also stored, and
    /// loads do not wait for their own sources).
    pub(super) wait_for_bands: bool,
    /// `ARLEN` of the open burst.
    pub(super) len: String,
    /// A lane of a shared read port, which sets `ARSIZE` and `ARBURST` itself.
    pub(super) lane: bool,
}

/// The DDR order between the two sides of an array both loaded and stored.
#[derive(Template)]
#[template(path = "memory/order.v", escape = "none")]
pub(super) struct Order {
    /// Loads wait for their own sources rather than for earlier bands.
    pub(super) fine: bool,
    /// The registers of the last store's band key.
    pub(super) bands: String,
    /// The σ-next access is in the last store's band.
    pub(super) same: String,
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
    /// Bursts awaiting B at most, and the top entry.
    pub(super) landed: usize,
    pub(super) lm: usize,
    /// Bits of a burst pointer, and its top bit.
    pub(super) bkw: u32,
    pub(super) bki: u32,
    /// Top bit of a key.
    pub(super) kw: u32,
}

/// The load cache's freshness where loads wait for their sources only: stores of earlier
/// bands may land after a line is fetched, so a line is used again only if every store to its
/// entry issued so far had landed when it was fetched.
#[derive(Template)]
#[template(path = "memory/fresh.v", escape = "none")]
pub(super) struct Fresh {
    /// Top line of the cache, and its lines.
    pub(super) n: usize,
    pub(super) w: usize,
}
