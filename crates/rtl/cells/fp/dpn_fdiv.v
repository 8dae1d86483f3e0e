// IEEE-754 divider (y = a / b), round to nearest even, pipelined LATENCY cycles (default 16).
//
// Format: EW exponent bits, MW fraction bits (8/23 binary32, 11/52 binary64). Needs dpn_fp_round.v and dpn_fp_unpack.v.
// Subnormals are handled in and out; 0/0 and inf/inf give the x86 default NaN (sign set, quiet bit
// set), x/0 gives a signed infinity; a NaN operand is returned quieted, a before b (as SSE divss).
// The quotient comes from a combinational non-restoring divider (MW+3 quotient bits plus a sticky
// remainder bit) followed by a LATENCY-deep register delay line that moves only when ce = 1
// (retiming is left to synthesis); LATENCY = 0 gives a combinational cell.
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


    // Non-restoring division of num (in [den, 2 den)) by den: QW quotient bits, then 1 if a remainder
    // is left. The two's complement partial remainder stays in [-den, den); each step adds or
    // subtracts den (one adder) and its sign gives the quotient bit.
    function automatic [QW:0] divide(input [MW+1:0] num, input [MW:0] den);
        integer i;
        reg [MW+2:0] part;
        reg [MW+2:0] operand;
        /* verilator lint_off UNUSEDSIGNAL */
        reg [MW+3:0] total;  // bit 0 only feeds the carry-in
        /* verilator lint_on UNUSEDSIGNAL */
        reg          subtract;
        reg [QW-1:0] quot;
        reg [MW+2:0] rem;
        begin
            part = {1'b0, num} - {2'b00, den};  // >= 0: leading quotient bit 1
            quot = 0;
            quot[QW-1] = 1'b1;
            for (i = QW - 2; i >= 0; i = i - 1) begin
                subtract = !part[MW+2];
                operand = subtract ? ~{2'b00, den} : {2'b00, den};
                total = {part[MW+1:0], 1'b0, 1'b1} + {operand, subtract};  // 2 part -/+ den
                part = total[MW+3:1];
                quot[i] = !part[MW+2];
            end
            rem = part[MW+2] ? part + {2'b00, den} : part;
            divide = {quot, rem != 0};
        end
    endfunction

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


    // Quotient in [1, 2): double the dividend when its mantissa is below the divisor's.
    wire                 below = norm_a < norm_b;
    wire [MW+1:0]        num = below ? {norm_a, 1'b0} : {1'b0, norm_a};
    wire [QW:0]          quotient = divide(num, norm_b);
    wire signed [XW-1:0] exp_quotient = eff_a - eff_b + $signed(BIAS) - $signed({{(XW - 1){1'b0}}, below});
    wire [W-1:0]         rounded;
    dpn_fp_round #(.EW(EW), .MW(MW), .G(2), .XW(XW)) round (
        .sign(sign), .exp(exp_quotient), .man(quotient[QW:1]), .sticky(quotient[0]), .result(rounded)
    );

    wire [W-1:0] y_comb = nan_a ? quiet_a
                        : nan_b ? quiet_b
                        : (inf_a && inf_b) || (zero_a && zero_b) ? default_nan
                        : inf_a || zero_b ? {sign, EMAX, {MW{1'b0}}}
                        : zero_a || inf_b ? {sign, {(W - 1){1'b0}}}
                        : rounded;

    dpn_delay #(.W(W), .LATENCY(LATENCY)) u_delay (.clk(clk), .ce(ce), .d(y_comb), .q(y));
endmodule
