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
    localparam [31:0] BUF32 = BUF;
    localparam [CB-1:0] BUF_C = BUF32[CB-1:0];

    // Per lane: the beats of its ARs taken and not yet read from its buffer; whether its AR
    // fits, a cycle late (`fit`: a lane's reservation only shrinks until its AR is taken, and a
    // lane taken is left out for a cycle, its next AR not yet seen).
    reg  [CB-1:0] resv [0:LANES-1];
    reg  [LANES-1:0] fit;
    // Per AR in flight, in the order they went out: what it asks for and the lanes that asked.
    reg  [63:0]      o_addr [0:ORDER-1];
    reg  [7:0]       o_len  [0:ORDER-1];
    reg  [LANES-1:0] o_mask [0:ORDER-1];
    reg  [ORDER-1:0] o_live;  // the entry holds an AR in flight
    reg  [OB-1:0] o_head, o_tail;
    reg           o_started;  // the head's first beat has come
    reg  [ORDER-1:0] at_head;  // o_head, one-hot
    // Each beat is registered with the lanes of its AR (no lane joins an AR once its beats have
    // begun) before it enters their buffers.
    reg              rb_v;
    reg  [DW-1:0]    rb_data;
    reg  [LANES-1:0] rb_lanes;
    wire r_beat = m_rvalid && m_rready;
    wire retire = r_beat && m_rlast;
    reg              in_flight [0:LANES-1];  // lane k is in an AR in flight
    reg  [OB-1:0]    newest [0:LANES-1];     // the newest of them (the last it was taken into)

    // A lane's AR goes through three registered steps, so that no decision waits on another:
    // 1. chosen round-robin among the lanes whose AR fits and that are in no later step (`c1`);
    // 2. its address and length compared with every AR in flight and with the one going out,
    //    and which of them come after the lane's newest (`c2`, `c2_match`, `c2_after`);
    // 3. taken, joining the first AR in flight that it matches, that comes after the lane's
    //    newest and whose beats have not begun (AXI returns a lane's beats in order), or sent.
    // Step 3 waits while the port is busy and holds the steps before it. What step 2 compared
    // stays true while it waits: entries leave only at the head, and nothing is sent meanwhile.
    reg           c1_v, c2_v;
    reg  [LB-1:0] c1, c2;
    reg  [63:0]   c2_addr;
    reg  [7:0]    c2_len;
    reg  [ORDER-1:0] c2_match, c2_after;
    wire [LB-1:0] pick;
    wire          found;
    wire [LANES-1:0] busy = (c1_v ? {{(LANES - 1){1'b0}}, 1'b1} << c1 : {LANES{1'b0}})
                          | (c2_v ? {{(LANES - 1){1'b0}}, 1'b1} << c2 : {LANES{1'b0}});
    dpn_round_robin #(.LANES(LANES)) next_lane (.want(fit & ~busy), .last(c1), .found(found), .pick(pick));

    // Step 3.
    reg  [ORDER-1:0] can_join;
    integer j;
    always @* begin
        for (j = 0; j < ORDER; j = j + 1)
            can_join[j] = c2_match[j] && c2_after[j] && o_live[j]
                && !(at_head[j] && (o_started || m_rvalid));
    end
    // The lowest entry that can, each bit against an OR of those below it (a tree of LUTs).
    reg  [ORDER-1:0] first_join;
    always @* begin
        for (j = 0; j < ORDER; j = j + 1)
            first_join[j] = can_join[j] && !(|(can_join & ((1 << j) - 1)));
    end
    wire joins = JOIN != 0 && |can_join;
    wire take = c2_v && (joins || ((!m_arvalid || m_arready) && !(&o_live)));  // every entry alive: ORDER in flight
    wire send = take && !joins;
    always @(posedge clk) begin
        rb_v <= !rst && r_beat;
        rb_data <= m_rdata;
        rb_lanes <= o_mask[o_head];
    end
    // The take, a cycle later: its lane and the entry it went into.
    reg           took, took_joined;
    reg  [LB-1:0] took_lane;
    reg  [OB-1:0] took_tail;
    reg  [ORDER-1:0] took_first;
    always @(posedge clk) begin
        took <= !rst && take;
        took_joined <= joins;
        took_lane <= c2;
        took_tail <= o_tail;
        took_first <= first_join;
    end
    reg  [OB-1:0] took_at;
    always @* begin
        took_at = {OB{1'b0}};
        for (j = 0; j < ORDER; j = j + 1)
            if (took_first[j]) took_at = took_at | j[OB-1:0];
        if (!took_joined) took_at = took_tail;
    end
    wire step2 = !c2_v || take;  // step 2 moves on to step 3
    wire step1 = !c1_v || step2;

    // Step 2: the lane in step 1 against the entries (the one going out is written this edge).
    wire [63:0] want_addr = l_araddr[c1*64 +: 64];
    wire [7:0]  want_len = l_arlen[c1*8 +: 8];
    // Entry j comes after the lane's newest n (from the head h, in order): j > n and, where the
    // entries wrap (n < h), j < h; where they do not, j > n or j < h. Each a comparison with a
    // constant, not a difference of ages.
    wire          mine = in_flight[c1];
    wire [OB-1:0] newest_mine = newest[c1];
    wire          wraps = newest_mine < o_head;
    reg  [ORDER-1:0] match_next, after_next;
    reg           above, below;
    always @* begin
        for (j = 0; j < ORDER; j = j + 1) begin
            above = j[OB-1:0] > newest_mine;
            below = j[OB-1:0] < o_head;
            if (send && j[OB-1:0] == o_tail) begin
                match_next[j] = c2_addr == want_addr && c2_len == want_len;
                after_next[j] = 1'b1;
            end else begin
                match_next[j] = o_addr[j] == want_addr && o_len[j] == want_len;
                after_next[j] = !mine || (wraps ? above && below : above || below);
            end
        end
    end
    assign m_rready = 1'b1;

    genvar k;
    generate
        for (k = 0; k < LANES; k = k + 1) begin : g_lane
            wire [CB-1:0] beats = {{(CB - 9){1'b0}}, {1'b0, l_arlen[k*8 +: 8]} + 9'd1};
            assign l_arready[k] = take && c2 == k;
            wire push = rb_v && rb_lanes[k];
            wire pop = l_rvalid[k] && l_rready[k];
            wire [CB-1:0] resv_kept = resv[k] - {{(CB - 1){1'b0}}, pop};
            wire [CB-1:0] resv_taken = resv_kept + beats;
            always @(posedge clk) begin
                if (rst) begin
                    resv[k] <= {CB{1'b0}};
                    fit[k] <= 1'b0;
                end else begin
                    resv[k] <= l_arready[k] ? resv_taken : resv_kept;  // the take chooses between sums
                    fit[k] <= l_arvalid[k] && !l_arready[k] && resv[k] + beats <= BUF_C;
                end
            end
            // The newest AR in flight that lane k is in: the one it was last taken into (noted a
            // cycle after the take, before step 2 can see the lane again), until that AR's last
            // beat (it is then the head: ARs finish in order).
            always @(posedge clk) begin
                if (rst) in_flight[k] <= 1'b0;
                else if (took && took_lane == k) begin
                    in_flight[k] <= !(retire && took_at == o_head);
                    newest[k] <= took_at;
                end else if (retire && newest[k] == o_head) in_flight[k] <= 1'b0;
            end
            wire in_ready;
            /* verilator lint_off PINCONNECTEMPTY */
            dpn_fifo #(.W(DW), .DEPTH(BUF), .FULL_PASS(0), .RAM_MIN_DEPTH(4)) buffer (
                .clk(clk), .rst(rst),
                .in_valid(push), .in_ready(in_ready), .in_data(rb_data),
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
            o_addr[o_tail] <= c2_addr;
            o_len[o_tail] <= c2_len;
            o_mask[o_tail] <= {{(LANES - 1){1'b0}}, 1'b1} << c2;
        end
        for (j = 0; j < ORDER; j = j + 1)
            if (take && JOIN != 0 && first_join[j]) o_mask[j][c2] <= 1'b1;
        if (step2) begin
            c2 <= c1;
            c2_addr <= want_addr;
            c2_len <= want_len;
            c2_match <= match_next;
            c2_after <= after_next;
        end
    end
    always @(posedge clk) begin
        if (rst) begin
            m_arvalid <= 1'b0;
            c1_v <= 1'b0;
            c2_v <= 1'b0;
            c1 <= {LB{1'b0}};
            o_live <= {ORDER{1'b0}};
            o_head <= {OB{1'b0}};
            at_head <= {{(ORDER - 1){1'b0}}, 1'b1};
            o_tail <= {OB{1'b0}};
            o_started <= 1'b0;
        end else begin
            if (step2) c2_v <= c1_v;
            if (step1) begin
                c1_v <= found;
                if (found) c1 <= pick;
            end
            if (send) begin
                m_arvalid <= 1'b1;
                m_araddr <= c2_addr;
                m_arlen <= c2_len;
                o_tail <= o_tail + 1'b1;
            end else if (m_arready) begin
                m_arvalid <= 1'b0;
            end
            if (retire) begin
                o_head <= o_head + 1'b1;
                at_head <= {at_head[ORDER-2:0], at_head[ORDER-1]};
            end
            for (j = 0; j < ORDER; j = j + 1)  // the send last: it chooses between two values
                o_live[j] <= (send && j[OB-1:0] == o_tail) || (o_live[j] && !(retire && at_head[j]));
            if (r_beat) o_started <= !m_rlast;
        end
    end
endmodule
