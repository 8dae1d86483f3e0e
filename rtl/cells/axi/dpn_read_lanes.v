// Read lanes: LANES readers that issue and consume independently share one AXI4 read channel.
// A lane's AR is taken only when its read buffer has room for every beat of the burst, so R
// never waits (rready is always high) and a lane whose consumers are slow never holds back the
// beats of another. Each lane's AR waits in a slice of two entries, so that the lane's arready
// is a register (the slice not full) rather than the decision among the lanes. The port sees
// one AR a cycle at most, registered (its payload is stable while it waits); the beats go to the
// lanes in the order their ARs went out (one ID: AXI keeps them in order). Lanes are served
// round-robin among those whose bursts fit. A lane's AR that asks for exactly what an AR in
// flight asks for, whose beats have not begun to come back, joins it: its beats go to every
// lane that asked (lanes that read neighbouring cells of one line fetch it once).
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

    // The AR at the head of each lane's slice.
    wire [LANES-1:0]    a_valid;
    wire [LANES*64-1:0] a_addr;
    wire [LANES*8-1:0]  a_len;

    // Per lane: the beats of its ARs taken and not yet read from its buffer; whether its AR
    // fits, a cycle late (`fit`: a lane's reservation only shrinks until its AR is taken); and
    // its AR taken, a cycle late (`a_taken`): the take is the end of the longest decision here,
    // so the slice's pop and the reservation follow a register, and the lane is left out until
    // its next AR is seen.
    reg  [CB-1:0] resv [0:LANES-1];
    reg  [LANES-1:0] fit, a_taken;
    // Per AR in flight, in the order they went out: what it asks for and the lanes that asked.
    reg  [63:0]      o_addr [0:ORDER-1];
    reg  [7:0]       o_len  [0:ORDER-1];
    reg  [LANES-1:0] o_mask [0:ORDER-1];
    reg  [ORDER-1:0] o_live;  // the entry holds an AR in flight
    reg  [OB-1:0] o_head, o_tail;
    reg           o_started;  // the head's first beat has come
    reg  [ORDER-1:0] at_head, at_tail;  // o_head and o_tail, one-hot
    // Each beat is registered with the lanes of its AR (no lane joins an AR once its beats have
    // begun) before it enters their buffers.
    reg              rb_v;
    reg  [DW-1:0]    rb_data;
    reg  [LANES-1:0] rb_lanes;
    wire r_beat = m_rvalid && m_rready;
    wire retire = r_beat && m_rlast;
    reg              in_flight [0:LANES-1];  // lane k is in an AR in flight
    reg  [OB-1:0]    newest [0:LANES-1];     // the newest of them (the last it was taken into)

    // A lane's AR goes through four registered steps, so that no decision waits on another:
    // 1. chosen round-robin among the lanes whose AR fits and that are in no later step (`c1`,
    //    one-hot, kept with the mask of the lanes after it for the round robin);
    // 2. its AR read, with the newest AR in flight that the lane is in (`c2_addr`, `c2_newest`);
    // 3. that address and length compared with every AR in flight and with the one going out
    //    (`c3_lo`, `c3_hi`: a half of the bits each), and which of them are alive and come after
    //    the lane's newest (`c3_ok`, cleared as the head retires);
    // 4. taken, joining the first AR in flight that it matches, that comes after the lane's
    //    newest and whose beats have not begun (AXI returns a lane's beats in order), or sent.
    // Step 4 waits while the port is busy and holds the steps before it. What step 3 compared
    // stays true while it waits: entries leave only at the head, and nothing is sent meanwhile.
    reg           c1_v, c2_v, c3_v;
    reg  [LANES-1:0] c1, c2, c3, c1_above;
    reg  [LB-1:0] c1_lane, c3_lane;  // c1 and c3 by number
    reg  [63:0]   c2_addr, c3_addr;
    reg  [7:0]    c2_len, c3_len;
    reg           c2_mine;    // the lane is in an AR in flight
    reg  [OB-1:0] c2_newest;  // the newest of them
    reg  [ORDER-1:0] c3_lo, c3_hi, c3_ok;
    wire [LANES-1:0] grant, grant_above;
    wire          found;
    wire [LANES-1:0] busy = (c1 & {LANES{c1_v}}) | (c2 & {LANES{c2_v}}) | (c3 & {LANES{c3_v}});
    dpn_round_robin #(.LANES(LANES)) next_lane (
        .want(fit & ~busy & ~a_taken), .above(c1_above),
        .found(found), .grant(grant), .grant_above(grant_above)
    );
    integer j;
    always @* begin
        c1_lane = {LB{1'b0}};
        c3_lane = {LB{1'b0}};
        for (j = 0; j < LANES; j = j + 1) begin
            if (c1[j]) c1_lane = c1_lane | j[LB-1:0];
            if (c3[j]) c3_lane = c3_lane | j[LB-1:0];
        end
    end

    // Step 4.
    reg  [ORDER-1:0] can_join;
    always @* begin
        for (j = 0; j < ORDER; j = j + 1)
            can_join[j] = c3_lo[j] && c3_hi[j] && c3_ok[j] && !(at_head[j] && (o_started || m_rvalid));
    end
    // The lowest entry that can, each bit against an OR of those below it (a tree of LUTs).
    reg  [ORDER-1:0] first_join;
    always @* begin
        for (j = 0; j < ORDER; j = j + 1)
            first_join[j] = can_join[j] && !(|(can_join & ((1 << j) - 1)));
    end
    wire joins = JOIN != 0 && |can_join;
    wire take = c3_v && (joins || ((!m_arvalid || m_arready) && !(&o_live)));  // every entry alive: ORDER in flight
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
        took_lane <= c3_lane;
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
    wire step3 = !c3_v || take;  // step 3 moves on to step 4
    wire step2 = !c2_v || step3;
    wire step1 = !c1_v || step2;

    // Step 3: the lane in step 2 against the entries (the one going out is written this edge).
    // Entry j comes after the lane's newest n (from the head h, in order): j > n and, where the
    // entries wrap (n < h), j < h; where they do not, j > n or j < h. Each a comparison with a
    // constant, not a difference of ages. (An AR of the lane's that retires between steps 2 and
    // 3 leaves the entries after it fewer than they are: the lane joins none of them.)
    wire          wraps = c2_newest < o_head;
    wire          same_lo = c3_addr[31:0] == c2_addr[31:0];
    wire          same_hi = c3_addr[63:32] == c2_addr[63:32] && c3_len == c2_len;
    // Each of the next values below takes the send last: it chooses between values formed
    // before it (`stays`: entry j stays alive this edge; `sent`: it is the one going out).
    reg  [ORDER-1:0] lo_next, hi_next, ok_next, live_next;
    reg           above, below, stays, sent;
    always @* begin
        for (j = 0; j < ORDER; j = j + 1) begin
            above = j[OB-1:0] > c2_newest;
            below = j[OB-1:0] < o_head;
            stays = o_live[j] && !(retire && at_head[j]);
            sent = send && at_tail[j];
            live_next[j] = sent || stays;
            lo_next[j] = sent ? same_lo : o_addr[j][31:0] == c2_addr[31:0];
            hi_next[j] = sent ? same_hi : o_addr[j][63:32] == c2_addr[63:32] && o_len[j] == c2_len;
            ok_next[j] = sent || (step3 ? stays && (!c2_mine || (wraps ? above && below : above || below))
                                        : stays && c3_ok[j]);
        end
    end
    assign m_rready = 1'b1;

    genvar k;
    generate
        for (k = 0; k < LANES; k = k + 1) begin : g_lane
            /* verilator lint_off PINCONNECTEMPTY */
            dpn_fifo_reg #(.W(72), .DEPTH(2), .FULL_PASS(0), .OUT_REG(1)) ar_slice (
                .clk(clk), .rst(rst),
                .in_valid(l_arvalid[k]), .in_ready(l_arready[k]), .in_data({l_arlen[k*8 +: 8], l_araddr[k*64 +: 64]}),
                .out_valid(a_valid[k]), .out_ready(a_taken[k]), .out_data({a_len[k*8 +: 8], a_addr[k*64 +: 64]}),
                .count(), .peak()
            );
            /* verilator lint_on PINCONNECTEMPTY */
            wire [CB-1:0] beats = {{(CB - 9){1'b0}}, {1'b0, a_len[k*8 +: 8]} + 9'd1};
            wire push = rb_v && rb_lanes[k];
            // A beat the lane read frees its place in the reservation a cycle later: the
            // lane's rready comes late in the cycle (after its fan-out), and a late free only
            // holds an AR back a cycle, never lets the buffer overflow.
            reg popped;
            always @(posedge clk) popped <= !rst && l_rvalid[k] && l_rready[k];
            wire [CB-1:0] resv_kept = resv[k] - {{(CB - 1){1'b0}}, popped};
            wire [CB-1:0] resv_taken = resv_kept + beats;
            always @(posedge clk) begin
                if (rst) begin
                    resv[k] <= {CB{1'b0}};
                    fit[k] <= 1'b0;
                    a_taken[k] <= 1'b0;
                end else begin
                    resv[k] <= a_taken[k] ? resv_taken : resv_kept;  // the take chooses between sums
                    fit[k] <= a_valid[k] && !a_taken[k] && resv[k] + beats <= BUF_C;
                    a_taken[k] <= take && c3[k];
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
            o_addr[o_tail] <= c3_addr;
            o_len[o_tail] <= c3_len;
            o_mask[o_tail] <= c3;
        end
        for (j = 0; j < ORDER; j = j + 1)
            if (take && JOIN != 0 && first_join[j]) o_mask[j] <= o_mask[j] | c3;
        if (step2) begin
            c2 <= c1;
            c2_addr <= a_addr[c1_lane*64 +: 64];
            c2_len <= a_len[c1_lane*8 +: 8];
            c2_mine <= in_flight[c1_lane];
            c2_newest <= newest[c1_lane];
        end
        if (step3) begin
            c3 <= c2;
            c3_addr <= c2_addr;
            c3_len <= c2_len;
            c3_lo <= lo_next;
            c3_hi <= hi_next;
        end
    end
    always @(posedge clk) begin
        if (rst) begin
            m_arvalid <= 1'b0;
            c1_v <= 1'b0;
            c2_v <= 1'b0;
            c3_v <= 1'b0;
            c1 <= {LANES{1'b0}};
            c1_above <= ~{{(LANES - 1){1'b0}}, 1'b1};  // as if lane 0 were served last
            o_live <= {ORDER{1'b0}};
            c3_ok <= {ORDER{1'b0}};
            o_head <= {OB{1'b0}};
            at_head <= {{(ORDER - 1){1'b0}}, 1'b1};
            at_tail <= {{(ORDER - 1){1'b0}}, 1'b1};
            o_tail <= {OB{1'b0}};
            o_started <= 1'b0;
        end else begin
            if (step3) c3_v <= c2_v;
            if (step2) c2_v <= c1_v;
            if (step1) begin  // not held when no lane is found (see dpn_write_lanes)
                c1_v <= found;
                c1 <= grant;
                c1_above <= grant_above;
            end
            if (send) begin
                m_arvalid <= 1'b1;
                m_araddr <= c3_addr;
                m_arlen <= c3_len;
                o_tail <= o_tail + 1'b1;
                at_tail <= {at_tail[ORDER-2:0], at_tail[ORDER-1]};
            end else if (m_arready) begin
                m_arvalid <= 1'b0;
            end
            if (retire) begin
                o_head <= o_head + 1'b1;
                at_head <= {at_head[ORDER-2:0], at_head[ORDER-1]};
            end
            o_live <= live_next;
            c3_ok <= ok_next;
            if (r_beat) o_started <= !m_rlast;
        end
    end
endmodule
