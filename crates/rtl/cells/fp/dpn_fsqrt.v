// IEEE-754 square root (y = sqrt(a)), round to nearest even, pipelined LATENCY cycles (default 16).
//
// Format: EW exponent bits, MW fraction bits (8/23 binary32, 11/52 binary64). Needs dpn_fp_round.v and dpn_fp_unpack.v.
// Subnormal inputs are handled; sqrt(-0) = -0, sqrt(+inf) = +inf, a negative operand (-inf included)
// gives the x86 default NaN (sign set, quiet bit set), a NaN is returned quieted (as SSE sqrtss).
// The root comes from a combinational non-restoring integer square root (MW+3 root bits plus a
// sticky remainder bit) followed by a LATENCY-deep register delay line that moves only when ce = 1
// (retiming is left to synthesis); LATENCY = 0 gives a combinational cell.
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


    // Integer square root of radicand * 2^(2 RW - MW - 2) (radicand in [2^MW, 2^(MW+2))): RW root
    // bits with the leading one at bit RW-1, then 1 if a remainder is left. Non-restoring, two
    // radicand bits per step: with root Q so far and two's complement partial remainder P, the next
    // P is 4P + digits - (4Q + 1) when P >= 0, else 4P + digits + (4Q + 3) (one adder); the new
    // root bit is 1 when the new P >= 0.
    function automatic [RW:0] square_root(input [MW+1:0] radicand);
        integer i;
        reg [2*RW-1:0] digits;
        reg [RW+5:0]   part;
        reg [RW+5:0]   operand;
        /* verilator lint_off UNUSEDSIGNAL */
        reg [RW+6:0]   total;  // bit 0 only feeds the carry-in
        /* verilator lint_on UNUSEDSIGNAL */
        reg            subtract;
        reg [RW-1:0]   root;
        reg [RW+5:0]   rem;
        begin
            digits = {radicand, {(2 * RW - MW - 2){1'b0}}};
            part = 0;
            root = 0;
            for (i = RW - 1; i >= 0; i = i - 1) begin
                subtract = !part[RW+5];
                operand = subtract ? ~{4'b0000, root, 2'b01} : {4'b0000, root, 2'b11};
                total = {part[RW+3:0], digits[2*i+1], digits[2*i], 1'b1} + {operand, subtract};
                part = total[RW+6:1];
                root = {root[RW-2:0], !part[RW+5]};
            end
            rem = part[RW+5] ? part + {4'b0000, root, 1'b1} : part;
            square_root = {root, rem != 0};
        end
    endfunction

    wire          sign = a[W-1];
    wire nan_a, inf_a, zero_a;
    wire [W-1:0] quiet_a;
    wire [MW:0] norm_a;
    wire signed [XW-1:0] eff_a;
    dpn_fp_unpack #(.EW(EW), .MW(MW)) u_unpack_a (.x(a), .nan(nan_a), .inf(inf_a), .zero(zero_a), .quiet(quiet_a), .norm(norm_a), .eff(eff_a));
    wire [W-1:0]  default_nan = {1'b1, EMAX, 1'b1, {(MW - 1){1'b0}}};

    // Normalise a subnormal operand, then make the unbiased exponent even (the bias is odd, so the
    // unbiased exponent is odd when the biased one is even): the radicand is in [1, 4).
    wire                 odd = !eff_a[0];
    wire [MW+1:0]        radicand = odd ? {norm_a, 1'b0} : {1'b0, norm_a};
    wire signed [XW-1:0] unbiased_even = eff_a - $signed(BIAS) - $signed({{(XW - 1){1'b0}}, odd});
    wire signed [XW-1:0] exp_root = (unbiased_even >>> 1) + $signed(BIAS);
    wire [RW:0]          root = square_root(radicand);
    wire [W-1:0]         rounded;
    dpn_fp_round #(.EW(EW), .MW(MW), .G(2), .XW(XW)) round (
        .sign(1'b0), .exp(exp_root), .man(root[RW:1]), .sticky(root[0]), .result(rounded)
    );

    wire [W-1:0] y_comb = nan_a ? quiet_a
                        : zero_a ? a
                        : sign ? default_nan
                        : inf_a ? a
                        : rounded;

    dpn_delay #(.W(W), .LATENCY(LATENCY)) u_delay (.clk(clk), .ce(ce), .d(y_comb), .q(y));
endmodule
