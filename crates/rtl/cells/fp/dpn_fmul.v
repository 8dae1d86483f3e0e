// IEEE-754 multiplier (y = a * b), round to nearest even, pipelined LATENCY cycles (default 4).
//
// Format: EW exponent bits, MW fraction bits (8/23 binary32, 11/52 binary64). Needs dpn_fp_round.v and dpn_fp_unpack.v.
// Subnormals are handled in and out; 0 * inf gives the x86 default NaN (sign set, quiet bit set); a
// NaN operand is returned quieted, a before b (as SSE mulss/mulsd).
// The product is computed combinationally and followed by a LATENCY-deep register delay line that
// moves only when ce = 1 (retiming is left to synthesis); LATENCY = 0 gives a combinational cell.
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


    // Product in [1, 4): leading one at bit 2MW+1 or 2MW.
    wire [2*MW+1:0]      product = norm_a * norm_b;
    wire                 carry = product[2*MW+1];
    wire [2*MW+1:0]      normalised = carry ? product : product << 1;
    wire signed [XW-1:0] exp_product = eff_a + eff_b - $signed(BIAS) + $signed({{(XW - 1){1'b0}}, carry});
    wire [W-1:0]         rounded;
    dpn_fp_round #(.EW(EW), .MW(MW), .G(MW + 1), .XW(XW)) round (
        .sign(sign), .exp(exp_product), .man(normalised), .sticky(1'b0), .result(rounded)
    );

    wire [W-1:0] y_comb = nan_a ? quiet_a
                        : nan_b ? quiet_b
                        : (inf_a && zero_b) || (zero_a && inf_b) ? default_nan
                        : inf_a || inf_b ? {sign, EMAX, {MW{1'b0}}}
                        : zero_a || zero_b ? {sign, {(W - 1){1'b0}}}
                        : rounded;

    dpn_delay #(.W(W), .LATENCY(LATENCY)) u_delay (.clk(clk), .ce(ce), .d(y_comb), .q(y));
endmodule
