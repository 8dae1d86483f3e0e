// dpnc-sim test top: B[i] = A[i] * k for i < n (32-bit ints); A read on gmem0, B written on gmem1, through one FIFO channel.
// Arguments: 0 A (array, gmem0), 1 B (array, gmem1), 2 n, 3 k. Channels: ch_a. Processes: load, scale.
// "load" unpacks the 64-bit beats of A into ch_a; "scale" multiplies by k and packs the results into B's beats.
module vscale_top (
    input  wire         ap_clk,
    input  wire         ap_rst_n,
    /* verilator lint_off SYMRSVDWORD */
    output wire         interrupt,
    /* verilator lint_on SYMRSVDWORD */
    input  wire         s_axi_control_awvalid,
    output wire         s_axi_control_awready,
    input  wire [11:0]  s_axi_control_awaddr,
    input  wire         s_axi_control_wvalid,
    output wire         s_axi_control_wready,
    input  wire [31:0]  s_axi_control_wdata,
    input  wire [3:0]   s_axi_control_wstrb,
    output wire         s_axi_control_bvalid,
    input  wire         s_axi_control_bready,
    output wire [1:0]   s_axi_control_bresp,
    input  wire         s_axi_control_arvalid,
    output wire         s_axi_control_arready,
    input  wire [11:0]  s_axi_control_araddr,
    output wire         s_axi_control_rvalid,
    input  wire         s_axi_control_rready,
    output wire [31:0]  s_axi_control_rdata,
    output wire [1:0]   s_axi_control_rresp,
    output wire         m_axi_gmem0_awvalid,
    input  wire         m_axi_gmem0_awready,
    output wire [63:0]  m_axi_gmem0_awaddr,
    output wire [7:0]   m_axi_gmem0_awlen,
    output wire [2:0]   m_axi_gmem0_awsize,
    output wire [1:0]   m_axi_gmem0_awburst,
    output wire         m_axi_gmem0_wvalid,
    input  wire         m_axi_gmem0_wready,
    output wire [63:0]  m_axi_gmem0_wdata,
    output wire [7:0]   m_axi_gmem0_wstrb,
    output wire         m_axi_gmem0_wlast,
    input  wire         m_axi_gmem0_bvalid,
    output wire         m_axi_gmem0_bready,
    input  wire [1:0]   m_axi_gmem0_bresp,
    output wire         m_axi_gmem0_arvalid,
    input  wire         m_axi_gmem0_arready,
    output wire [63:0]  m_axi_gmem0_araddr,
    output wire [7:0]   m_axi_gmem0_arlen,
    output wire [2:0]   m_axi_gmem0_arsize,
    output wire [1:0]   m_axi_gmem0_arburst,
    input  wire         m_axi_gmem0_rvalid,
    output wire         m_axi_gmem0_rready,
    input  wire [63:0]  m_axi_gmem0_rdata,
    input  wire         m_axi_gmem0_rlast,
    input  wire [1:0]   m_axi_gmem0_rresp,
    output wire         m_axi_gmem1_awvalid,
    input  wire         m_axi_gmem1_awready,
    output wire [63:0]  m_axi_gmem1_awaddr,
    output wire [7:0]   m_axi_gmem1_awlen,
    output wire [2:0]   m_axi_gmem1_awsize,
    output wire [1:0]   m_axi_gmem1_awburst,
    output wire         m_axi_gmem1_wvalid,
    input  wire         m_axi_gmem1_wready,
    output wire [63:0]  m_axi_gmem1_wdata,
    output wire [7:0]   m_axi_gmem1_wstrb,
    output wire         m_axi_gmem1_wlast,
    input  wire         m_axi_gmem1_bvalid,
    output wire         m_axi_gmem1_bready,
    input  wire [1:0]   m_axi_gmem1_bresp,
    output wire         m_axi_gmem1_arvalid,
    input  wire         m_axi_gmem1_arready,
    output wire [63:0]  m_axi_gmem1_araddr,
    output wire [7:0]   m_axi_gmem1_arlen,
    output wire [2:0]   m_axi_gmem1_arsize,
    output wire [1:0]   m_axi_gmem1_arburst,
    input  wire         m_axi_gmem1_rvalid,
    output wire         m_axi_gmem1_rready,
    input  wire [63:0]  m_axi_gmem1_rdata,
    input  wire         m_axi_gmem1_rlast,
    input  wire [1:0]   m_axi_gmem1_rresp,
    output wire [31:0]  dbg_ops,
    output wire [0:0]   dbg_full,
    output wire [0:0]   dbg_empty,
    output wire [1:0]   dbg_done,
    output wire [1:0]   dbg_work,
    output wire [1:0]   dbg_wait_in,
    output wire [1:0]   dbg_wait_out,
    output wire [31:0]  dbg_peak
);
    wire rst = !ap_rst_n;

    // ---- control
    wire         ap_start;
    reg          ap_done_r;
    reg          running;
    reg          started;
    wire         start_now = ap_start && !running;
    wire [255:0] args;
    dpn_axi_lite_ctrl #(.NUM_ARGS(4)) ctrl (
        .clk(ap_clk), .rst(rst),
        .s_axi_control_awvalid(s_axi_control_awvalid), .s_axi_control_awready(s_axi_control_awready),
        .s_axi_control_awaddr(s_axi_control_awaddr), .s_axi_control_wvalid(s_axi_control_wvalid),
        .s_axi_control_wready(s_axi_control_wready), .s_axi_control_wdata(s_axi_control_wdata),
        .s_axi_control_wstrb(s_axi_control_wstrb), .s_axi_control_bvalid(s_axi_control_bvalid),
        .s_axi_control_bready(s_axi_control_bready), .s_axi_control_bresp(s_axi_control_bresp),
        .s_axi_control_arvalid(s_axi_control_arvalid), .s_axi_control_arready(s_axi_control_arready),
        .s_axi_control_araddr(s_axi_control_araddr), .s_axi_control_rvalid(s_axi_control_rvalid),
        .s_axi_control_rready(s_axi_control_rready), .s_axi_control_rdata(s_axi_control_rdata),
        .s_axi_control_rresp(s_axi_control_rresp),
        .ap_start(ap_start), .ap_done(ap_done_r), .ap_idle(!running), .ap_ready(start_now),
        .interrupt(interrupt), .args(args)
    );

    reg [63:0] a_addr;
    reg [63:0] b_addr;
    reg [31:0] n_r;
    reg [31:0] k_r;
    reg        rd_cmd;
    reg        wr_cmd;
    wire [31:0] beats = (n_r + 32'd1) >> 1;

    // ---- AXI engines
    wire        rd_cmd_ready;
    wire        rd_out_valid;
    wire        rd_out_ready;
    wire [63:0] rd_out_data;
    /* verilator lint_off UNUSED */
    wire        rd_out_last;
    wire        rd_error;
    wire        wr_error;
    wire [31:0] wr_done_count;
    wire        unused_rd_arid, unused_rd_arlock, unused_wr_awid, unused_wr_awlock;
    wire [3:0]  unused_rd_arcache, unused_rd_arqos, unused_wr_awcache, unused_wr_awqos;
    wire [2:0]  unused_rd_arprot, unused_wr_awprot;
    /* verilator lint_on UNUSED */
    dpn_axi_read #(.DW(64), .MAX_OUTSTANDING(4), .MAX_BURST(16)) rd (
        .clk(ap_clk), .rst(rst),
        .cmd_valid(rd_cmd), .cmd_ready(rd_cmd_ready), .cmd_addr(a_addr), .cmd_beats(beats),
        .out_valid(rd_out_valid), .out_ready(rd_out_ready), .out_data(rd_out_data), .out_last(rd_out_last),
        .m_axi_arvalid(m_axi_gmem0_arvalid), .m_axi_arready(m_axi_gmem0_arready), .m_axi_araddr(m_axi_gmem0_araddr),
        .m_axi_arlen(m_axi_gmem0_arlen), .m_axi_arsize(m_axi_gmem0_arsize), .m_axi_arburst(m_axi_gmem0_arburst),
        .m_axi_arid(unused_rd_arid), .m_axi_arlock(unused_rd_arlock), .m_axi_arcache(unused_rd_arcache),
        .m_axi_arprot(unused_rd_arprot), .m_axi_arqos(unused_rd_arqos),
        .m_axi_rvalid(m_axi_gmem0_rvalid), .m_axi_rready(m_axi_gmem0_rready), .m_axi_rdata(m_axi_gmem0_rdata),
        .m_axi_rresp(m_axi_gmem0_rresp), .m_axi_rlast(m_axi_gmem0_rlast), .m_axi_rid(1'b0),
        .error(rd_error)
    );
    // gmem0 does not write
    assign m_axi_gmem0_awvalid = 1'b0;
    assign m_axi_gmem0_awaddr = 64'd0;
    assign m_axi_gmem0_awlen = 8'd0;
    assign m_axi_gmem0_awsize = 3'd3;
    assign m_axi_gmem0_awburst = 2'b01;
    assign m_axi_gmem0_wvalid = 1'b0;
    assign m_axi_gmem0_wdata = 64'd0;
    assign m_axi_gmem0_wstrb = 8'd0;
    assign m_axi_gmem0_wlast = 1'b0;
    assign m_axi_gmem0_bready = 1'b1;

    wire        wr_cmd_ready;
    wire        wr_in_ready;
    reg         ob_valid;
    reg  [63:0] ob_data;
    reg  [7:0]  ob_strb;
    wire        wr_cmd_done;
    dpn_axi_write #(.DW(64), .MAX_OUTSTANDING(4), .MAX_BURST(16)) wr (
        .clk(ap_clk), .rst(rst),
        .cmd_valid(wr_cmd), .cmd_ready(wr_cmd_ready), .cmd_addr(b_addr), .cmd_beats(beats),
        .in_valid(ob_valid), .in_ready(wr_in_ready), .in_data(ob_data), .in_strb(ob_strb),
        .m_axi_awvalid(m_axi_gmem1_awvalid), .m_axi_awready(m_axi_gmem1_awready), .m_axi_awaddr(m_axi_gmem1_awaddr),
        .m_axi_awlen(m_axi_gmem1_awlen), .m_axi_awsize(m_axi_gmem1_awsize), .m_axi_awburst(m_axi_gmem1_awburst),
        .m_axi_awid(unused_wr_awid), .m_axi_awlock(unused_wr_awlock), .m_axi_awcache(unused_wr_awcache),
        .m_axi_awprot(unused_wr_awprot), .m_axi_awqos(unused_wr_awqos),
        .m_axi_wvalid(m_axi_gmem1_wvalid), .m_axi_wready(m_axi_gmem1_wready), .m_axi_wdata(m_axi_gmem1_wdata),
        .m_axi_wstrb(m_axi_gmem1_wstrb), .m_axi_wlast(m_axi_gmem1_wlast),
        .m_axi_bvalid(m_axi_gmem1_bvalid), .m_axi_bready(m_axi_gmem1_bready), .m_axi_bresp(m_axi_gmem1_bresp),
        .m_axi_bid(1'b0),
        .cmd_done(wr_cmd_done), .done_count(wr_done_count), .error(wr_error)
    );
    // gmem1 does not read
    assign m_axi_gmem1_arvalid = 1'b0;
    assign m_axi_gmem1_araddr = 64'd0;
    assign m_axi_gmem1_arlen = 8'd0;
    assign m_axi_gmem1_arsize = 3'd3;
    assign m_axi_gmem1_arburst = 2'b01;
    assign m_axi_gmem1_rready = 1'b1;
    /* verilator lint_off UNUSED */
    wire [67:0] unused_gmem1_r = {m_axi_gmem1_rvalid, m_axi_gmem1_rdata, m_axi_gmem1_rlast, m_axi_gmem1_rresp};
    wire [4:0]  unused_gmem0_b = {m_axi_gmem1_arready, m_axi_gmem0_awready, m_axi_gmem0_wready, m_axi_gmem0_bvalid, m_axi_gmem0_bresp[0]};
    wire        unused_gmem0_b1 = m_axi_gmem0_bresp[1];
    /* verilator lint_on UNUSED */

    // ---- channel ch_a
    wire        ch_in_valid;
    wire        ch_in_ready;
    wire [31:0] ch_in_data;
    wire        ch_out_valid;
    wire        ch_out_ready;
    wire [31:0] ch_out_data;
    wire [3:0]  ch_count;
    wire [3:0]  ch_peak;
    dpn_fifo #(.W(32), .DEPTH(8)) ch_a (
        .clk(ap_clk), .rst(rst),
        .in_valid(ch_in_valid), .in_ready(ch_in_ready), .in_data(ch_in_data),
        .out_valid(ch_out_valid), .out_ready(ch_out_ready), .out_data(ch_out_data),
        .count(ch_count), .peak(ch_peak)
    );
    wire ch_push = ch_in_valid && ch_in_ready;
    wire ch_pop = ch_out_valid && ch_out_ready;

    // ---- process load: beats of A -> elements
    reg [63:0] lbeat;
    reg        lhave;
    reg        lhalf;
    reg [31:0] emitted;
    wire       l_last_of_beat = lhalf || (emitted + 32'd1 == n_r);
    assign ch_in_valid = running && lhave;
    assign ch_in_data = lhalf ? lbeat[63:32] : lbeat[31:0];
    assign rd_out_ready = running && (!lhave || (ch_push && l_last_of_beat));
    wire rd_take = rd_out_valid && rd_out_ready;
    always @(posedge ap_clk) begin
        if (rst || start_now) begin
            lhave <= 1'b0;
            lhalf <= 1'b0;
            emitted <= 32'd0;
        end else begin
            if (rd_take) begin
                lbeat <= rd_out_data;
                lhave <= 1'b1;
                lhalf <= 1'b0;
            end else if (ch_push) begin
                if (l_last_of_beat) lhave <= 1'b0;
                lhalf <= !lhalf;
            end
            if (ch_push) emitted <= emitted + 32'd1;
        end
    end
    wire load_end = started && (emitted == n_r);

    // ---- process scale: elements * k -> beats of B
    reg [31:0] asm_lo;
    reg        asm_have;
    reg [31:0] consumed;
    reg        wr_acked;
    wire       ob_free = !ob_valid || wr_in_ready;
    assign ch_out_ready = running && ob_free;
    wire [31:0] prod = ch_out_data * k_r;
    wire        s_last = (consumed + 32'd1 == n_r);
    always @(posedge ap_clk) begin
        if (rst || start_now) begin
            ob_valid <= 1'b0;
            asm_have <= 1'b0;
            consumed <= 32'd0;
            wr_acked <= 1'b0;
        end else begin
            if (ob_valid && wr_in_ready) ob_valid <= 1'b0;
            if (ch_pop) begin
                consumed <= consumed + 32'd1;
                if (asm_have) begin
                    ob_data <= {prod, asm_lo};
                    ob_strb <= 8'hFF;
                    ob_valid <= 1'b1;
                    asm_have <= 1'b0;
                end else if (s_last) begin
                    ob_data <= {32'd0, prod};
                    ob_strb <= 8'h0F;
                    ob_valid <= 1'b1;
                end else begin
                    asm_lo <= prod;
                    asm_have <= 1'b1;
                end
            end
            if (wr_cmd_done) wr_acked <= 1'b1;
        end
    end
    wire scale_end = started && (consumed == n_r) && wr_acked;

    // ---- sequencing
    always @(posedge ap_clk) begin
        if (rst) begin
            running <= 1'b0;
            started <= 1'b0;
            ap_done_r <= 1'b0;
            rd_cmd <= 1'b0;
            wr_cmd <= 1'b0;
            a_addr <= 64'd0;
            b_addr <= 64'd0;
            n_r <= 32'd0;
            k_r <= 32'd0;
        end else begin
            ap_done_r <= 1'b0;
            if (start_now) begin
                running <= 1'b1;
                started <= 1'b1;
                rd_cmd <= 1'b1;
                wr_cmd <= 1'b1;
                a_addr <= args[63:0];
                b_addr <= args[127:64];
                n_r <= args[159:128];
                k_r <= args[223:192];
            end else if (running) begin
                if (rd_cmd && rd_cmd_ready) rd_cmd <= 1'b0;
                if (wr_cmd && wr_cmd_ready) wr_cmd <= 1'b0;
                if (load_end && scale_end) begin
                    running <= 1'b0;
                    ap_done_r <= 1'b1;
                end
            end
        end
    end

    // ---- debug
    reg [31:0] ops;
    always @(posedge ap_clk) begin
        if (rst) ops <= 32'd0;
        else ops <= ops + {31'd0, ch_push} + {31'd0, ch_pop};
    end
    assign dbg_ops = ops;
    assign dbg_full = ch_count == 4'd8;
    assign dbg_empty = ch_count == 4'd0;
    assign dbg_done = {scale_end, load_end};
    // load: an element into the channel, waiting for a beat, waiting for room; scale: an
    // element taken, waiting for one, waiting for the write buffer
    assign dbg_work = {ch_pop, ch_push};
    assign dbg_wait_in = {running && !ch_out_valid && consumed != n_r, running && !lhave && emitted != n_r};
    assign dbg_wait_out = {running && ch_out_valid && !ob_free, ch_in_valid && !ch_in_ready};
    assign dbg_peak = {28'd0, ch_peak};
    /* verilator lint_off UNUSED */
    wire [63:0] unused_args = {args[255:224], args[191:160]};
    /* verilator lint_on UNUSED */
endmodule
