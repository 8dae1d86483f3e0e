// IEEE-754 adder/subtractor (y = a + b, or a - b when sub = 1), round to nearest even, pipelined LATENCY cycles (default 4).
//
// Format: EW exponent bits, MW fraction bits (8/23 binary32, 11/52 binary64). Needs dpn_fp_round.v.
// Subnormals are handled in and out, exact zero sums are +0 (-0 only for -0 + -0), inf - inf gives
// the x86 default NaN (sign set, quiet bit set); a NaN operand is returned quieted, a before b (as
// SSE addss/subss: for a - b a NaN b is returned without its sign flipped).
// The sum is computed combinationally and followed by a LATENCY-deep register delay line that moves
// only when ce = 1 (retiming is left to synthesis); LATENCY = 0 gives a combinational cell.
module dpn_fadd #(
    parameter EW = 8,
    parameter MW = 23,
    parameter LATENCY = 4
) (
    input  wire             clk,
    input  wire             ce,
    input  wire [EW+MW:0]   a,
    input  wire [EW+MW:0]   b,
    input  wire             sub,
    output wire [EW+MW:0]   y
);
    localparam W = EW + MW + 1;
    localparam XW = EW + 3;
    localparam NW = MW + 5;  // carry, hidden bit, MW fraction bits, guard, round, sticky
    localparam LW = $clog2(NW + 1);
    localparam [EW-1:0] EMAX = {EW{1'b1}};

    function automatic [LW-1:0] leading_zeros(input [NW-1:0] v);
        integer i;
        reg found;
        begin
            leading_zeros = NW[LW-1:0];
            found = 1'b0;
            for (i = NW - 1; i >= 0; i = i - 1) begin
                if (!found && v[i]) begin
                    leading_zeros = NW[LW-1:0] - 1'b1 - i[LW-1:0];
                    found = 1'b1;
                end
            end
        end
    endfunction

    // Operands.
    wire          sign_a = a[W-1];
    wire          sign_b = b[W-1] ^ sub;
    wire [EW-1:0] exp_a = a[W-2:MW];
    wire [EW-1:0] exp_b = b[W-2:MW];
    wire [MW-1:0] frac_a = a[MW-1:0];
    wire [MW-1:0] frac_b = b[MW-1:0];
    wire          nan_a = exp_a == EMAX && frac_a != 0;
    wire          nan_b = exp_b == EMAX && frac_b != 0;
    wire          inf_a = exp_a == EMAX && frac_a == 0;
    wire          inf_b = exp_b == EMAX && frac_b == 0;
    wire [W-1:0]  quiet_a = a | ({{(W - 1){1'b0}}, 1'b1} << (MW - 1));
    wire [W-1:0]  quiet_b = b | ({{(W - 1){1'b0}}, 1'b1} << (MW - 1));
    wire [W-1:0]  default_nan = {1'b1, EMAX, 1'b1, {(MW - 1){1'b0}}};

    // Order by magnitude: x is the larger, z the smaller.
    wire          swap = b[W-2:0] > a[W-2:0];
    wire          sign_x = swap ? sign_b : sign_a;
    wire          sign_z = swap ? sign_a : sign_b;
    wire [EW-1:0] exp_x_raw = swap ? exp_b : exp_a;
    wire [EW-1:0] exp_z_raw = swap ? exp_a : exp_b;
    wire [MW-1:0] frac_x = swap ? frac_b : frac_a;
    wire [MW-1:0] frac_z = swap ? frac_a : frac_b;
    wire [EW-1:0] exp_x = exp_x_raw == 0 ? {{(EW - 1){1'b0}}, 1'b1} : exp_x_raw;  // subnormals: exponent 1, no hidden bit
    wire [EW-1:0] exp_z = exp_z_raw == 0 ? {{(EW - 1){1'b0}}, 1'b1} : exp_z_raw;
    wire [NW-1:0] man_x = {1'b0, exp_x_raw != 0, frac_x, 3'b000};
    wire [NW-1:0] man_z = {1'b0, exp_z_raw != 0, frac_z, 3'b000};

    // Align z to x; bits shifted out are ORed into the sticky bit (bit 0).
    wire [EW-1:0]   diff = exp_x - exp_z;
    wire [EW-1:0]   shift = diff > NW[EW-1:0] ? NW[EW-1:0] : diff;
    wire [2*NW-1:0] z_shifted = {man_z, {NW{1'b0}}} >> shift;
    wire [NW-1:0]   z_aligned = z_shifted[2*NW-1:NW] | {{(NW - 1){1'b0}}, |z_shifted[NW-1:0]};

    wire          subtract = sign_x ^ sign_z;
    wire [NW-1:0] sum = subtract ? man_x - z_aligned : man_x + z_aligned;

    // Normalise (leading one to bit NW-1) and round.
    wire [LW-1:0]        lz = leading_zeros(sum);
    wire [NW-1:0]        normalised = sum << lz;
    wire signed [XW-1:0] exp_sum = $signed({3'b000, exp_x}) + 1 - $signed({{(XW - LW){1'b0}}, lz});
    wire                 sign_sum = sum == 0 ? sign_a & sign_b : sign_x;
    wire [W-1:0]         rounded;
    dpn_fp_round #(.EW(EW), .MW(MW), .G(4), .XW(XW)) round (
        .sign(sign_sum), .exp(exp_sum), .man(normalised), .sticky(1'b0), .result(rounded)
    );

    wire [W-1:0] y_comb = nan_a ? quiet_a
                        : nan_b ? quiet_b
                        : inf_a && inf_b && subtract ? default_nan
                        : inf_a ? {sign_a, EMAX, {MW{1'b0}}}
                        : inf_b ? {sign_b, EMAX, {MW{1'b0}}}
                        : rounded;

    dpn_delay #(.W(W), .LATENCY(LATENCY)) u_delay (.clk(clk), .ce(ce), .d(y_comb), .q(y));
endmodule
