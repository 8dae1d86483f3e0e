// IEEE-754 multiplier (y = a * b), round to nearest even, pipelined LATENCY cycles (default 4).
//
// Format: EW exponent bits, MW fraction bits (8/23 binary32, 11/52 binary64). Needs dpn_fp_round.v and dpn_fp_unpack.v.
// Subnormals are handled in and out; 0 * inf gives the x86 default NaN (sign set, quiet bit set); a
// NaN operand is returned quieted, a before b (as SSE mulss/mulsd).
// Four stages, each ending in a register that moves only when ce = 1: (1) unpack the operands
// (subnormals normalised) and find the special cases, (2) multiply (the registers around the
// product are where a DSP48E2 keeps its own), (3) normalise, (4) round and select. LATENCY sets
// how many of those registers exist (the output register first, then those after the product,
// after normalisation and after unpacking); a fifth splits the rounding before its increment (a
// carry chain as wide as the result); beyond five, a delay line follows. LATENCY = 0 gives a
// combinational cell.
module dpn_fmul #(
    parameter EW = 8,
    parameter MW = 23,
    parameter LATENCY = 4
) (
    input  wire             clk,
    input  wire             ce,
    input  wire [EW+MW:0]   a,
    input  wire [EW+MW:0]   b,
    output wire [EW+MW:0]   y
);
    localparam W = EW + MW + 1;
    localparam XW = EW + 3;
    localparam [EW-1:0] EMAX = {EW{1'b1}};
    localparam [XW-1:0] BIAS = {{(XW - EW + 1){1'b0}}, {(EW - 1){1'b1}}};


    // Which stage boundaries hold a register (1: after unpacking, ..., 4: the output).
    localparam R4 = LATENCY >= 1 ? 1 : 0;
    localparam R2 = LATENCY >= 2 ? 1 : 0;
    localparam R3 = LATENCY >= 3 ? 1 : 0;
    localparam R1 = LATENCY >= 4 ? 1 : 0;
    localparam R5 = LATENCY >= 5 ? 1 : 0;  // inside the rounding, before its increment
    localparam TAIL = LATENCY > 5 ? LATENCY - 5 : 0;

    // Stage 1: unpack, special cases.
    wire          sign_1 = a[W-1] ^ b[W-1];
    wire nan_a, inf_a, zero_a;
    wire [W-1:0] quiet_a;
    wire [MW:0] norm_a_1;
    wire signed [XW-1:0] eff_a;
    dpn_fp_unpack #(.EW(EW), .MW(MW)) u_unpack_a (.x(a), .nan(nan_a), .inf(inf_a), .zero(zero_a), .quiet(quiet_a), .norm(norm_a_1), .eff(eff_a));
    wire nan_b, inf_b, zero_b;
    wire [W-1:0] quiet_b;
    wire [MW:0] norm_b_1;
    wire signed [XW-1:0] eff_b;
    dpn_fp_unpack #(.EW(EW), .MW(MW)) u_unpack_b (.x(b), .nan(nan_b), .inf(inf_b), .zero(zero_b), .quiet(quiet_b), .norm(norm_b_1), .eff(eff_b));
    wire [W-1:0]  default_nan = {1'b1, EMAX, 1'b1, {(MW - 1){1'b0}}};
    wire          special_1 = nan_a || nan_b || inf_a || inf_b || zero_a || zero_b;
    wire [W-1:0]  special_y_1 = nan_a ? quiet_a
                              : nan_b ? quiet_b
                              : (inf_a && zero_b) || (zero_a && inf_b) ? default_nan
                              : inf_a || inf_b ? {sign_1, EMAX, {MW{1'b0}}}
                              : {sign_1, {(W - 1){1'b0}}};
    wire signed [XW-1:0] exp_1 = eff_a + eff_b - $signed(BIAS);

    localparam B1 = 1 + W + 1 + XW + 2 * (MW + 1);
    wire                 special_2, sign_2;
    wire [W-1:0]         special_y_2;
    wire signed [XW-1:0] exp_2;
    wire [MW:0]          norm_a_2, norm_b_2;
    dpn_delay #(.W(B1), .LATENCY(R1)) u_stage1 (.clk(clk), .ce(ce),
        .d({special_1, special_y_1, sign_1, exp_1, norm_a_1, norm_b_1}),
        .q({special_2, special_y_2, sign_2, exp_2, norm_a_2, norm_b_2}));

    // Stage 2: the product, in [1, 4): leading one at bit 2MW+1 or 2MW.
    wire [2*MW+1:0] product_2 = norm_a_2 * norm_b_2;

    localparam B2 = 1 + W + 1 + XW + 2 * MW + 2;
    wire                 special_3, sign_3;
    wire [W-1:0]         special_y_3;
    wire signed [XW-1:0] exp_3;
    wire [2*MW+1:0]      product_3;
    dpn_delay #(.W(B2), .LATENCY(R2)) u_stage2 (.clk(clk), .ce(ce),
        .d({special_2, special_y_2, sign_2, exp_2, product_2}),
        .q({special_3, special_y_3, sign_3, exp_3, product_3}));

    // Stage 3: normalise.
    wire                 carry = product_3[2*MW+1];
    wire [2*MW+1:0]      normalised_3 = carry ? product_3 : product_3 << 1;
    wire signed [XW-1:0] exp_product_3 = exp_3 + $signed({{(XW - 1){1'b0}}, carry});

    wire                 special_4, sign_4;
    wire [W-1:0]         special_y_4;
    wire signed [XW-1:0] exp_product_4;
    wire [2*MW+1:0]      normalised_4;
    dpn_delay #(.W(B2), .LATENCY(R3)) u_stage3 (.clk(clk), .ce(ce),
        .d({special_3, special_y_3, sign_3, exp_product_3, normalised_3}),
        .q({special_4, special_y_4, sign_4, exp_product_4, normalised_4}));

    // Stage 4: round (in two halves where R5), and the special cases.
    wire [W-1:0] rounded;
    dpn_fp_round #(.EW(EW), .MW(MW), .G(MW + 1), .XW(XW), .LATENCY(R5)) round (
        .clk(clk), .ce(ce), .sign(sign_4), .exp(exp_product_4), .man(normalised_4), .sticky(1'b0), .result(rounded)
    );
    wire         special_5;
    wire [W-1:0] special_y_5;
    dpn_delay #(.W(1 + W), .LATENCY(R5)) u_round (.clk(clk), .ce(ce), .d({special_4, special_y_4}), .q({special_5, special_y_5}));
    wire [W-1:0] y_4 = special_5 ? special_y_5 : rounded;
    wire [W-1:0] y_out;
    dpn_delay #(.W(W), .LATENCY(R4)) u_stage4 (.clk(clk), .ce(ce), .d(y_4), .q(y_out));
    dpn_delay #(.W(W), .LATENCY(TAIL)) u_delay (.clk(clk), .ce(ce), .d(y_out), .q(y));
endmodule
