// IEEE-754 square root (y = sqrt(a)), round to nearest even, pipelined LATENCY cycles (default 16).
//
// Format: EW exponent bits, MW fraction bits (8/23 binary32, 11/52 binary64). Needs dpn_fp_round.v and dpn_fp_unpack.v.
// Subnormal inputs are handled; sqrt(-0) = -0, sqrt(+inf) = +inf, a negative operand (-inf included)
// gives the x86 default NaN (sign set, quiet bit set), a NaN is returned quieted (as SSE sqrtss).
// The root comes from a non-restoring integer square root (MW+2 root bits, the last one the
// round bit, then the remainder's sticky bit), one adder per root bit. Stages, each ending in a
// register that moves only when ce = 1: (1) unpack and count the leading zeros of a subnormal
// mantissa; (2) normalise, make the exponent even and take the first two root bits; then the
// root's other MW steps, in groups between the spare registers; then the rounding
// (dpn_fp_round, which never sees a subnormal or infinite root: the decision, then the
// increment, and the special cases) and the output register. LATENCY sets which registers
// exist: the output first, then the one between the rounding decision and the increment, the
// one before the decision, the one after (2) and the one after (1); the rest are spread evenly
// between the root's steps, and what LATENCY leaves over is a delay line at the end.
// LATENCY = 0 gives a combinational cell.
module dpn_fsqrt #(
    parameter EW = 8,
    parameter MW = 23,
    parameter LATENCY = 16
) (
    input  wire             clk,
    input  wire             ce,
    input  wire [EW+MW:0]   a,
    output wire [EW+MW:0]   y
);
    localparam W = EW + MW + 1;
    localparam XW = EW + 3;
    localparam LW = $clog2(MW + 2);
    localparam FINE = LW > 3 ? LW - 3 : 1;  // the count's low bits, by which dpn_fp_unpack leaves the mantissa to be shifted
    localparam RW = MW + 2;  // root bits: hidden, MW fraction bits, round bit
    localparam [EW-1:0] EMAX = {EW{1'b1}};
    localparam [XW-1:0] BIAS = {{(XW - EW + 1){1'b0}}, {(EW - 1){1'b1}}};

    localparam STEPS = RW - 2;  // the first two root bits come from stage 2
    localparam RO = LATENCY >= 1 ? 1 : 0;  // output register
    localparam RD = LATENCY >= 2 ? 1 : 0;  // rounding: between the decision and the increment
    localparam RP = LATENCY >= 3 ? 1 : 0;  // rounding: before the decision
    localparam R2 = LATENCY >= 4 ? 1 : 0;  // after normalising
    localparam R1 = LATENCY >= 5 ? 1 : 0;  // after unpacking
    localparam SPARE = LATENCY > 5 ? LATENCY - 5 : 0;  // registers for the steps
    localparam GROUP = (STEPS + SPARE) / (SPARE + 1);  // steps between two step registers: ceil(STEPS / (SPARE + 1))
    localparam USED = (STEPS - 1) / GROUP;  // step registers placed: after steps GROUP, 2 GROUP, ... below STEPS
    localparam TAIL = LATENCY - RO - RD - RP - R2 - R1 - USED;

    // The first two steps from a zero root and remainder, as a table of the radicand's top four
    // bits t = 4 d + d' (d, the top digit pair, is 1 to 3: the radicand is in [1, 4)): the first
    // takes the remainder to d - 1 >= 0 (root 1), the second subtracts 4 * 1 + 1 from
    // 4 (d - 1) + d', leaving t - 9 (in [-5, 6]).
    function automatic [3:0] first_two(input [3:0] t);
        integer v;
        begin
            first_two = 4'd0;
            for (v = 0; v < 16; v = v + 1)
                if (t == v[3:0]) first_two = v[3:0] - 4'd9;
        end
    endfunction

    // Stage 1: unpack, special cases, the leading zeros of the mantissa.
    wire          sign = a[W-1];
    wire          nan_a, inf_a, zero_a;
    wire [W-1:0]  quiet_a;
    wire [MW:0]   man_1;  // shifted but for lz[FINE-1:0]
    wire [MW+2:0] man3_1;  // 0
    wire [LW-1:0] lz_1;
    wire [EW-1:0] exp_1;
    dpn_fp_unpack #(.EW(EW), .MW(MW), .TIMES3(0)) u_unpack_a (.x(a), .nan(nan_a), .inf(inf_a), .zero(zero_a),
        .quiet(quiet_a), .coarse(man_1), .coarse3(man3_1), .lz(lz_1), .exp_eff(exp_1));
    wire [W-1:0]  default_nan = {1'b1, EMAX, 1'b1, {(MW - 1){1'b0}}};
    wire          special_1 = nan_a || zero_a || sign || inf_a;
    wire [W-1:0]  special_y_1 = nan_a ? quiet_a : zero_a ? a : sign ? default_nan : a;

    localparam B1 = 1 + W + (MW + 1) + LW + EW;
    wire          special_2;
    wire [W-1:0]  special_y_2;
    wire [MW:0]   man_2;
    wire [LW-1:0] lz_2;
    wire [EW-1:0] exp_2;
    dpn_delay #(.W(B1), .LATENCY(R1)) u_unpacked (.clk(clk), .ce(ce),
        .d({special_1, special_y_1, man_1, lz_1, exp_1}), .q({special_2, special_y_2, man_2, lz_2, exp_2}));

    // Stage 2: normalise a subnormal operand, then make the unbiased exponent even (the bias is
    // odd, so the unbiased exponent is odd when the biased one is even): the radicand is in
    // [1, 4). Its top four bits give the first two root bits.
    wire [MW:0]          norm = man_2 << lz_2[FINE-1:0];
    wire signed [XW-1:0] eff = $signed({3'b000, exp_2}) - $signed({{(XW - LW){1'b0}}, lz_2});
    wire                 odd = !eff[0];
    wire [MW+1:0]        radicand = odd ? {norm, 1'b0} : {1'b0, norm};
    wire signed [XW-1:0] unbiased_even = eff - $signed(BIAS) - $signed({{(XW - 1){1'b0}}, odd});
    wire signed [XW-1:0] exp_root = (unbiased_even >>> 1) + $signed(BIAS);
    wire [3:0]           part_top = first_two(radicand[MW+1:MW-2]);

    // Integer square root of radicand * 2^(2 RW - MW - 2) (radicand in [2^MW, 2^(MW+2))): RW root
    // bits with the leading one at bit RW-1, then 1 if a remainder is left. Non-restoring, two
    // radicand bits per step: with root Q so far and two's complement partial remainder P, the next
    // P is 4P + digits - (4Q + 1) when P >= 0, else 4P + digits + (4Q + 3) (one adder); the new
    // root bit is 1 when the new P >= 0. The state between steps: what the end needs, the
    // radicand, the root so far, the partial remainder.
    localparam SIDE = 1 + W + XW;
    localparam SW = SIDE + (MW + 2) + RW + (RW + 6);
    wire [SW-1:0] state [0:STEPS];
    dpn_delay #(.W(SW), .LATENCY(R2)) u_normalised (.clk(clk), .ce(ce),
        .d({special_2, special_y_2, exp_root, radicand, {{(RW - 2){1'b0}}, 1'b1, !part_top[3]}, {(RW + 2){part_top[3]}}, part_top}),
        .q(state[0]));

    genvar step;
    generate
        for (step = 0; step < STEPS; step = step + 1) begin : g_step
            localparam integer I = STEPS - 1 - step;  // the digit pair this step takes
            wire [SIDE-1:0] side;
            wire [MW+1:0]   rad;
            wire [RW-1:0]   root;
            wire [RW+5:0]   part;
            assign {side, rad, root, part} = state[step];
            /* verilator lint_off UNUSEDSIGNAL */
            wire [2*RW-1:0] digits = {rad, {(2 * RW - MW - 2){1'b0}}};  // this step reads two of them
            wire [RW+6:0]   total;  // bit 0 only feeds the carry-in
            /* verilator lint_on UNUSEDSIGNAL */
            // The root's last bit is the one the remainder's sign gave, 1 when subtracting: the
            // operand's low bits, ~{1, 0, 1} = 010 or {0, 1, 1}, follow from the sign alone
            // (taken from the root, that bit would cost a LUT level more per step).
            wire            subtract = !part[RW+5];
            wire [RW+5:0]   operand = {subtract ? ~{4'b0000, root[RW-1:1]} : {4'b0000, root[RW-1:1]}, 2'b01, !subtract};
            assign total = {part[RW+3:0], digits[2*I+1], digits[2*I], 1'b1} + {operand, subtract};
            wire [RW+5:0]   next = total[RW+6:1];
            // A register after every GROUP-th step but the last.
            dpn_delay #(.W(SW), .LATENCY(((step + 1) % GROUP == 0 && step + 1 < STEPS) ? 1 : 0)) u_step (.clk(clk), .ce(ce),
                .d({side, rad, root[RW-2:0], !next[RW+5], next}), .q(state[step + 1]));
            wire unused_ok = &{1'b0, root[RW-1], root[0], part[RW+4]};  // root[RW-1] is still 0; root[0] is the sign's; part[RW+4] is its copy
        end
    endgenerate

    // Rounding (the remainder, corrected where negative, is the sticky bit), then the special
    // cases, which wait beside it.
    wire [SIDE-1:0]      side_n;
    wire [MW+1:0]        rad_n;
    wire [RW-1:0]        root_n;
    wire [RW+5:0]        part_n;
    assign {side_n, rad_n, root_n, part_n} = state[STEPS];
    wire                 special_n = side_n[SIDE-1];
    wire [W-1:0]         special_y_n = side_n[SIDE-2 -: W];
    wire signed [XW-1:0] exp_n = side_n[XW-1:0];
    wire [W-1:0]         rounded;
    dpn_fp_round #(.EW(EW), .MW(MW), .G(1), .XW(XW), .RMW(RW + 6), .TINY(0), .LATENCY(RP + RD)) u_round (
        .clk(clk), .ce(ce), .sign(1'b0), .exp(exp_n), .man(root_n), .rem(part_n), .rem_fix({5'b00000, root_n, 1'b1}), .result(rounded)
    );
    wire                 special_r;
    wire [W-1:0]         special_y_r;
    dpn_delay #(.W(1 + W), .LATENCY(RP + RD)) u_special (.clk(clk), .ce(ce),
        .d({special_n, special_y_n}), .q({special_r, special_y_r}));
    wire [W-1:0] y_n = special_r ? special_y_r : rounded;
    wire [W-1:0] y_out;
    dpn_delay #(.W(W), .LATENCY(RO)) u_out (.clk(clk), .ce(ce), .d(y_n), .q(y_out));
    dpn_delay #(.W(W), .LATENCY(TAIL)) u_delay (.clk(clk), .ce(ce), .d(y_out), .q(y));
    wire unused_ok = &{1'b0, rad_n, man3_1};
endmodule
