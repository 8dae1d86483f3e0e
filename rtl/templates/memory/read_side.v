    // Read side: the open burst (σ-consecutive loads of consecutive elements), then the AR offered.
    reg bl_v;
    reg [63:0] bl_addr, bl_end;
    reg [«w.bw - 1»:0] bl_beats;
    reg [«w.hw - 1»:0] bl_idle;  // cycles since the open burst last grew (a hit does not restart the count)
    reg ar_v;
    reg [63:0] ar_addr;
    reg [7:0] ar_len;
    wire ar_free = !ar_v || (m_arvalid && m_arready);
    wire ar_ext = bl_v && bl_beats != BURST && pick_line_addr == bl_end && pick_line_addr[11:0] != 12'd0;  // extends it, within 4 KiB
    assign ld_go = go && pick_load && {% if wait_for_bands %}w_old == 16'd0 && (w_out == 16'd0 || same_band) && {% endif %}q_count != QUEUE && (hit || ar_ext || !bl_v || ar_free);
    wire ld_miss = ld_go && !hit;  // a load that reads DDR
    wire bl_close = bl_v && ar_free && !ld_miss && (bl_beats == BURST || bl_idle == HOLD || (go && !pick_load) || all_done);
    assign m_arvalid = ar_v;
    assign m_araddr = ar_addr;
    assign m_arlen = ar_len;
{% if !lane %}    assign m_arsize = 3'd«w.size»;
    assign m_arburst = 2'b01;
{% endif %}    always @(posedge clk) begin
        if (rst || start) begin
            bl_v <= 1'b0;
            ar_v <= 1'b0;
        end else begin
            if (m_arvalid && m_arready) ar_v <= 1'b0;
            if (ld_miss && ar_ext) begin
                bl_beats <= bl_beats + «w.bw»'d1;
                bl_end <= bl_end + 64'd«w.lb»;
            end else if (ld_miss || bl_close) begin
                if (bl_v) begin  // the open burst goes out
                    ar_v <= 1'b1;
                    ar_addr <= bl_addr;
                    ar_len <= «len»;
                end
                bl_v <= ld_miss;
                bl_addr <= pick_line_addr;
                bl_end <= pick_line_addr + 64'd«w.lb»;
                bl_beats <= «w.bw»'d1;
            end
            if (ld_miss) bl_idle <= «w.hw»'d0;
            else if (bl_idle != HOLD) bl_idle <= bl_idle + «w.hw»'d1;
        end
    end
