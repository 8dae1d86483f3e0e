// Write lanes: LANES writers that issue independently share one AXI4 write channel. The port
// sees one AW a cycle at most, registered (its payload is stable while it waits); AXI4 does not
// interleave write data, so each burst's W beats go in the order the AWs were taken, and only
// once the port has taken the AW (W never runs ahead of AW, as in a single writer); each B goes
// back to the lane whose AW it answers (one ID: AXI keeps the responses in order). A lane offers
// its AW once the burst's beats are buffered, so the W of the burst at the head never waits for
// a lane. Lanes are served round-robin among those that offer an AW, each chosen a cycle before
// its AW is taken. Each lane's AW waits in a slice of two entries, so that the lane's awready is
// a register (the slice not full) rather than the decision among the lanes.
module dpn_write_lanes #(
    parameter LANES = 2,
    parameter DW = 512,     // beat width in bits
    parameter ORDER = 32    // bursts taken and not yet answered (a power of two)
) (
    input  wire                  clk,
    input  wire                  rst,
    // The lanes' write channels (lane k in bits k*64 +: 64 and so on); their B is always ready.
    input  wire [LANES-1:0]      l_awvalid,
    output wire [LANES-1:0]      l_awready,
    input  wire [LANES*64-1:0]   l_awaddr,
    input  wire [LANES*8-1:0]    l_awlen,
    input  wire [LANES-1:0]      l_wvalid,
    output wire [LANES-1:0]      l_wready,
    input  wire [LANES*DW-1:0]   l_wdata,
    input  wire [LANES*DW/8-1:0] l_wstrb,
    input  wire [LANES-1:0]      l_wlast,
    output wire [LANES-1:0]      l_bvalid,
    // The port's.
    output reg                   m_awvalid,
    input  wire                  m_awready,
    output reg  [63:0]           m_awaddr,
    output reg  [7:0]            m_awlen,
    output wire                  m_wvalid,
    input  wire                  m_wready,
    output wire [DW-1:0]         m_wdata,
    output wire [DW/8-1:0]       m_wstrb,
    output wire                  m_wlast,
    input  wire                  m_bvalid,
    output wire                  m_bready
);
    localparam LB = LANES > 1 ? $clog2(LANES) : 1;
    localparam OB = $clog2(ORDER);
    localparam [31:0] ORDER32 = ORDER;
    localparam [OB:0] ORDER_C = ORDER32[OB:0];

    // The lanes of the bursts taken, in order: one queue for their W beats, one for their B.
    reg  [LB-1:0] w_order [0:ORDER-1];
    reg  [LB-1:0] b_order [0:ORDER-1];
    reg  [OB-1:0] w_head, w_tail, b_head, b_tail;
    reg  [OB:0]   w_count, b_count;
    reg  [OB:0]   sent;  // bursts whose AW the port took and whose W beats have not all gone

    // The AW at the head of each lane's slice, and whether it is taken this cycle.
    wire [LANES-1:0]    a_valid, a_taken;
    wire [LANES*64-1:0] a_addr;
    wire [LANES*8-1:0]  a_len;

    // The lane whose AW goes next, chosen a cycle ahead (`cand`), round-robin among the others
    // that offer one: a lane's AW stays offered until taken, so the choice holds while it waits.
    // `cand` is one-hot, kept with the mask of the lanes after it (the round robin's).
    reg           cand_v;
    reg  [LANES-1:0] cand, cand_above;
    wire [LANES-1:0] grant, grant_above;
    wire          found;
    dpn_round_robin #(.LANES(LANES)) next_lane (
        .want(a_valid & ~(cand & {LANES{cand_v}})), .above(cand_above),
        .found(found), .grant(grant), .grant_above(grant_above)
    );
    reg  [LB-1:0] cand_lane;  // its number
    integer i;
    always @* begin
        cand_lane = {LB{1'b0}};
        for (i = 0; i < LANES; i = i + 1)
            if (cand[i]) cand_lane = cand_lane | i[LB-1:0];
    end
    wire take = cand_v && (!m_awvalid || m_awready) && w_count != ORDER_C && b_count != ORDER_C;
    wire aw_beat = m_awvalid && m_awready;

    // W: the beats of the oldest burst whose AW went out.
    wire [LB-1:0] w_lane = w_order[w_head];
    wire          w_on = w_count != {(OB + 1){1'b0}} && sent != {(OB + 1){1'b0}};
    assign m_wvalid = w_on && l_wvalid[w_lane];
    assign m_wdata = l_wdata[w_lane*DW +: DW];
    assign m_wstrb = l_wstrb[w_lane*(DW/8) +: DW/8];
    assign m_wlast = l_wlast[w_lane];
    wire w_end = m_wvalid && m_wready && m_wlast;

    // B: to the lane of the oldest burst not yet answered.
    assign m_bready = 1'b1;
    wire [LB-1:0] b_lane = b_order[b_head];

    genvar k;
    generate
        for (k = 0; k < LANES; k = k + 1) begin : g_lane
            /* verilator lint_off PINCONNECTEMPTY */
            dpn_fifo_reg #(.W(72), .DEPTH(2), .FULL_PASS(0), .OUT_REG(1)) aw_slice (
                .clk(clk), .rst(rst),
                .in_valid(l_awvalid[k]), .in_ready(l_awready[k]), .in_data({l_awlen[k*8 +: 8], l_awaddr[k*64 +: 64]}),
                .out_valid(a_valid[k]), .out_ready(a_taken[k]), .out_data({a_len[k*8 +: 8], a_addr[k*64 +: 64]}),
                .count(), .peak()
            );
            /* verilator lint_on PINCONNECTEMPTY */
            assign a_taken[k] = take && cand[k];
            assign l_wready[k] = w_on && w_lane == k && m_wready;
            assign l_bvalid[k] = m_bvalid && b_lane == k;
        end
    endgenerate

    always @(posedge clk) begin
        if (take) begin
            w_order[w_tail] <= cand_lane;
            b_order[b_tail] <= cand_lane;
        end
    end
    always @(posedge clk) begin
        if (rst) begin
            m_awvalid <= 1'b0;
            cand_v <= 1'b0;
            cand <= {LANES{1'b0}};
            cand_above <= ~{{(LANES - 1){1'b0}}, 1'b1};  // as if lane 0 were served last
            w_head <= {OB{1'b0}};
            w_tail <= {OB{1'b0}};
            b_head <= {OB{1'b0}};
            b_tail <= {OB{1'b0}};
            w_count <= {(OB + 1){1'b0}};
            b_count <= {(OB + 1){1'b0}};
            sent <= {(OB + 1){1'b0}};
        end else begin
            // Not held when no lane is found (it would wait on `found`): the lanes after none are
            // none, and the next choice starts from lane 0, as a lane that waits is always found.
            if (!cand_v || take) begin
                cand_v <= found;
                cand <= grant;
                cand_above <= grant_above;
            end
            if (take) begin
                m_awvalid <= 1'b1;
                m_awaddr <= a_addr[cand_lane*64 +: 64];
                m_awlen <= a_len[cand_lane*8 +: 8];
                w_tail <= w_tail + 1'b1;
                b_tail <= b_tail + 1'b1;
            end else if (m_awready) begin
                m_awvalid <= 1'b0;
            end
            if (w_end) w_head <= w_head + 1'b1;
            if (m_bvalid) b_head <= b_head + 1'b1;
            w_count <= w_count + {{OB{1'b0}}, take} - {{OB{1'b0}}, w_end};
            b_count <= b_count + {{OB{1'b0}}, take} - {{OB{1'b0}}, m_bvalid};
            sent <= sent + {{OB{1'b0}}, aw_beat} - {{OB{1'b0}}, w_end};
        end
    end
`ifndef SYNTHESIS
    always @(posedge clk) begin
        if (!rst && m_bvalid && b_count == {(OB + 1){1'b0}}) begin
            $display("dpn_write_lanes: a write response with no burst awaiting it (internal error)");
            $stop;
        end
    end
`endif
endmodule
