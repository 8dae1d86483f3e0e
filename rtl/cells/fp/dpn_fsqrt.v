// IEEE-754 square root (y = sqrt(a)), round to nearest even, pipelined LATENCY cycles (default 16).
//
// Format: EW exponent bits, MW fraction bits (8/23 binary32, 11/52 binary64). Needs dpn_fp_round.v and dpn_fp_unpack.v.
// Subnormal inputs are handled; sqrt(-0) = -0, sqrt(+inf) = +inf, a negative operand (-inf included)
// gives the x86 default NaN (sign set, quiet bit set), a NaN is returned quieted (as SSE sqrtss).
// The root comes from a non-restoring integer square root (MW+3 root bits plus a sticky remainder
// bit), one adder per root bit. Registers, each moving only when ce = 1: one at the output, one
// after unpacking (LATENCY >= 2), one between the sticky bit and rounding (LATENCY >= 3), and the
// rest spread evenly between the root's steps; what LATENCY leaves over is a delay line at the
// end. LATENCY = 0 gives a combinational cell.
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
    localparam RW = MW + 3;  // root bits: hidden, MW fraction bits, 2 guard bits
    localparam [EW-1:0] EMAX = {EW{1'b1}};
    localparam [XW-1:0] BIAS = {{(XW - EW + 1){1'b0}}, {(EW - 1){1'b1}}};


    localparam STEPS = RW;
    localparam RO = LATENCY >= 1 ? 1 : 0;  // output register
    localparam RU = LATENCY >= 2 ? 1 : 0;  // after unpacking
    localparam RS = LATENCY >= 3 ? 1 : 0;  // after the sticky bit, before rounding
    localparam SPARE = LATENCY > 3 ? LATENCY - 3 : 0;  // registers for the steps
    localparam GROUP = (STEPS + SPARE) / (SPARE + 1);  // steps between two step registers: ceil(STEPS / (SPARE + 1))
    localparam USED = (STEPS - 1) / GROUP;  // step registers placed: after steps GROUP, 2 GROUP, ... below STEPS
    localparam TAIL = LATENCY - RO - RU - RS - USED;

    wire          sign = a[W-1];
    wire nan_a, inf_a, zero_a;
    wire [W-1:0] quiet_a;
    wire [MW:0] norm_a;
    wire signed [XW-1:0] eff_a;
    dpn_fp_unpack #(.EW(EW), .MW(MW)) u_unpack_a (.x(a), .nan(nan_a), .inf(inf_a), .zero(zero_a), .quiet(quiet_a), .norm(norm_a), .eff(eff_a));
    wire [W-1:0]  default_nan = {1'b1, EMAX, 1'b1, {(MW - 1){1'b0}}};
    wire          special = nan_a || zero_a || sign || inf_a;
    wire [W-1:0]  special_y = nan_a ? quiet_a : zero_a ? a : sign ? default_nan : a;

    // Normalise a subnormal operand, then make the unbiased exponent even (the bias is odd, so the
    // unbiased exponent is odd when the biased one is even): the radicand is in [1, 4).
    wire                 odd = !eff_a[0];
    wire [MW+1:0]        radicand = odd ? {norm_a, 1'b0} : {1'b0, norm_a};
    wire signed [XW-1:0] unbiased_even = eff_a - $signed(BIAS) - $signed({{(XW - 1){1'b0}}, odd});
    wire signed [XW-1:0] exp_root = (unbiased_even >>> 1) + $signed(BIAS);

    // Integer square root of radicand * 2^(2 RW - MW - 2) (radicand in [2^MW, 2^(MW+2))): RW root
    // bits with the leading one at bit RW-1, then 1 if a remainder is left. Non-restoring, two
    // radicand bits per step: with root Q so far and two's complement partial remainder P, the next
    // P is 4P + digits - (4Q + 1) when P >= 0, else 4P + digits + (4Q + 3) (one adder); the new
    // root bit is 1 when the new P >= 0. The state between steps: what the end needs, the
    // radicand, the root so far, the partial remainder.
    localparam SIDE = 1 + W + XW;
    localparam SW = SIDE + (MW + 2) + RW + (RW + 6);
    wire [SW-1:0] state [0:STEPS];
    dpn_delay #(.W(SW), .LATENCY(RU)) u_unpacked (.clk(clk), .ce(ce),
        .d({special, special_y, exp_root, radicand, {RW{1'b0}}, {(RW + 6){1'b0}}}), .q(state[0]));

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
            wire            subtract = !part[RW+5];
            wire [RW+5:0]   operand = subtract ? ~{4'b0000, root, 2'b01} : {4'b0000, root, 2'b11};
            assign total = {part[RW+3:0], digits[2*I+1], digits[2*I], 1'b1} + {operand, subtract};
            wire [RW+5:0]   next = total[RW+6:1];
            // A register after every GROUP-th step but the last.
            dpn_delay #(.W(SW), .LATENCY(((step + 1) % GROUP == 0 && step + 1 < STEPS) ? 1 : 0)) u_step (.clk(clk), .ce(ce),
                .d({side, rad, root[RW-2:0], !next[RW+5], next}), .q(state[step + 1]));
            wire unused_ok = &{1'b0, root[RW-1], part[RW+4]};  // root[RW-1] is still 0; part[RW+4] is its sign's copy
        end
    endgenerate

    // The remainder's sign fixed, the sticky bit, rounding, the special cases.
    wire [SIDE-1:0]      side_n;
    wire [MW+1:0]        rad_n;
    wire [RW-1:0]        root_n;
    wire [RW+5:0]        part_n;
    assign {side_n, rad_n, root_n, part_n} = state[STEPS];
    wire                 special_n = side_n[SIDE-1];
    wire [W-1:0]         special_y_n = side_n[SIDE-2 -: W];
    wire signed [XW-1:0] exp_n = side_n[XW-1:0];
    wire [RW+5:0]        rem = part_n[RW+5] ? part_n + {4'b0000, root_n, 1'b1} : part_n;
    wire [W-1:0]         rounded;
    localparam BS = 1 + W + XW + RW + 1;
    wire                 special_s, sticky_s;
    wire [W-1:0]         special_y_s;
    wire signed [XW-1:0] exp_s;
    wire [RW-1:0]        man_s;
    dpn_delay #(.W(BS), .LATENCY(RS)) u_sticky (.clk(clk), .ce(ce),
        .d({special_n, special_y_n, exp_n, root_n, rem != 0}), .q({special_s, special_y_s, exp_s, man_s, sticky_s}));
    dpn_fp_round #(.EW(EW), .MW(MW), .G(2), .XW(XW)) round (
        .clk(clk), .ce(ce), .sign(1'b0), .exp(exp_s), .man(man_s), .sticky(sticky_s), .result(rounded)
    );
    wire [W-1:0] y_n = special_s ? special_y_s : rounded;
    wire [W-1:0] y_out;
    dpn_delay #(.W(W), .LATENCY(RO)) u_out (.clk(clk), .ce(ce), .d(y_n), .q(y_out));
    dpn_delay #(.W(W), .LATENCY(TAIL)) u_delay (.clk(clk), .ce(ce), .d(y_out), .q(y));
    wire unused_ok = &{1'b0, rad_n};
endmodule
