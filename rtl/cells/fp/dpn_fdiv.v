// IEEE-754 divider (y = a / b), round to nearest even, pipelined LATENCY cycles (default 16).
//
// Format: EW exponent bits, MW fraction bits (8/23 binary32, 11/52 binary64). Needs dpn_fp_round.v and dpn_fp_unpack.v.
// Subnormals are handled in and out; 0/0 and inf/inf give the x86 default NaN (sign set, quiet bit
// set), x/0 gives a signed infinity; a NaN operand is returned quieted, a before b (as SSE divss).
// The quotient comes from a non-restoring divider (MW+2 quotient bits, the last one the round
// bit, then the remainder's sticky bit), one adder per quotient bit, two steps in one adder's
// delay (see the steps). Stages, each ending in a register that moves only when ce = 1: (1) unpack and count the leading zeros of subnormal
// mantissas; (2) normalise and take the first two quotient bits; then the divider's other MW
// steps, in groups between the spare registers; then the rounding (dpn_fp_round: its exponent
// stage beside the last group, then the decision, then the increment, and the special cases)
// and the output register. LATENCY sets which registers exist: the output first, then the one
// between the rounding decision and the increment, the one before the decision, the one after
// (2) and the one after (1); the rest are spread evenly between the divider's steps, and what
// LATENCY leaves over is a delay line at the end. LATENCY = 0 gives a combinational cell.
module dpn_fdiv #(
    parameter EW = 8,
    parameter MW = 23,
    parameter LATENCY = 16
) (
    input  wire             clk,
    input  wire             ce,
    input  wire [EW+MW:0]   a,
    input  wire [EW+MW:0]   b,
    output wire [EW+MW:0]   y
);
    localparam W = EW + MW + 1;
    localparam XW = EW + 3;
    localparam LW = $clog2(MW + 2);
    localparam FINE = LW > 3 ? LW - 3 : 1;  // the count's low bits, by which dpn_fp_unpack leaves the mantissa to be shifted
    localparam QW = MW + 2;  // quotient bits: hidden, MW fraction bits, round bit
    localparam [EW-1:0] EMAX = {EW{1'b1}};
    localparam [XW-1:0] BIAS = {{(XW - EW + 1){1'b0}}, {(EW - 1){1'b1}}};

    localparam STEPS = QW - 2;  // the first two quotient bits come from stage 2
    localparam RO = LATENCY >= 1 ? 1 : 0;  // output register
    localparam RD = LATENCY >= 2 ? 1 : 0;  // rounding: between the decision and the increment
    localparam RP = LATENCY >= 3 ? 1 : 0;  // rounding: before the decision
    localparam R2 = LATENCY >= 4 ? 1 : 0;  // after normalising
    localparam R1 = LATENCY >= 5 ? 1 : 0;  // after unpacking
    localparam SPARE = LATENCY > 5 ? LATENCY - 5 : 0;  // registers for the steps
    localparam GROUP = (STEPS + SPARE) / (SPARE + 1);  // steps between two step registers: ceil(STEPS / (SPARE + 1))
    localparam USED = (STEPS - 1) / GROUP;  // step registers placed: after steps GROUP, 2 GROUP, ... below STEPS
    localparam TAIL = LATENCY - RO - RD - RP - R2 - R1 - USED;

    // Stage 1: unpack, special cases, the leading zeros of each mantissa and the mantissas
    // shifted by the counts but their lowest bits; beside the count, the exponent's parts
    // that do not wait for it, and three times the divisor's mantissa (for the second quotient
    // bit, stage 2), shifted as the divisor's.
    wire          sign_1 = a[W-1] ^ b[W-1];
    wire          nan_a, inf_a, zero_a, nan_b, inf_b, zero_b;
    wire [W-1:0]  quiet_a, quiet_b;
    wire [MW:0]   man_a_1, man_b_1;  // shifted but for lz[FINE-1:0]
    wire [MW+2:0] man3_a_1, man3_b_1;  // 3 man_b, shifted as man_b; man3_a is 0
    wire [LW-1:0] lz_a_1, lz_b_1;
    wire [EW-1:0] exp_eff_a, exp_eff_b;  // the raw fields are faster here, with their zero flags
    dpn_fp_unpack #(.EW(EW), .MW(MW), .TIMES3(0)) u_unpack_a (.x(a), .nan(nan_a), .inf(inf_a), .zero(zero_a),
        .quiet(quiet_a), .coarse(man_a_1), .coarse3(man3_a_1), .lz(lz_a_1), .exp_eff(exp_eff_a));
    dpn_fp_unpack #(.EW(EW), .MW(MW), .TIMES3(1)) u_unpack_b (.x(b), .nan(nan_b), .inf(inf_b), .zero(zero_b),
        .quiet(quiet_b), .coarse(man_b_1), .coarse3(man3_b_1), .lz(lz_b_1), .exp_eff(exp_eff_b));
    wire [W-1:0]  default_nan = {1'b1, EMAX, 1'b1, {(MW - 1){1'b0}}};
    wire          special_1 = nan_a || nan_b || inf_a || inf_b || zero_a || zero_b;
    wire [W-1:0]  special_y_1 = nan_a ? quiet_a
                              : nan_b ? quiet_b
                              : (inf_a && inf_b) || (zero_a && zero_b) ? default_nan
                              : inf_a || zero_b ? {sign_1, EMAX, {MW{1'b0}}}
                              : {sign_1, {(W - 1){1'b0}}};
    // The quotient's exponent, a - b + bias (a subnormal's exponent is 1, its field 0: one
    // more, which joins the bias, late) less the leading zeros (stage 2), less one when a's
    // normalised mantissa is below b's: both sums here.
    wire [EW-1:0]        exp_a = a[W-2:MW];
    wire [EW-1:0]        exp_b = b[W-2:MW];
    wire                 tiny_a = exp_a == 0;
    wire                 tiny_b = exp_b == 0;
    wire signed [XW-1:0] exp_diff = $signed({3'b000, exp_a}) - $signed({3'b000, exp_b});
    wire [XW-1:0]        bias_above = tiny_a == tiny_b ? BIAS : tiny_a ? BIAS + 1'b1 : BIAS - 1'b1;
    wire [XW-1:0]        bias_below = tiny_a == tiny_b ? BIAS - 1'b1 : tiny_a ? BIAS : BIAS - 1'b1 - 1'b1;
    wire signed [XW-1:0] exp_above_1 = exp_diff + $signed(bias_above);
    wire signed [XW-1:0] exp_below_1 = exp_diff + $signed(bias_below);

    localparam B1 = 1 + W + 1 + XW + XW + (MW + 1) + LW + (MW + 1) + (MW + 3) + LW;
    wire                 special_2, sign_2;
    wire [W-1:0]         special_y_2;
    wire signed [XW-1:0] exp_above_2, exp_below_2;
    wire [MW:0]          man_a_2, man_b_2;
    wire [MW+2:0]        man3_b_2;
    wire [LW-1:0]        lz_a_2, lz_b_2;
    dpn_delay #(.W(B1), .LATENCY(R1)) u_unpacked (.clk(clk), .ce(ce),
        .d({special_1, special_y_1, sign_1, exp_above_1, exp_below_1, man_a_1, lz_a_1, man_b_1, man3_b_1, lz_b_1}),
        .q({special_2, special_y_2, sign_2, exp_above_2, exp_below_2, man_a_2, lz_a_2, man_b_2, man3_b_2, lz_b_2}));

    // Stage 2: normalise (leading one at bit MW). The quotient is in [1, 2): the dividend is
    // doubled when its mantissa is below the divisor's, and its first bit is 1 (the partial
    // remainder num - den >= 0), so the second step always subtracts: the partial remainder
    // after it is 2 num - 3 den, both candidates formed beside the comparison, which selects.
    wire [MW:0]          norm_a = man_a_2 << lz_a_2[FINE-1:0];
    wire [MW:0]          norm_b = man_b_2 << lz_b_2[FINE-1:0];
    wire [MW+2:0]        norm3_b = man3_b_2 << lz_b_2[FINE-1:0];
    wire                 below = norm_a < norm_b;
    wire [MW+2:0]        part_above = {1'b0, norm_a, 1'b0} - norm3_b;
    wire [MW+2:0]        part_below = {norm_a, 2'b00} - norm3_b;
    wire signed [XW-1:0] lz_diff = $signed({{(XW - LW){1'b0}}, lz_b_2}) - $signed({{(XW - LW){1'b0}}, lz_a_2});
    wire signed [XW-1:0] exp_above_sum = exp_above_2 + lz_diff;
    wire signed [XW-1:0] exp_below_sum = exp_below_2 + lz_diff;
    // Selected with gates rather than a multiplexer, which synthesis would move in front of
    // the two subtractions that share an operand (one subtraction after the comparison).
    wire [MW+2:0]        part_2 = (part_below & {(MW + 3){below}}) | (part_above & {(MW + 3){!below}});
    wire signed [XW-1:0] exp_2 = (exp_below_sum & {XW{below}}) | (exp_above_sum & {XW{!below}});

    // The state between steps: what the end needs, the divisor, the quotient so far, the partial
    // remainder (two's complement, in [-den, den)).
    // (Three times the divisor too, for the second step of a pair.)
    localparam SIDE = 1 + W + 1 + XW;
    localparam SW = SIDE + (MW + 1) + (MW + 3) + QW + (MW + 3);
    wire [SW-1:0] state [0:STEPS];
    dpn_delay #(.W(SW), .LATENCY(R2)) u_normalised (.clk(clk), .ce(ce),
        .d({special_2, special_y_2, sign_2, exp_2, norm_b, norm3_b, {{(QW - 2){1'b0}}, 1'b1, !part_2[MW+2]}, part_2}),
        .q(state[0]));

    // Each step: 2 part -/+ den (subtract while the remainder is >= 0), its sign the next quotient
    // bit. The steps between two registers go in pairs: the second of a pair does not wait for
    // the first's sum but forms both of its outcomes from the pair's input P beside it, 4 P -
    // 3 den or 4 P - den after a subtraction, 4 P + den or 4 P + 3 den after an addition, and
    // the first's sign selects (one adder's delay and a multiplexer per pair, not two adders).
    genvar step;
    generate
        for (step = 0; step < STEPS; step = step + 1) begin : g_step
            wire [SIDE-1:0] side;
            wire [MW:0]     den;
            wire [MW+2:0]   den3;
            wire [QW-1:0]   quot;
            wire [MW+2:0]   part;
            assign {side, den, den3, quot, part} = state[step];
            wire [MW+2:0]   next;
            if (step % GROUP % 2 == 1) begin : g_second
                // P, and its first step's direction, from the pair's input.
                wire [MW+2:0] part_p = state[step - 1][MW+2:0];
                wire          first_subtract = !part_p[MW+2];
                /* verilator lint_off UNUSEDSIGNAL */
                wire [MW+3:0] if_subtract = {first_subtract ? ~den3 : {2'b00, den}, first_subtract}
                                          + {part_p[MW:0], 2'b00, 1'b1};
                wire [MW+3:0] if_add = {first_subtract ? ~{2'b00, den} : den3, first_subtract}
                                     + {part_p[MW:0], 2'b00, 1'b1};
                /* verilator lint_on UNUSEDSIGNAL */
                // Gates, not a multiplexer: synthesis would move that in front of the adders.
                wire          second_subtract = !part[MW+2];
                assign next = (if_subtract[MW+3:1] & {(MW + 3){second_subtract}})
                            | (if_add[MW+3:1] & {(MW + 3){!second_subtract}});
            end else begin : g_first
                wire          subtract = !part[MW+2];
                wire [MW+2:0] operand = subtract ? ~{2'b00, den} : {2'b00, den};
                /* verilator lint_off UNUSEDSIGNAL */
                wire [MW+3:0] total = {operand, subtract} + {part[MW+1:0], 1'b0, 1'b1};  // bit 0 only feeds the carry-in
                /* verilator lint_on UNUSEDSIGNAL */
                assign next = total[MW+3:1];
            end
            // A register after every GROUP-th step but the last.
            dpn_delay #(.W(SW), .LATENCY(((step + 1) % GROUP == 0 && step + 1 < STEPS) ? 1 : 0)) u_step (.clk(clk), .ce(ce),
                .d({side, den, den3, quot[QW-2:0], !next[MW+2], next}), .q(state[step + 1]));
            wire unused_ok = &{1'b0, quot[QW-1]};  // still 0: the leading 1 reaches it at the last step
        end
    endgenerate

    // Rounding (the remainder, corrected where negative, is the sticky bit), then the special
    // cases, which wait beside it.
    wire [SIDE-1:0]      side_n;
    wire [MW:0]          den_n;
    wire [MW+2:0]        den3_n;
    wire [QW-1:0]        quot_n;
    wire [MW+2:0]        part_n;
    assign {side_n, den_n, den3_n, quot_n, part_n} = state[STEPS];
    wire                 special_n = side_n[SIDE-1];
    wire [W-1:0]         special_y_n = side_n[SIDE-2 -: W];
    wire                 sign_n = side_n[XW];
    wire signed [XW-1:0] exp_n = side_n[XW-1:0];
    wire [W-1:0]         rounded;
    dpn_fp_round #(.EW(EW), .MW(MW), .G(1), .XW(XW), .RMW(MW + 3), .TINY(1), .LATENCY(RP + RD)) u_round (
        .clk(clk), .ce(ce), .sign(sign_n), .exp(exp_n), .man(quot_n), .rem(part_n), .rem_fix({2'b00, den_n}), .result(rounded)
    );
    wire                 special_r;
    wire [W-1:0]         special_y_r;
    dpn_delay #(.W(1 + W), .LATENCY(RP + RD)) u_special (.clk(clk), .ce(ce),
        .d({special_n, special_y_n}), .q({special_r, special_y_r}));
    wire [W-1:0] y_n = special_r ? special_y_r : rounded;
    wire [W-1:0] y_out;
    dpn_delay #(.W(W), .LATENCY(RO)) u_out (.clk(clk), .ce(ce), .d(y_n), .q(y_out));
    dpn_delay #(.W(W), .LATENCY(TAIL)) u_delay (.clk(clk), .ce(ce), .d(y_out), .q(y));
    wire unused_ok = &{1'b0, man3_a_1, exp_eff_a, exp_eff_b, den3_n};
endmodule
