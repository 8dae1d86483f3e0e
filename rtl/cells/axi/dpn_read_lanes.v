// Read lanes: LANES readers that issue and consume independently share one AXI4 read channel.
// A lane's AR is taken only when its read buffer has room for every beat of the burst, so R
// never waits (rready is always high) and a lane whose consumers are slow never holds back the
// beats of another. The port sees one AR a cycle at most, registered (its payload is stable while
// it waits); the beats go to the lanes in the order their ARs went out (one ID: AXI keeps them in
// order). Lanes are served round-robin among those whose bursts fit. A lane's AR that asks for
// exactly what an AR in flight asks for, whose beats have not begun to come back, joins it: its
// beats go to every lane that asked (lanes that read neighbouring cells of one line fetch it once).
// Not with JOIN = 0, for an array the kernel also writes: a lane's read may wait for its own
// store, which an AR issued before it would not see.
module dpn_read_lanes #(
    parameter LANES = 2,
    parameter DW = 512,     // beat width in bits
    parameter BUF = 32,     // beats buffered per lane: at least a lane's longest burst
    parameter ORDER = 32,   // ARs in flight on the port (a power of two)
    parameter JOIN = 1      // an AR may join one in flight that asks for the same beats
) (
    input  wire                clk,
    input  wire                rst,
    // The lanes' read channels (lane k in bits k*64 +: 64 and so on).
    input  wire [LANES-1:0]    l_arvalid,
    output wire [LANES-1:0]    l_arready,
    input  wire [LANES*64-1:0] l_araddr,
    input  wire [LANES*8-1:0]  l_arlen,
    output wire [LANES-1:0]    l_rvalid,
    input  wire [LANES-1:0]    l_rready,
    output wire [LANES*DW-1:0] l_rdata,
    // The port's.
    output reg                 m_arvalid,
    input  wire                m_arready,
    output reg  [63:0]         m_araddr,
    output reg  [7:0]          m_arlen,
    input  wire                m_rvalid,
    output wire                m_rready,
    input  wire [DW-1:0]       m_rdata,
    input  wire                m_rlast
);
    localparam LB = LANES > 1 ? $clog2(LANES) : 1;
    localparam CB = 10;  // a reservation plus a burst's beats (BUF < 512)
    localparam OB = $clog2(ORDER);
    localparam [31:0] BUF32 = BUF, ORDER32 = ORDER, LANES32 = LANES;
    localparam [CB-1:0] BUF_C = BUF32[CB-1:0];
    localparam [OB:0] ORDER_C = ORDER32[OB:0];
    localparam [LB:0] LANES_C = LANES32[LB:0];

    // Per lane: the beats of its ARs taken and not yet read from its buffer; whether its AR fits.
    reg  [CB-1:0] resv [0:LANES-1];
    wire [LANES-1:0] fit;
    // Per AR in flight, in the order they went out: what it asks for and the lanes that asked.
    reg  [63:0]      o_addr [0:ORDER-1];
    reg  [7:0]       o_len  [0:ORDER-1];
    reg  [LANES-1:0] o_mask [0:ORDER-1];
    reg  [OB-1:0] o_head, o_tail;
    reg  [OB:0]   o_count;
    reg           o_started;  // the head's first beat has come
    wire [LANES-1:0] r_lanes = o_mask[o_head];

    // The next lane after the last one served whose AR fits.
    reg  [LB-1:0] last;
    wire [LB-1:0] pick;
    wire          found;
    dpn_round_robin #(.LANES(LANES)) next_lane (.want(fit), .last(last), .found(found), .pick(pick));
    wire r_beat = m_rvalid && m_rready;
    // An AR in flight that the picked lane's AR can join: one that asks for the same beats, has
    // not begun to return them, and comes after every AR of that lane (its beats stay in order).
    // Per lane, the newest AR in flight that it is in is kept in a register (it is the last AR
    // the lane was taken into), so that the entries are compared side by side and the first
    // that matches is found by a priority encoder, not by a chain through every entry.
    wire [63:0] want_addr = l_araddr[pick*64 +: 64];
    wire [7:0]  want_len = l_arlen[pick*8 +: 8];
    reg              in_flight [0:LANES-1];  // lane k is in an AR in flight
    reg  [OB-1:0]    newest [0:LANES-1];     // the newest of them
    wire          mine = in_flight[pick];
    wire [OB-1:0] newest_mine = newest[pick] - o_head;  // its age (place after the head)
    reg  [ORDER-1:0] can_join;
    reg  [OB-1:0] age;
    integer j;
    always @* begin
        for (j = 0; j < ORDER; j = j + 1) begin
            age = j[OB-1:0] - o_head;
            can_join[j] = {1'b0, age} < o_count && (!mine || age > newest_mine)
                && !(age == {OB{1'b0}} && (o_started || m_rvalid))
                && o_addr[j] == want_addr && o_len[j] == want_len;
        end
    end
    wire [ORDER-1:0] first_join = can_join & (~can_join + {{(ORDER - 1){1'b0}}, 1'b1});  // the lowest entry that can
    wire joins = JOIN != 0 && |can_join;
    reg  [OB-1:0] joins_at;
    always @* begin
        joins_at = {OB{1'b0}};
        for (j = 0; j < ORDER; j = j + 1)
            if (first_join[j]) joins_at = joins_at | j[OB-1:0];
    end
    wire take = found && (joins || ((!m_arvalid || m_arready) && o_count != ORDER_C));
    wire send = take && !joins;
    assign m_rready = 1'b1;

    genvar k;
    generate
        for (k = 0; k < LANES; k = k + 1) begin : g_lane
            wire [CB-1:0] beats = {{(CB - 9){1'b0}}, {1'b0, l_arlen[k*8 +: 8]} + 9'd1};
            assign fit[k] = l_arvalid[k] && resv[k] + beats <= BUF_C;
            assign l_arready[k] = take && pick == k;
            wire push = r_beat && r_lanes[k];
            wire pop = l_rvalid[k] && l_rready[k];
            always @(posedge clk) begin
                if (rst) resv[k] <= {CB{1'b0}};
                else resv[k] <= resv[k] + (l_arready[k] ? beats : {CB{1'b0}}) - {{(CB - 1){1'b0}}, pop};
            end
            // The newest AR in flight that lane k is in: the one it was last taken into, until
            // that AR's last beat (it is then the head: ARs finish in order).
            always @(posedge clk) begin
                if (rst) in_flight[k] <= 1'b0;
                else if (l_arready[k]) begin
                    in_flight[k] <= 1'b1;
                    newest[k] <= joins ? joins_at : o_tail;
                end else if (r_beat && m_rlast && newest[k] == o_head) in_flight[k] <= 1'b0;
            end
            wire in_ready;
            /* verilator lint_off PINCONNECTEMPTY */
            dpn_fifo #(.W(DW), .DEPTH(BUF), .FULL_PASS(0), .RAM_MIN_DEPTH(4)) buffer (
                .clk(clk), .rst(rst),
                .in_valid(push), .in_ready(in_ready), .in_data(m_rdata),
                .out_valid(l_rvalid[k]), .out_ready(l_rready[k]), .out_data(l_rdata[k*DW +: DW]),
                .count(), .peak()
            );
            /* verilator lint_on PINCONNECTEMPTY */
`ifndef SYNTHESIS
            always @(posedge clk) begin
                if (!rst && push && !in_ready) begin
                    $display("dpn_read_lanes: lane %0d's buffer overflowed (internal error)", k);
                    $stop;
                end
            end
`endif
        end
    endgenerate

    always @(posedge clk) begin
        if (send) begin
            o_addr[o_tail] <= l_araddr[pick*64 +: 64];
            o_len[o_tail] <= l_arlen[pick*8 +: 8];
            o_mask[o_tail] <= {{(LANES - 1){1'b0}}, 1'b1} << pick;
        end
        if (take && joins) o_mask[joins_at][pick] <= 1'b1;
    end
    always @(posedge clk) begin
        if (rst) begin
            m_arvalid <= 1'b0;
            last <= LANES_C[LB-1:0] - 1'b1;
            o_head <= {OB{1'b0}};
            o_tail <= {OB{1'b0}};
            o_count <= {(OB + 1){1'b0}};
            o_started <= 1'b0;
        end else begin
            if (take) last <= pick;
            if (send) begin
                m_arvalid <= 1'b1;
                m_araddr <= l_araddr[pick*64 +: 64];
                m_arlen <= l_arlen[pick*8 +: 8];
                o_tail <= o_tail + 1'b1;
            end else if (m_arready) begin
                m_arvalid <= 1'b0;
            end
            if (r_beat && m_rlast) o_head <= o_head + 1'b1;
            if (r_beat) o_started <= !m_rlast;
            o_count <= o_count + {{OB{1'b0}}, send} - {{OB{1'b0}}, r_beat && m_rlast};
        end
    end
endmodule
