// IEEE-754 adder/subtractor (y = a + b, or a - b when sub = 1), round to nearest even, pipelined LATENCY cycles (default 4).
//
// Format: EW exponent bits, MW fraction bits (8/23 binary32, 11/52 binary64). Needs dpn_fp_round.v.
// Subnormals are handled in and out, exact zero sums are +0 (-0 only for -0 + -0), inf - inf gives
// the x86 default NaN (sign set, quiet bit set); a NaN operand is returned quieted, a before b (as
// SSE addss/subss: for a - b a NaN b is returned without its sign flipped).
// Four stages, each ending in a register that moves only when ce = 1: (1) order the operands,
// find the special cases and align by whole multiples of 8 bits, (2) align by the rest and add,
// (3) normalise, (4) round and select. LATENCY sets how many of those registers exist (the
// output register first, then those after the sum, after normalisation and after ordering); a
// fifth splits the rounding before its increment (a carry chain as wide as the result); beyond
// five, a delay line follows. LATENCY = 0 gives a combinational cell.
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

    // Which stage boundaries hold a register (1: after ordering, ..., 4: the output).
    localparam R4 = LATENCY >= 1 ? 1 : 0;
    localparam R2 = LATENCY >= 2 ? 1 : 0;
    localparam R3 = LATENCY >= 3 ? 1 : 0;
    localparam R1 = LATENCY >= 4 ? 1 : 0;
    localparam R5 = LATENCY >= 5 ? 1 : 0;  // inside the rounding, before its increment
    localparam TAIL = LATENCY > 5 ? LATENCY - 5 : 0;

    // Stage 1: operands, special cases, order by magnitude (x is the larger, z the smaller).
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
    wire          special_1 = nan_a || nan_b || inf_a || inf_b;
    wire [W-1:0]  special_y_1 = nan_a ? quiet_a
                              : nan_b ? quiet_b
                              : inf_a && inf_b && sign_a != sign_b ? default_nan
                              : inf_a ? {sign_a, EMAX, {MW{1'b0}}}
                              : {sign_b, EMAX, {MW{1'b0}}};

    wire          swap = b[W-2:0] > a[W-2:0];
    wire          sign_x_1 = swap ? sign_b : sign_a;
    wire          sign_z = swap ? sign_a : sign_b;
    wire [EW-1:0] exp_x_raw = swap ? exp_b : exp_a;
    wire [EW-1:0] exp_z_raw = swap ? exp_a : exp_b;
    wire [MW-1:0] frac_x = swap ? frac_b : frac_a;
    wire [MW-1:0] frac_z = swap ? frac_a : frac_b;
    // Subnormals: exponent 1, no hidden bit. Both differences are formed beside the comparison
    // that orders the operands, which then only selects one.
    wire [EW-1:0] exp_a_eff = exp_a == 0 ? {{(EW - 1){1'b0}}, 1'b1} : exp_a;
    wire [EW-1:0] exp_b_eff = exp_b == 0 ? {{(EW - 1){1'b0}}, 1'b1} : exp_b;
    wire [EW-1:0] exp_x_1 = swap ? exp_b_eff : exp_a_eff;
    wire [NW-1:0] man_x_1 = {1'b0, exp_x_raw != 0, frac_x, 3'b000};
    wire [NW-1:0] man_z_1 = {1'b0, exp_z_raw != 0, frac_z, 3'b000};
    wire [EW-1:0] diff_1 = swap ? exp_b_eff - exp_a_eff : exp_a_eff - exp_b_eff;
    wire          subtract_1 = sign_x_1 ^ sign_z;
    wire          both_negative_1 = sign_a & sign_b;

    // The alignment of z to x begins here: the shift (at most NW: beyond it every bit goes into
    // the sticky bit) in whole multiples of 8, the bits it moves below z's NW kept as one lost
    // bit; stage 2 shifts by the rest.
    wire [EW-1:0]   shift_1 = diff_1 > NW[EW-1:0] ? NW[EW-1:0] : diff_1;
    wire [2*NW-1:0] z_coarse = {man_z_1, {NW{1'b0}}} >> {shift_1[EW-1:3], 3'b000};
    wire [NW-1:0]   z_top_1 = z_coarse[2*NW-1:NW];
    wire            z_lost_1 = |z_coarse[NW-1:0];

    localparam B1 = 1 + W + 1 + 1 + 1 + EW + NW + NW + 1 + 3;
    wire          special_2, sign_x_2, subtract_2, both_negative_2, z_lost_2;
    wire [W-1:0]  special_y_2;
    wire [EW-1:0] exp_x_2;
    wire [NW-1:0] man_x_2, z_top_2;
    wire [2:0]    fine_2;
    dpn_delay #(.W(B1), .LATENCY(R1)) u_stage1 (.clk(clk), .ce(ce),
        .d({special_1, special_y_1, sign_x_1, subtract_1, both_negative_1, exp_x_1, man_x_1, z_top_1, z_lost_1, shift_1[2:0]}),
        .q({special_2, special_y_2, sign_x_2, subtract_2, both_negative_2, exp_x_2, man_x_2, z_top_2, z_lost_2, fine_2}));

    // Stage 2: the rest of the alignment (bits shifted out are ORed into the sticky bit, bit 0)
    // and the sum.
    wire [NW+6:0] z_fine = {z_top_2, 7'd0} >> fine_2;
    wire [NW-1:0] z_aligned = z_fine[NW+6:7] | {{(NW - 1){1'b0}}, z_lost_2 | (|z_fine[6:0])};
    wire [NW-1:0] sum_2 = subtract_2 ? man_x_2 - z_aligned : man_x_2 + z_aligned;

    localparam B2 = 1 + W + 1 + 1 + EW + NW;
    wire          special_3, sign_x_3, both_negative_3;
    wire [W-1:0]  special_y_3;
    wire [EW-1:0] exp_x_3;
    wire [NW-1:0] sum_3;
    dpn_delay #(.W(B2), .LATENCY(R2)) u_stage2 (.clk(clk), .ce(ce),
        .d({special_2, special_y_2, sign_x_2, both_negative_2, exp_x_2, sum_2}),
        .q({special_3, special_y_3, sign_x_3, both_negative_3, exp_x_3, sum_3}));

    // Stage 3: normalise (leading one to bit NW-1).
    wire [LW-1:0]        lz = leading_zeros(sum_3);
    wire [NW-1:0]        normalised_3 = sum_3 << lz;
    wire signed [XW-1:0] exp_sum_3 = $signed({3'b000, exp_x_3}) + 1 - $signed({{(XW - LW){1'b0}}, lz});
    wire                 sign_sum_3 = sum_3 == 0 ? both_negative_3 : sign_x_3;

    localparam B3 = 1 + W + 1 + XW + NW;
    wire                 special_4, sign_sum_4;
    wire [W-1:0]         special_y_4;
    wire signed [XW-1:0] exp_sum_4;
    wire [NW-1:0]        normalised_4;
    dpn_delay #(.W(B3), .LATENCY(R3)) u_stage3 (.clk(clk), .ce(ce),
        .d({special_3, special_y_3, sign_sum_3, exp_sum_3, normalised_3}),
        .q({special_4, special_y_4, sign_sum_4, exp_sum_4, normalised_4}));

    // Stage 4: round (in two halves where R5), and the special cases.
    wire [W-1:0] rounded;
    dpn_fp_round #(.EW(EW), .MW(MW), .G(4), .XW(XW), .LATENCY(R5)) round (
        .clk(clk), .ce(ce), .sign(sign_sum_4), .exp(exp_sum_4), .man(normalised_4), .sticky(1'b0), .result(rounded)
    );
    wire         special_5;
    wire [W-1:0] special_y_5;
    dpn_delay #(.W(1 + W), .LATENCY(R5)) u_round (.clk(clk), .ce(ce), .d({special_4, special_y_4}), .q({special_5, special_y_5}));
    wire [W-1:0] y_4 = special_5 ? special_y_5 : rounded;
    wire [W-1:0] y_out;
    dpn_delay #(.W(W), .LATENCY(R4)) u_stage4 (.clk(clk), .ce(ce), .d(y_4), .q(y_out));
    dpn_delay #(.W(W), .LATENCY(TAIL)) u_delay (.clk(clk), .ce(ce), .d(y_out), .q(y));
endmodule
