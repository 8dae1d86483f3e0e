// dpnc-sim test top that misbehaves on purpose, chosen by argument 0 (mode); argument 1 is an array X on gmem0.
// Channels: fed, orphan. Processes: src, sink.
// mode 0: deadlock. src pushes 3 values into fed (depth 2, so it stalls full); sink first waits for a value on
//         orphan, which nobody writes. Neither process finishes.
// mode 1: AXI violation: a second AR is dropped (arvalid low again) before arready (run with max_outstanding 1).
// mode 2: AXI violation: AW of 2 beats, wlast on the first W beat.
// mode 3: one write to X, then ap_done without waiting for its write response (bready stays low).
// mode 4: a read at X + 8192, outside X.
// mode 5: narrow transfers: writes 0xA0000000 + i to the 32-bit words i = 0..3 at X + 4 (one 4-byte INCR
//         burst), waits for B, reads back X + 4 .. X + 12 (two 4-byte beats) and writes both beats, as
//         received, to X + 64 (one full-width 2-beat burst), waits for B, then ap_done.
// mode 6: AXI violation: a read at X whose data it never takes (rready stays low).
// other modes: src and sink exchange 3 values through fed, then ap_done; no memory traffic.
module misc_top (
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
    output wire [31:0]  dbg_ops,
    output wire [1:0]   dbg_full,
    output wire [1:0]   dbg_empty,
    output wire [1:0]   dbg_done,
    output wire [1:0]   dbg_work,
    output wire [1:0]   dbg_wait_in,
    output wire [1:0]   dbg_wait_out,
    output wire [63:0]  dbg_peak
);
    wire rst = !ap_rst_n;

    wire         ap_start;
    reg          ap_done_r;
    reg          running;
    reg          started;
    wire         start_now = ap_start && !running;
    wire [127:0] args;
    dpn_axi_lite_ctrl #(.NUM_ARGS(2)) ctrl (
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
    reg [7:0]  mode;
    reg [63:0] x_addr;

    // ---- channels
    wire       fed_in_ready, fed_out_valid, fed_out_ready;
    wire       orphan_in_ready, orphan_out_valid, orphan_out_ready;
    wire [1:0] fed_count, fed_peak;
    wire [1:0] orphan_count, orphan_peak;
    /* verilator lint_off UNUSED */
    wire [7:0] fed_out_data;
    wire [7:0] orphan_out_data;
    /* verilator lint_on UNUSED */
    reg  [1:0] pushed;
    reg  [1:0] popped;
    reg        got_orphan;
    wire       axi_mode = (mode >= 8'd1) && (mode <= 8'd6);
    wire       src_active = running && !axi_mode;
    wire       fed_push = src_active && (pushed != 2'd3) && fed_in_ready;
    wire       need_orphan = (mode == 8'd0) && !got_orphan;
    assign     orphan_out_ready = src_active && need_orphan;
    assign     fed_out_ready = src_active && !need_orphan && (popped != 2'd3);
    wire       fed_pop = fed_out_valid && fed_out_ready;
    dpn_fifo #(.W(8), .DEPTH(2)) fed (
        .clk(ap_clk), .rst(rst),
        .in_valid(src_active && (pushed != 2'd3)), .in_ready(fed_in_ready), .in_data({6'd0, pushed}),
        .out_valid(fed_out_valid), .out_ready(fed_out_ready), .out_data(fed_out_data),
        .count(fed_count), .peak(fed_peak)
    );
    dpn_fifo #(.W(8), .DEPTH(2)) orphan (
        .clk(ap_clk), .rst(rst),
        .in_valid(1'b0), .in_ready(orphan_in_ready), .in_data(8'd0),
        .out_valid(orphan_out_valid), .out_ready(orphan_out_ready), .out_data(orphan_out_data),
        .count(orphan_count), .peak(orphan_peak)
    );
    wire src_done = started && (axi_mode || pushed == 2'd3);
    wire sink_done = started && (axi_mode || popped == 2'd3);

    // ---- hand-rolled AXI master
    reg        arvalid_r;
    reg [63:0] araddr_r;
    reg        awvalid_r;
    reg [7:0]  awlen_r;
    reg        wvalid_r;
    reg        wlast_r;
    reg [2:0]  st;
    reg [63:0] awaddr_r;
    reg [2:0]  awsize_r;
    reg [7:0]  arlen_r;
    reg [2:0]  arsize_r;
    reg [63:0] wdata_r;
    reg [7:0]  wstrb_r;
    reg [1:0]  wb;         // mode 5: W beats sent in the current burst
    reg        rb;         // mode 5: R beats received
    reg [63:0] r0, r1;
    reg        bready_r;
    assign m_axi_gmem0_arvalid = arvalid_r;
    assign m_axi_gmem0_araddr = araddr_r;
    assign m_axi_gmem0_arlen = arlen_r;
    assign m_axi_gmem0_arsize = arsize_r;
    assign m_axi_gmem0_arburst = 2'b01;
    assign m_axi_gmem0_rready = mode != 8'd6;
    assign m_axi_gmem0_awvalid = awvalid_r;
    assign m_axi_gmem0_awaddr = awaddr_r;
    assign m_axi_gmem0_awlen = awlen_r;
    assign m_axi_gmem0_awsize = awsize_r;
    assign m_axi_gmem0_awburst = 2'b01;
    assign m_axi_gmem0_wvalid = wvalid_r;
    assign m_axi_gmem0_wdata = wdata_r;
    assign m_axi_gmem0_wstrb = wstrb_r;
    assign m_axi_gmem0_wlast = wlast_r;
    assign m_axi_gmem0_bready = bready_r;
    /* verilator lint_off UNUSED */
    wire [70:0] unused_r = {m_axi_gmem0_rvalid, m_axi_gmem0_rdata, m_axi_gmem0_rlast, m_axi_gmem0_rresp,
                            m_axi_gmem0_bvalid, m_axi_gmem0_bresp};
    wire        unused_ready = orphan_in_ready;
    /* verilator lint_on UNUSED */

    always @(posedge ap_clk) begin
        if (rst) begin
            running <= 1'b0;
            started <= 1'b0;
            ap_done_r <= 1'b0;
            mode <= 8'd0;
            x_addr <= 64'd0;
            pushed <= 2'd0;
            popped <= 2'd0;
            got_orphan <= 1'b0;
            arvalid_r <= 1'b0;
            araddr_r <= 64'd0;
            awvalid_r <= 1'b0;
            awlen_r <= 8'd0;
            wvalid_r <= 1'b0;
            wlast_r <= 1'b0;
            st <= 3'd0;
            awaddr_r <= 64'd0;
            awsize_r <= 3'd3;
            arlen_r <= 8'd0;
            arsize_r <= 3'd3;
            wdata_r <= 64'h0123456789abcdef;
            wstrb_r <= 8'hFF;
            wb <= 2'd0;
            rb <= 1'b0;
            r0 <= 64'd0;
            r1 <= 64'd0;
            bready_r <= 1'b0;
        end else begin
            ap_done_r <= 1'b0;
            if (start_now) begin
                running <= 1'b1;
                started <= 1'b1;
                mode <= args[7:0];
                x_addr <= args[127:64];
                st <= 3'd0;
                awaddr_r <= args[127:64];
                pushed <= 2'd0;
                popped <= 2'd0;
                got_orphan <= 1'b0;
            end else if (running) begin
                if (fed_push) pushed <= pushed + 2'd1;
                if (fed_pop) popped <= popped + 2'd1;
                if (orphan_out_valid && orphan_out_ready) got_orphan <= 1'b1;
                if (!axi_mode && popped == 2'd3) begin
                    running <= 1'b0;
                    ap_done_r <= 1'b1;
                end
                case (mode)
                    8'd1: case (st)
                        3'd0: begin arvalid_r <= 1'b1; araddr_r <= x_addr; st <= 3'd1; end
                        3'd1: if (m_axi_gmem0_arready) begin araddr_r <= x_addr + 64'd8; st <= 3'd2; end
                        3'd2: begin arvalid_r <= m_axi_gmem0_arready; st <= 3'd3; end  // dropped unless accepted
                        default: ;
                    endcase
                    8'd2: case (st)
                        3'd0: begin awvalid_r <= 1'b1; awlen_r <= 8'd1; st <= 3'd1; end
                        3'd1: if (m_axi_gmem0_awready) begin awvalid_r <= 1'b0; wvalid_r <= 1'b1; wlast_r <= 1'b1; st <= 3'd2; end
                        3'd2: if (m_axi_gmem0_wready) begin wvalid_r <= 1'b0; st <= 3'd3; end
                        default: ;
                    endcase
                    8'd3: case (st)
                        3'd0: begin awvalid_r <= 1'b1; awlen_r <= 8'd0; wvalid_r <= 1'b1; wlast_r <= 1'b1; st <= 3'd1; end
                        3'd1: begin
                            if (m_axi_gmem0_awready) awvalid_r <= 1'b0;
                            if (m_axi_gmem0_wready && wvalid_r) wvalid_r <= 1'b0;
                            if ((m_axi_gmem0_awready || !awvalid_r) && (m_axi_gmem0_wready || !wvalid_r)) st <= 3'd2;
                        end
                        3'd2: begin running <= 1'b0; ap_done_r <= 1'b1; st <= 3'd3; end
                        default: ;
                    endcase
                    8'd4, 8'd6: case (st)
                        3'd0: begin arvalid_r <= 1'b1; araddr_r <= mode == 8'd4 ? x_addr + 64'd8192 : x_addr; st <= 3'd1; end
                        3'd1: if (m_axi_gmem0_arready) begin arvalid_r <= 1'b0; st <= 3'd2; end
                        default: ;
                    endcase
                    8'd5: case (st)
                        3'd0: begin  // narrow write burst: 4 beats of 4 bytes from X + 4
                            awvalid_r <= 1'b1; awaddr_r <= x_addr + 64'd4; awlen_r <= 8'd3; awsize_r <= 3'd2;
                            wvalid_r <= 1'b1; wb <= 2'd0; wdata_r <= {2{32'hA0000000}}; wstrb_r <= 8'hF0; wlast_r <= 1'b0;
                            bready_r <= 1'b1; st <= 3'd1;
                        end
                        3'd1: begin
                            if (m_axi_gmem0_awready) awvalid_r <= 1'b0;
                            if (wvalid_r && m_axi_gmem0_wready) begin
                                wb <= wb + 2'd1;
                                wdata_r <= {2{32'hA0000000 + {30'd0, wb} + 32'd1}};
                                wstrb_r <= ~wstrb_r;  // the beats' addresses alternate between the upper and lower word
                                wlast_r <= (wb == 2'd2);
                                if (wlast_r) wvalid_r <= 1'b0;
                            end
                            if (m_axi_gmem0_bvalid) begin
                                arvalid_r <= 1'b1; araddr_r <= x_addr + 64'd4; arlen_r <= 8'd1; arsize_r <= 3'd2;
                                rb <= 1'b0; st <= 3'd2;
                            end
                        end
                        3'd2: begin  // narrow read of 2 beats
                            if (arvalid_r && m_axi_gmem0_arready) arvalid_r <= 1'b0;
                            if (m_axi_gmem0_rvalid) begin
                                if (rb) r1 <= m_axi_gmem0_rdata; else r0 <= m_axi_gmem0_rdata;
                                rb <= 1'b1;
                                if (m_axi_gmem0_rlast) st <= 3'd3;
                            end
                        end
                        3'd3: begin  // both beats, as received, to X + 64
                            awvalid_r <= 1'b1; awaddr_r <= x_addr + 64'd64; awlen_r <= 8'd1; awsize_r <= 3'd3;
                            wvalid_r <= 1'b1; wdata_r <= r0; wstrb_r <= 8'hFF; wlast_r <= 1'b0; wb <= 2'd0;
                            st <= 3'd4;
                        end
                        3'd4: begin
                            if (m_axi_gmem0_awready) awvalid_r <= 1'b0;
                            if (wvalid_r && m_axi_gmem0_wready) begin
                                wb <= wb + 2'd1;
                                wdata_r <= r1;
                                wlast_r <= 1'b1;
                                if (wlast_r) wvalid_r <= 1'b0;
                            end
                            if (m_axi_gmem0_bvalid) begin
                                bready_r <= 1'b0; running <= 1'b0; ap_done_r <= 1'b1; st <= 3'd5;
                            end
                        end
                        default: ;
                    endcase
                    default: ;
                endcase
            end
        end
    end

    reg [31:0] ops;
    always @(posedge ap_clk) begin
        if (rst) ops <= 32'd0;
        else ops <= ops + {31'd0, fed_push} + {31'd0, fed_pop};
    end
    assign dbg_ops = ops;
    assign dbg_full = {orphan_count == 2'd2, fed_count == 2'd2};
    assign dbg_empty = {orphan_count == 2'd0, fed_count == 2'd0};
    assign dbg_done = {sink_done, src_done};
    assign dbg_work = 2'b00;  // not counted here
    assign dbg_wait_in = 2'b00;
    assign dbg_wait_out = 2'b00;
    assign dbg_peak = {30'd0, orphan_peak, 30'd0, fed_peak};
    /* verilator lint_off UNUSED */
    wire [55:0] unused_args = {args[63:8]};
    /* verilator lint_on UNUSED */
endmodule
