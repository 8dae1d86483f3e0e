    // A line is current if every store to its entry had landed when it was fetched.
    // fill_count: acked_count when the line was fetched
«fill_counts»    reg [31:0] wrote_count [0:«lines - 1»];  // the number of the last store to the entry
    reg [«lines - 1»:0] wrote;
    wire fresh = !wrote[ld_idx] || $signed(«fill_count» - wrote_count[ld_idx]) >= 32'sd0;
    always @(posedge clk) begin
        if (ld_go && !hit) begin «fill» end
        if (st_go) wrote_count[st_idx] <= st_count + 32'd1;
    end
    always @(posedge clk) begin
        if (rst || start) wrote <= «lines»'d0;
        else if (st_go) wrote[st_idx] <= 1'b1;
    end
