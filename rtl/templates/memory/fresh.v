    // A line is current if every store to its entry had landed when it was fetched, and every
    // store to its entry since found the line there and wrote its cells into it (`st_here`):
    // `current`, a bit per entry, set by the fetch and cleared by a store that does not write
    // into the line, so that a load's hit is one lookup.
    reg [«lines - 1»:0] current;
    // miss_no: the number of the last miss to the entry
«miss_nos»    // Misses issued and lines filled (in the same order), counted modulo 2^16: at most QUEUE
    // misses wait for their fills, so the fill whose number is an entry's last miss's is that
    // miss's. Per entry, whether its last miss is still to be filled (`awaiting`).
    reg [15:0] misses, fills;
    reg [«lines - 1»:0] awaiting;
    wire ld_current;  // current[ld_idx]
    wire fresh = ld_current;
    // A fetch is current if its entry's last store has landed.{% if deferred %}
    // Looked up over two cycles (`ld_in_flight`): a B at the last edge is not
    // seen, so the fetch may count as stale where it is not, never the other way.
    wire fetch_current = !ld_in_flight;{% else %}
    wire fetch_current = !«ld_in_flight»;{% endif %}
    // The σ-next store's line is in the cache and filled, and no load of its entry is due (which
    // may fetch into it: whether it goes or hits is decided late) nor does a miss fill a line
    // at this edge: the store writes its cells into the line as well. Its entry's bits are
    // looked up as the store enters sb, from sa's entry (a lookup in every entry's bits is not
    // in the cycle the store issues), and kept up to date while it waits there: each edge's
    // changes to the entry (a miss, which fills it with its own line, and the fill of its last
    // miss) are registered beside them (`sb_c_`) and applied after the registers, so that the
    // late decisions of the edge, whether sa moves and whether a load misses, come last.
    reg sb_filled, sb_awaiting, sb_c_missed, sb_c_ours, sb_c_filled;
    wire sb_filled_now = sb_c_missed ? sb_c_ours : sb_filled;
    wire sb_awaiting_now = sb_c_missed || (!sb_c_filled && sb_awaiting);
    always @(posedge clk) begin
        if (sa_move) begin
            sb_filled <= «sa_filled»«sa_tag_match»;
            sb_awaiting <= «sa_awaiting»;
            sb_c_filled <= fill_last && fill_idx == sa_idx;
            sb_c_ours <= «sa_ours»;
        end else begin
            sb_filled <= sb_filled_now;
            sb_awaiting <= sb_awaiting_now;
            sb_c_filled <= fill_last && fill_idx == st_idx;
            sb_c_ours <= «st_ours»;
        end
        // The two comparisons in two forms, so that Yosys does not merge them behind sa_move.
        sb_c_missed <= sa_move ? ld_miss && «ld_at_sa» : ld_miss && «ld_at_st»;
    end
    wire st_here = sb_filled_now && !sb_awaiting_now
        && !(ld_want && «ld_at_st») && !(fire && h_miss);
    always @(posedge clk) begin
        if (ld_miss) begin «miss_at_fetch» end
    end
    // Each entry's bits are written where its index matches (a decoder; a write at a variable
    // index is a shift that Yosys leaves as a carry chain).
    // The fill of its entry's last miss, known a cycle after the fill: `awaiting` clears a
    // cycle late, so a store in that cycle leaves the line and a later load reads DDR. The
    // head's entry is a register, so the entry's last miss number is looked up and compared
    // with the fill's at the fill's edge (`fill_match`), each cycle whether or not the head
    // is filled; a miss to the same entry at that edge makes the fill not its last
    // (`fill_over`), since numbers of misses waiting for fills never wrap onto each other.
    reg fill_r, fill_match, fill_over;
    reg [«ib - 1»:0] fill_idx;
    always @(posedge clk) begin
        fill_r <= !(rst || start) && fire && h_miss;
        fill_idx <= h_idx;
        fill_match <= «fill_miss_no» == fills;
        fill_over <= ld_miss && «ld_at_head»;
    end
    wire fill_last = fill_r && fill_match && !fill_over;
{% if !deferred %}    integer fi;
{% endif %}    always @(posedge clk) begin
        if (rst || start) begin{% if !deferred %}
            current <= ~«lines»'d0;
            awaiting <= «lines»'d0;{% endif %}
            misses <= 16'd0;
            fills <= 16'd0;
        end else begin
            if (ld_miss) misses <= misses + 16'd1;
            if (fire && h_miss) fills <= fills + 16'd1;{% if !deferred %}
            for (fi = 0; fi < «lines»; fi = fi + 1) begin
                if (ld_miss && ld_idx == fi[«ib - 1»:0]) current[fi] <= fetch_current;
                // After the fetch: a store to the entry fetched at this edge does not write into it.
                if (st_go && !st_here && st_idx == fi[«ib - 1»:0]) current[fi] <= 1'b0;
                if (fill_last && fill_idx == fi[«ib - 1»:0]) awaiting[fi] <= 1'b0;
                if (ld_miss && ld_idx == fi[«ib - 1»:0]) awaiting[fi] <= 1'b1;
            end{% endif %}
        end
    end
