    // Read side: the open burst (σ-consecutive loads of consecutive elements), then the AR offered.
    reg bl_v;
    reg [63:0] bl_addr;
    // The line after the open burst, as a line of the array (the array's base is line-aligned:
    // a line's number compares in a few bits where its address would take 58).
    reg [«line_bits - 1»:0] bl_end;
    // The open burst's last line within its 4 KiB page (a burst does not cross one): all ones
    // where bl_end starts the next page. Kept beside bl_end, so that a load's line is compared
    // with bl_end alone; the line opening a burst enters it as it is, not through a sum that
    // Yosys would share with the increment's (an adder after the choice).
    reg [«11 - w.size»:0] bl_last_page;
    reg [«w.bw - 1»:0] bl_beats;
    reg bl_full;  // bl_beats == RBURST, a register
    reg [«w.hw - 1»:0] bl_idle;  // cycles since the open burst last grew (a hit does not restart the count)
    reg ar_v;
    reg [63:0] ar_addr;
    reg [7:0] ar_len;
{% if !lane %}    reg [«w.bw»:0] ar_beats;  // ar_len + 1, set with it
    reg ar_fits;  // the buffer has room for all its beats
{% endif %}{% if lane %}    // The lanes' cell takes an AR after deciding among the lanes: the next one waits for the
    // register to empty rather than for that decision.
    wire ar_free = !ar_v;
{% else %}    wire ar_free = !ar_v || (m_arvalid && m_arready);
{% endif %}    wire bl_growing = bl_v && !bl_full && !(&bl_last_page);  // a beat more fits in it, within 4 KiB
    wire ar_ext = bl_growing && «extends»;  // the σ-next load's line extends it
{% if let Some(goes) = goes %}«goes»{% else %}    assign ld_go = ld_want && {% if wait_for_bands %}w_old == 16'd0 && (w_out == 16'd0 || ld_same_band) && {% endif %}q_room && (hit || ar_ext || !bl_v || ar_free);
    wire ld_miss = ld_go && !hit;  // a load that reads DDR
{% endif %}    wire bl_close = bl_v && ar_free && !ld_miss && (bl_full || bl_idle == HOLD || all_done);
{% if lane %}    assign m_arvalid = ar_v;
{% else %}    // Read buffer: an AR goes only when the buffer has room for all its beats, so R never waits.
    reg [«w.bw»:0] rb_free;  // beats of the buffer neither holding a beat nor promised to an AR taken
    localparam [«w.bw»:0] RBUF = «w.bw + 1»'d«buffer»;
    assign m_arvalid = ar_v && ar_fits;
    // Whether the open burst fits once the AR before it is taken (an AR is only replaced when
    // it is taken or there is none), and whether the one offered fits: once it does it stays
    // so (rb_free only grows until it is taken), so a cycle late is safe.
    wire [«w.bw»:0] rb_after = rb_free - (ar_v ? ar_beats : «w.bw + 1»'d0);
    wire bl_fits = {1'b0, bl_beats} <= rb_after;
    assign m_rready = 1'b1;
    wire rb_in_ready;
    /* verilator lint_off PINCONNECTEMPTY */
    dpn_fifo #(.W(«data»), .DEPTH(«buffer»), .FULL_PASS(0), .RAM_MIN_DEPTH(4)) read_buffer (
        .clk(clk), .rst(rst || start),
        .in_valid(m_rvalid), .in_ready(rb_in_ready), .in_data(m_rdata),
        .out_valid(rb_valid), .out_ready(rb_ready), .out_data(rb_data),
        .count(), .peak()
    );
    /* verilator lint_on PINCONNECTEMPTY */
    // Both sums before the beat read out, which the fan-out decides late, only chooses between
    // them (as gates: a multiplexer would become one adder after it).
    wire [«w.bw»:0] rb_kept = rb_free - (m_arvalid && m_arready ? ar_beats : «w.bw + 1»'d0);
    wire [«w.bw»:0] rb_kept_up = rb_kept + «w.bw + 1»'d1;
    wire rb_out = rb_valid && rb_ready;
    always @(posedge clk) begin
        if (rst || start) rb_free <= RBUF;
        else rb_free <= (rb_kept_up & {«w.bw + 1»{rb_out}}) | (rb_kept & {«w.bw + 1»{!rb_out}});
    end
`ifndef SYNTHESIS
    always @(posedge clk) if (!rst && m_rvalid && !rb_in_ready) $display("%m: the read buffer overflowed (internal error)");
`endif
{% endif %}    assign m_araddr = ar_addr;
    assign m_arlen = ar_len;
{% if !lane %}    assign m_arsize = 3'd«w.size»;
    assign m_arburst = 2'b01;
{% endif %}    always @(posedge clk) begin
        if (rst || start) begin
            bl_v <= 1'b0;
            ar_v <= 1'b0;
        end else begin
            if (m_arvalid && m_arready) ar_v <= 1'b0;
{% if !lane %}            ar_fits <= !(m_arvalid && m_arready) && ar_beats <= rb_free;
{% endif %}            if (ld_miss && ar_ext) begin
                bl_beats <= bl_beats + «w.bw»'d1;
                bl_full <= bl_beats == RBURST - «w.bw»'d1;
                bl_end <= bl_end + «line_bits»'d1;
                bl_last_page <= bl_last_page + «12 - w.size»'d1;
            end else if (ld_miss || bl_close) begin
                if (bl_v) begin  // the open burst goes out
                    ar_v <= 1'b1;
                    ar_addr <= bl_addr;
                    ar_len <= «len»;
{% if !lane %}                    ar_beats <= {1'b0, bl_beats};
                    ar_fits <= bl_fits;
{% endif %}                end
                bl_v <= ld_miss;
                bl_addr <= ld_line_addr;
                bl_end <= ld_line[«line_bits - 1»:0] + «line_bits»'d1;
                bl_last_page <= ld_line_addr[11:«w.size»];
                bl_beats <= «w.bw»'d1;
                bl_full <= 1'b0;
            end
            if (ld_miss) bl_idle <= «w.hw»'d0;
            else if (bl_idle != HOLD) bl_idle <= bl_idle + «w.hw»'d1;
        end
    end
