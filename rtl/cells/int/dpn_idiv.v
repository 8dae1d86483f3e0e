// Signed integer divider: quotient q = a / b and remainder r = a % b truncating toward zero as in C, pipelined LATENCY cycles (default 18).
//
// IW-bit two's complement. Cases C leaves undefined get defined values (as RISC-V): b = 0 gives
// q = -1 (all ones) and r = a; a = -2^(IW-1), b = -1 gives q = -2^(IW-1) and r = 0.
// A non-restoring divider on the magnitudes, one adder per quotient bit, two steps in one
// adder's delay (see the steps). Stages, each ending in a register that moves only when ce = 1:
// (1) the magnitudes, the divisor's negation and three times it; then the IW steps, in groups
// between the spare registers; (n) the signs applied to quotient and remainder. LATENCY sets
// which registers exist: the output first, then the one after the last step, then the one after
// (1); the rest are spread evenly between the steps (two steps a register at LATENCY = IW/2 + 2),
// and what LATENCY leaves over is a delay line at the end. LATENCY = 0 gives a combinational cell.
module dpn_idiv #(
    parameter IW = 32,
    parameter LATENCY = 18
) (
    input  wire            clk,
    input  wire            ce,
    input  wire [IW-1:0]   a,
    input  wire [IW-1:0]   b,
    output wire [IW-1:0]   q,
    output wire [IW-1:0]   r
);
    localparam PW = IW + 2;  // the partial remainder, two's complement, in [-den, den)
    localparam RO = LATENCY >= 1 ? 1 : 0;  // output register
    localparam RL = LATENCY >= 2 ? 1 : 0;  // after the last step
    localparam R1 = LATENCY >= 3 ? 1 : 0;  // after the magnitudes
    localparam SPARE = LATENCY > 3 ? LATENCY - 3 : 0;  // registers for the steps
    localparam GROUP = (IW + SPARE) / (SPARE + 1);  // steps between two step registers: ceil(IW / (SPARE + 1))
    localparam USED = (IW - 1) / GROUP;  // step registers placed: after steps GROUP, 2 GROUP, ... below IW
    localparam TAIL = LATENCY - RO - RL - R1 - USED;

    // Stage 1. The quotient is negative when the signs differ, but for b = 0: the steps then
    // always subtract nothing, which gives the quotient all ones and the remainder |a|, so only
    // the quotient's sign needs the case.
    wire          neg_a = a[IW-1];
    wire          neg_b = b[IW-1];
    wire [IW-1:0] mag_a = neg_a ? -a : a;  // -(-2^(IW-1)) = 2^(IW-1) as unsigned
    wire [IW-1:0] mag_b = neg_b ? -b : b;
    wire [IW-1:0] minus_den = neg_b ? b : -b;  // -|b|, for the remainder's last stage
    wire [PW-1:0] den3 = {2'b00, mag_b} + {1'b0, mag_b, 1'b0};
    wire          neg_q = (neg_a ^ neg_b) && b != 0;

    // The state between steps: the signs, the dividend, the divisor (its negation, three times
    // it), the quotient so far and the partial remainder.
    localparam SW = 2 + IW + IW + IW + PW + IW + PW;
    wire [SW-1:0] state [0:IW];
    dpn_delay #(.W(SW), .LATENCY(R1)) u_magnitudes (.clk(clk), .ce(ce),
        .d({neg_a, neg_q, mag_a, mag_b, minus_den, den3, {IW{1'b0}}, {PW{1'b0}}}), .q(state[0]));

    // Each step: 2 part + the dividend's next bit -/+ den (subtract while the remainder is
    // >= 0), its sign the next quotient bit. The steps between two registers go in pairs: the
    // second of a pair does not wait for the first's sum but forms both of its outcomes from
    // the pair's input P and the two dividend bits n beside it, 4 P + n - 3 den or 4 P + n - den
    // after a subtraction, 4 P + n + den or 4 P + n + 3 den after an addition, and the first's
    // sign selects (one adder's delay and a multiplexer per pair, not two adders).
    genvar step;
    generate
        for (step = 0; step < IW; step = step + 1) begin : g_step
            localparam BIT = IW - 1 - step;  // the dividend's bit this step brings in, the quotient's bit it makes
            wire [1:0]    signs;
            wire [IW-1:0] num, den, minus_den_s;
            wire [PW-1:0] den3_s;
            wire [IW-1:0] quot;
            wire [PW-1:0] part;
            assign {signs, num, den, minus_den_s, den3_s, quot, part} = state[step];
            wire [PW-1:0] next;
            if (step % GROUP % 2 == 1) begin : g_second
                // P, and its first step's direction, from the pair's input.
                wire [PW-1:0] part_p = state[step - 1][PW-1:0];
                wire          first_subtract = !part_p[PW-1];
                /* verilator lint_off UNUSEDSIGNAL */
                wire [PW:0]   if_subtract = {first_subtract ? ~den3_s : {2'b00, den}, first_subtract}
                                          + {part_p[PW-3:0], num[BIT+1], num[BIT], 1'b1};
                wire [PW:0]   if_add = {first_subtract ? ~{2'b00, den} : den3_s, first_subtract}
                                     + {part_p[PW-3:0], num[BIT+1], num[BIT], 1'b1};
                /* verilator lint_on UNUSEDSIGNAL */
                // Gates, not a multiplexer: synthesis would move that in front of the adders.
                wire          second_subtract = !part[PW-1];
                assign next = (if_subtract[PW:1] & {PW{second_subtract}})
                            | (if_add[PW:1] & {PW{!second_subtract}});
            end else begin : g_first
                wire          subtract = !part[PW-1];
                wire [PW-1:0] operand = subtract ? ~{2'b00, den} : {2'b00, den};
                /* verilator lint_off UNUSEDSIGNAL */
                wire [PW:0]   total = {operand, subtract} + {part[PW-2:0], num[BIT], 1'b1};  // bit 0 only feeds the carry-in
                /* verilator lint_on UNUSEDSIGNAL */
                assign next = total[PW:1];
            end
            wire [IW-1:0] quot_next = quot | ({{(IW - 1){1'b0}}, !next[PW-1]} << BIT);
            // A register after every GROUP-th step but the last, and after the last.
            dpn_delay #(.W(SW), .LATENCY(step + 1 == IW ? RL : ((step + 1) % GROUP == 0) ? 1 : 0)) u_step (
                .clk(clk), .ce(ce), .d({signs, num, den, minus_den_s, den3_s, quot_next, next}), .q(state[step + 1]));
        end
    endgenerate

    // The signs: the remainder is the partial remainder, plus the divisor where negative, negated
    // with the dividend; all four outcomes are formed beside each other and gates select.
    wire          neg_a_n, neg_q_n;
    wire [IW-1:0] num_n, den_n, minus_den_n, quot_n;
    wire [PW-1:0] den3_n, part_n;
    assign {neg_a_n, neg_q_n, num_n, den_n, minus_den_n, den3_n, quot_n, part_n} = state[IW];
    wire          low = part_n[PW-1];
    wire [IW-1:0] rem_pos = part_n[IW-1:0];
    wire [IW-1:0] rem_fixed = part_n[IW-1:0] + den_n;
    wire [IW-1:0] rem_neg = -part_n[IW-1:0];
    /* verilator lint_off UNUSEDSIGNAL */
    wire [IW:0]   rem_fixed_neg = {~part_n[IW-1:0], 1'b1} + {minus_den_n, 1'b1};  // -(part + den) above bit 0
    /* verilator lint_on UNUSEDSIGNAL */
    wire [IW-1:0] r_n = (rem_pos & {IW{!low && !neg_a_n}}) | (rem_fixed & {IW{low && !neg_a_n}})
                      | (rem_neg & {IW{!low && neg_a_n}}) | (rem_fixed_neg[IW:1] & {IW{low && neg_a_n}});
    wire [IW-1:0] q_n = neg_q_n ? -quot_n : quot_n;

    wire [2*IW-1:0] qr_out;
    dpn_delay #(.W(2 * IW), .LATENCY(RO)) u_out (.clk(clk), .ce(ce), .d({q_n, r_n}), .q(qr_out));
    dpn_delay #(.W(2 * IW), .LATENCY(TAIL)) u_delay (.clk(clk), .ce(ce), .d(qr_out), .q({q, r}));
    wire unused_ok = &{1'b0, num_n, den3_n};
endmodule
