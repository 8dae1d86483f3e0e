// IEEE-754 divider (y = a / b), round to nearest even, pipelined LATENCY cycles (default 16).
//
// Format: EW exponent bits, MW fraction bits (8/23 binary32, 11/52 binary64). Needs dpn_fp_round.v and dpn_fp_unpack.v.
// Subnormals are handled in and out; 0/0 and inf/inf give the x86 default NaN (sign set, quiet bit
// set), x/0 gives a signed infinity; a NaN operand is returned quieted, a before b (as SSE divss).
// The quotient comes from a non-restoring divider (MW+3 quotient bits plus a sticky remainder bit),
// one adder per quotient bit. Registers, each moving only when ce = 1: one at the output, one after
// unpacking (LATENCY >= 2), one between the sticky bit and rounding (LATENCY >= 3), and the rest
// spread evenly between the divider's steps; what LATENCY leaves over is a delay line at the end.
// LATENCY = 0 gives a combinational cell.
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
    localparam QW = MW + 3;  // quotient bits: hidden, MW fraction bits, 2 guard bits
    localparam [EW-1:0] EMAX = {EW{1'b1}};
    localparam [XW-1:0] BIAS = {{(XW - EW + 1){1'b0}}, {(EW - 1){1'b1}}};


    localparam STEPS = QW - 1;  // the leading quotient bit is 1: no step
    localparam RO = LATENCY >= 1 ? 1 : 0;  // output register
    localparam RU = LATENCY >= 2 ? 1 : 0;  // after unpacking
    localparam RS = LATENCY >= 3 ? 1 : 0;  // after the sticky bit, before rounding
    localparam SPARE = LATENCY > 3 ? LATENCY - 3 : 0;  // registers for the steps
    localparam GROUP = (STEPS + SPARE) / (SPARE + 1);  // steps between two step registers: ceil(STEPS / (SPARE + 1))
    localparam USED = (STEPS - 1) / GROUP;  // step registers placed: after steps GROUP, 2 GROUP, ... below STEPS
    localparam TAIL = LATENCY - RO - RU - RS - USED;

    // Unpack, special cases.
    wire          sign = a[W-1] ^ b[W-1];
    wire nan_a, inf_a, zero_a;
    wire [W-1:0] quiet_a;
    wire [MW:0] norm_a;
    wire signed [XW-1:0] eff_a;
    dpn_fp_unpack #(.EW(EW), .MW(MW)) u_unpack_a (.x(a), .nan(nan_a), .inf(inf_a), .zero(zero_a), .quiet(quiet_a), .norm(norm_a), .eff(eff_a));
    wire nan_b, inf_b, zero_b;
    wire [W-1:0] quiet_b;
    wire [MW:0] norm_b;
    wire signed [XW-1:0] eff_b;
    dpn_fp_unpack #(.EW(EW), .MW(MW)) u_unpack_b (.x(b), .nan(nan_b), .inf(inf_b), .zero(zero_b), .quiet(quiet_b), .norm(norm_b), .eff(eff_b));
    wire [W-1:0]  default_nan = {1'b1, EMAX, 1'b1, {(MW - 1){1'b0}}};
    wire          special = nan_a || nan_b || inf_a || inf_b || zero_a || zero_b;
    wire [W-1:0]  special_y = nan_a ? quiet_a
                            : nan_b ? quiet_b
                            : (inf_a && inf_b) || (zero_a && zero_b) ? default_nan
                            : inf_a || zero_b ? {sign, EMAX, {MW{1'b0}}}
                            : {sign, {(W - 1){1'b0}}};

    // Quotient in [1, 2): double the dividend when its mantissa is below the divisor's. The
    // partial remainder starts at num - den >= 0 (leading quotient bit 1).
    wire                 below = norm_a < norm_b;
    wire [MW+1:0]        num = below ? {norm_a, 1'b0} : {1'b0, norm_a};
    wire signed [XW-1:0] exp_quotient = eff_a - eff_b + $signed(BIAS) - $signed({{(XW - 1){1'b0}}, below});
    wire [MW+2:0]        part_0 = {1'b0, num} - {2'b00, norm_b};

    // The state between steps: what the end needs, the divisor, the quotient so far, the partial
    // remainder (two's complement, in [-den, den)).
    localparam SIDE = 1 + W + 1 + XW;
    localparam SW = SIDE + (MW + 1) + QW + (MW + 3);
    wire [SW-1:0] state [0:STEPS];
    dpn_delay #(.W(SW), .LATENCY(RU)) u_unpacked (.clk(clk), .ce(ce),
        .d({special, special_y, sign, exp_quotient, norm_b, {{(QW - 1){1'b0}}, 1'b1}, part_0}), .q(state[0]));

    // Each step: 2 part -/+ den (subtract while the remainder is >= 0), its sign the next quotient bit.
    genvar step;
    generate
        for (step = 0; step < STEPS; step = step + 1) begin : g_step
            wire [SIDE-1:0] side;
            wire [MW:0]     den;
            wire [QW-1:0]   quot;
            wire [MW+2:0]   part;
            assign {side, den, quot, part} = state[step];
            wire          subtract = !part[MW+2];
            wire [MW+2:0] operand = subtract ? ~{2'b00, den} : {2'b00, den};
            /* verilator lint_off UNUSEDSIGNAL */
            wire [MW+3:0] total = {part[MW+1:0], 1'b0, 1'b1} + {operand, subtract};  // bit 0 only feeds the carry-in
            /* verilator lint_on UNUSEDSIGNAL */
            wire [MW+2:0] next = total[MW+3:1];
            // A register after every GROUP-th step but the last.
            dpn_delay #(.W(SW), .LATENCY(((step + 1) % GROUP == 0 && step + 1 < STEPS) ? 1 : 0)) u_step (.clk(clk), .ce(ce),
                .d({side, den, quot[QW-2:0], !next[MW+2], next}), .q(state[step + 1]));
            wire unused_ok = &{1'b0, quot[QW-1]};  // still 0: the leading 1 reaches it at the last step
        end
    endgenerate

    // The remainder's sign fixed, the sticky bit, rounding, the special cases.
    wire [SIDE-1:0]      side_n;
    wire [MW:0]          den_n;
    wire [QW-1:0]        quot_n;
    wire [MW+2:0]        part_n;
    assign {side_n, den_n, quot_n, part_n} = state[STEPS];
    wire                 special_n = side_n[SIDE-1];
    wire [W-1:0]         special_y_n = side_n[SIDE-2 -: W];
    wire                 sign_n = side_n[XW];
    wire signed [XW-1:0] exp_n = side_n[XW-1:0];
    wire [MW+2:0]        rem = part_n[MW+2] ? part_n + {2'b00, den_n} : part_n;
    wire [W-1:0]         rounded;
    localparam BS = 1 + W + 1 + XW + QW + 1;
    wire                 special_s, sign_s, sticky_s;
    wire [W-1:0]         special_y_s;
    wire signed [XW-1:0] exp_s;
    wire [QW-1:0]        man_s;
    dpn_delay #(.W(BS), .LATENCY(RS)) u_sticky (.clk(clk), .ce(ce),
        .d({special_n, special_y_n, sign_n, exp_n, quot_n, rem != 0}), .q({special_s, special_y_s, sign_s, exp_s, man_s, sticky_s}));
    dpn_fp_round #(.EW(EW), .MW(MW), .G(2), .XW(XW)) round (
        .clk(clk), .ce(ce), .sign(sign_s), .exp(exp_s), .man(man_s), .sticky(sticky_s), .result(rounded)
    );
    wire [W-1:0] y_n = special_s ? special_y_s : rounded;
    wire [W-1:0] y_out;
    dpn_delay #(.W(W), .LATENCY(RO)) u_out (.clk(clk), .ce(ce), .d(y_n), .q(y_out));
    dpn_delay #(.W(W), .LATENCY(TAIL)) u_delay (.clk(clk), .ce(ce), .d(y_out), .q(y));
endmodule
