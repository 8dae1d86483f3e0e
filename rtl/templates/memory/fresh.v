    // A line is current if every store to its entry had landed when it was fetched, and every
    // store to its entry since found the line there and wrote its cells into it (`st_here`).
    // fill_count: acked_count when the line was fetched
«fill_counts»    reg [31:0] wrote_count [0:«lines - 1»];  // the number of the last store to the entry
    // spoil_count: the last store the line may lack (one before its fetch, or one since that
    // did not write into it); miss_no: the number of the last miss to the entry
«spoil_counts»«miss_nos»    reg [«lines - 1»:0] wrote;
    // Misses issued and lines filled (in the same order), counted modulo 2^16: at most QUEUE
    // misses wait for their fills, so a miss whose number is not behind the fills' is pending
    // (a fill 2^15 or more behind the last miss may look pending: the store then only spoils).
    reg [15:0] misses, fills;
    // The σ-next store's line is in the cache and filled, and no miss fetches into its entry nor
    // fills a line at this edge: the store writes its cells into the line as well.
    wire st_here = filled[st_idx]«st_tag_match» && $signed(«st_miss_no» - fills) < 16'sd0
        && !(ld_go && ld_idx == st_idx) && !(fire && h_miss);
    // Per entry, whether its line is current (`!wrote || fill_count - spoil_count >= 0`), as a
    // bit set anew when a fetch or a store changes those counts: a load's hit is then one
    // lookup, where a subtraction on the σ-next load's entry would lengthen the issue path.
    reg [«lines - 1»:0] current;
    wire fresh = current[ld_idx];
    wire fetch_current = !wrote[ld_idx] || $signed(acked_count - wrote_count[ld_idx]) >= 32'sd0;
    // A store's entry: fetched at the same edge (the store then does not write into it), found
    // there, or not; compared apart so that the issue decides between results, not operands.
    wire [31:0] st_spoil = st_count + 32'd1;
    wire refetched_current = $signed(acked_count - st_spoil) >= 32'sd0;
    wire here_current = $signed(«st_fill_count» - «st_spoil_count») >= 32'sd0;
    wire spoilt_current = $signed(«st_fill_count» - st_spoil) >= 32'sd0;
    wire store_current = ld_go && !hit && ld_idx == st_idx ? refetched_current : st_here ? here_current : spoilt_current;
    always @(posedge clk) begin
        if (ld_go && !hit) begin «fill» «spoil_at_fetch» «miss_at_fetch» end
        if (st_go) wrote_count[st_idx] <= st_count + 32'd1;
        if (st_go && !st_here) begin «spoil_at_store» end
    end
    always @(posedge clk) begin
        if (rst || start) begin
            wrote <= «lines»'d0;
            current <= ~«lines»'d0;
            misses <= 16'd0;
            fills <= 16'd0;
        end else begin
            if (st_go) wrote[st_idx] <= 1'b1;
            if (ld_go && !hit) current[ld_idx] <= fetch_current;
            if (st_go) current[st_idx] <= store_current;  // after the fetch: a store to the same entry wins
            if (ld_go && !hit) misses <= misses + 16'd1;
            if (fire && h_miss) fills <= fills + 16'd1;
        end
    end
