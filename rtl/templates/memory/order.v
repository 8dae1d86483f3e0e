    // DDR order. {% if fine %}A load waits until the last store to its cell before it in σ (`g<k>_src_ok`)
    // has landed: stores go in σ order and their write responses come back in order, so that
    // is when the burst holding it, or a later one, has been acknowledged (`acked_key`).{% else %}A load waits for the write responses of earlier bands' stores only: a band never
    // loads what it stores itself (that value stays on chip), so its own stores cannot hold what
    // it reads.{% endif %}
    // A store waits while a load of its cell is in flight (`war`), so no store overtakes an
    // earlier read of its cell. Write bursts hold the stores of one band.
    reg signed [63:0] «bands»;  // the band of the last store
    wire st_same_band = sb_same_band;  // the σ-next store belongs to the last store's band (`stage::last`)
    wire ld_same_band = «ld_same»;  // the σ-next load does{% if !fine %}
    reg [15:0] w_old;  // of the write bursts awaiting B, those of bands before w_band{% endif %}
