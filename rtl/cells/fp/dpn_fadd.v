// IEEE-754 adder/subtractor (y = a + b, or a - b when sub = 1), round to nearest even, pipelined LATENCY cycles (default 6).
//
// Format: EW exponent bits, MW fraction bits (8/23 binary32, 11/52 binary64).
// Subnormals are handled in and out, exact zero sums are +0 (-0 only for -0 + -0), inf - inf gives
// the x86 default NaN (sign set, quiet bit set); a NaN operand is returned quieted, a before b (as
// SSE addss/subss: for a - b a NaN b is returned without its sign flipped).
// Six stages, each ending in a register that moves only when ce = 1: (1) order the operands by
// magnitude, find the special cases, the exponent difference and where each operand's lowest
// one is, and invert the smaller operand for a subtraction; (2) align it (its sticky bit known
// from where its lowest one is, not ORed from the shifter); (3) add; (4) count the sum's
// leading zeros, at most as many as keep the exponent at 1 or above (a subnormal result is
// then aligned already and the rounding never shifts right); (5) normalise, with the
// exponent, and decide the rounding; (6) select the fraction or the fraction plus one, formed
// beside the decision. LATENCY sets how many of those registers exist (the output register
// first, then those after the sum, after ordering, after the count, between (5) and (6), and
// last the one between the alignment and the add: binary64's shifter and 57-bit carry chain
// do not fit one cycle together); beyond six, a delay line follows. LATENCY = 0 gives a
// combinational cell.
module dpn_fadd #(
    parameter EW = 8,
    parameter MW = 23,
    parameter LATENCY = 6
) (
    input  wire             clk,
    input  wire             ce,
    input  wire [EW+MW:0]   a,
    input  wire [EW+MW:0]   b,
    input  wire             sub,
    output wire [EW+MW:0]   y
);
    localparam W = EW + MW + 1;
    localparam NW = MW + 5;  // carry, hidden bit, MW fraction bits, guard, round, sticky
    localparam LW = $clog2(NW + 1);
    localparam [EW-1:0] EMAX = {EW{1'b1}};
    localparam [EW-1:0] NW_E = NW[EW-1:0];

    // How many zeros lead v (NW when v is 0), as a tree: a pair of nodes counts the upper
    // node's zeros, or all of them and the lower node's when the upper holds no one. Level k
    // has 2^(LW-k) nodes, node i's flag (no one) in zero[i] and its count in count[LW*i +: LW].
    // dpn_fmul and dpn_f2f hold the same function: a module of its own would be a level of the
    // hierarchy that synthesis keeps, and the count could not merge with the logic around it
    // (two LUT levels more in the stage that counts). Simulation counts by halving instead, in
    // LW steps: the tree (and a loop along the bits) made designs of many cells several times
    // larger to compile (the float cells' test simulates both codings).
`ifdef SYNTHESIS
    function automatic [LW-1:0] leading_zeros(input [NW-1:0] v);
        reg [2**LW-1:0] zero, zero_up;
        reg [LW*2**LW-1:0] count, count_up;
        reg [LW-1:0] span, node;
        integer level, i;
        begin
            // Ones below the value: the count stops at NW for a zero value, and the root
            // always holds a one (the count of a node without one is never used).
            zero = ~{v, {(2**LW - NW){1'b1}}};
            count = {(LW * 2**LW){1'b0}};
            for (level = 1; level <= LW; level = level + 1) begin
                zero_up = {(2**LW){1'b0}};
                count_up = {(LW * 2**LW){1'b0}};
                span = {{(LW - 1){1'b0}}, 1'b1} << (level - 1);
                for (i = 0; i < (2**LW >> level); i = i + 1) begin
                    node = zero[2*i+1] ? count[LW*(2*i) +: LW] + span : count[LW*(2*i+1) +: LW];
                    zero_up[i] = zero[2*i+1] && zero[2*i];
                    count_up[LW*i +: LW] = node;
                end
                zero = zero_up;
                count = count_up;
            end
            leading_zeros = count[LW-1:0];
        end
    endfunction
`else
    // Halving: whether the upper half of what is left holds no one sets the count's next bit
    // (the ones put below v stop the count of a zero v at its width).
    function automatic [LW-1:0] leading_zeros(input [NW-1:0] v);
        reg [2**LW-1:0] rest;
        integer level;
        begin
            rest = {v, {(2**LW - (NW)){1'b1}}};
            for (level = LW - 1; level >= 0; level = level - 1) begin
                leading_zeros[level] = rest >> (2**LW - 2**level) == 0;
                if (leading_zeros[level]) rest = rest << 2**level;
            end
        end
    endfunction
`endif

    // v with its bits in the opposite order: leading zeros of the one are trailing zeros of
    // the other.
    function automatic [NW-1:0] reversed(input [NW-1:0] v);
        integer i;
        for (i = 0; i < NW; i = i + 1) reversed[i] = v[NW-1-i];
    endfunction

    // Which stage boundaries hold a register (1: after ordering, ..., 6: the output).
    localparam R6 = LATENCY >= 1 ? 1 : 0;
    localparam R3 = LATENCY >= 2 ? 1 : 0;
    localparam R1 = LATENCY >= 3 ? 1 : 0;
    localparam R4 = LATENCY >= 4 ? 1 : 0;
    localparam R5 = LATENCY >= 5 ? 1 : 0;
    localparam R2 = LATENCY >= 6 ? 1 : 0;
    localparam TAIL = LATENCY > 6 ? LATENCY - 6 : 0;

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
    // Subnormals: exponent 1, no hidden bit. Both differences and where both operands' lowest
    // ones are, are formed beside the comparison that orders the operands, which then only
    // selects.
    wire [EW-1:0] exp_a_eff = {exp_a[EW-1:1], exp_a[0] | exp_a == 0};
    wire [EW-1:0] exp_b_eff = {exp_b[EW-1:1], exp_b[0] | exp_b == 0};
    wire [EW-1:0] diff_ab = exp_a_eff - exp_b_eff;
    wire [EW-1:0] diff_ba = exp_b_eff - exp_a_eff;
    wire [NW-1:0] man_a = {1'b0, exp_a != 0, frac_a, 3'b000};
    wire [NW-1:0] man_b = {1'b0, exp_b != 0, frac_b, 3'b000};
    // Where its lowest one is (counted as if the hidden bit were set, so that the count does
    // not wait for the exponent: with the fraction 0 it is that bit, or none).
    wire [LW-1:0] low_a = leading_zeros(reversed({2'b01, frac_a, 3'b000}));
    wire [LW-1:0] low_b = leading_zeros(reversed({2'b01, frac_b, 3'b000}));
    wire [EW-1:0] exp_x_1 = swap ? exp_b_eff : exp_a_eff;
    wire [NW-1:0] man_x_1 = swap ? man_b : man_a;
    wire [NW-1:0] man_z_1 = swap ? man_a : man_b;
    // A subtraction adds z inverted (x + ~z + 1); the signs tell it before the comparison
    // does, so the inversion merges with the selection.
    wire          subtract_1 = sign_a ^ sign_b;
    wire [NW-1:0] z_inv_1 = man_z_1 ^ {NW{subtract_1}};
    wire          zero_z_1 = swap ? man_a == 0 : man_b == 0;
    wire [EW-1:0] diff_1 = swap ? diff_ba : diff_ab;
    wire          both_negative_1 = sign_a & sign_b;

    localparam B1 = 1 + W + 1 + 1 + 1 + 1 + EW + NW + NW + 1 + LW + LW + EW;
    wire          special_2, sign_x_2, subtract_2, both_negative_2, swap_2, zero_z_2;
    wire [W-1:0]  special_y_2;
    wire [EW-1:0] exp_x_2;
    wire [NW-1:0] man_x_2, z_inv_2;
    wire [LW-1:0] low_a_2, low_b_2;
    wire [EW-1:0] diff_2;
    dpn_delay #(.W(B1), .LATENCY(R1)) u_stage1 (.clk(clk), .ce(ce),
        .d({special_1, special_y_1, sign_x_1, subtract_1, both_negative_1, swap, exp_x_1, man_x_1, z_inv_1, zero_z_1, low_a, low_b, diff_1}),
        .q({special_2, special_y_2, sign_x_2, subtract_2, both_negative_2, swap_2, exp_x_2, man_x_2, z_inv_2, zero_z_2, low_a_2, low_b_2, diff_2}));

    // Stage 2: align z to x. z, inverted or not, shifts in copies of the inversion (zeros of
    // z); a difference of 2^LW or more (far) loses every bit of z. Bit 0 of the aligned z, the
    // sticky bit, is whether z has a one at the shift or below (shifted out): where its lowest
    // one is tells, without the shifter. Beside them, the bit that stops the count of stage 4
    // where the exponent would fall below 1: one at NW - 1 - exp_x (none when exp_x is NW or
    // more).
    wire          far_2 = |diff_2[EW-1:LW];
    wire [LW-1:0] shift_2 = diff_2[LW-1:0];
    wire signed [NW:0] z_inv_ext = {subtract_2, z_inv_2};
    wire signed [NW:0] z_inv_asr = z_inv_ext >>> shift_2;
    wire [NW-1:1] z_inv_high = far_2 ? {(NW - 1){subtract_2}} : z_inv_asr[NW-1:1];
    // Where z's lowest one is: chosen here, since the comparison that orders the operands
    // comes late in stage 1.
    wire [LW-1:0] low_z_2 = swap_2 ? low_a_2 : low_b_2;
    wire          sticky_2 = !zero_z_2 && (far_2 || shift_2 >= low_z_2);
    wire [NW-1:0] z_aligned_2 = {z_inv_high, sticky_2 ^ subtract_2};
    wire [NW-1:0] floor_2 = exp_x_2 < NW_E ? {{(NW - 1){1'b0}}, 1'b1} << (NW_E - 1'b1 - exp_x_2) : {NW{1'b0}};

    localparam B2 = 1 + W + 1 + 1 + 1 + EW + NW + NW + NW;
    wire          special_3, sign_x_3, subtract_3, both_negative_3;
    wire [W-1:0]  special_y_3;
    wire [EW-1:0] exp_x_3;
    wire [NW-1:0] man_x_3, z_aligned_3, floor_3;
    dpn_delay #(.W(B2), .LATENCY(R2)) u_stage2 (.clk(clk), .ce(ce),
        .d({special_2, special_y_2, sign_x_2, subtract_2, both_negative_2, exp_x_2, man_x_2, z_aligned_2, floor_2}),
        .q({special_3, special_y_3, sign_x_3, subtract_3, both_negative_3, exp_x_3, man_x_3, z_aligned_3, floor_3}));

    // Stage 3: add (x + z, or x + ~z + 1).
    wire [NW-1:0] sum_3 = man_x_3 + z_aligned_3 + {{(NW - 1){1'b0}}, subtract_3};

    localparam B3 = 1 + W + 1 + 1 + EW + NW + NW;
    wire          special_4, sign_x_4, both_negative_4;
    wire [W-1:0]  special_y_4;
    wire [EW-1:0] exp_x_4;
    wire [NW-1:0] sum_4, floor_4;
    dpn_delay #(.W(B3), .LATENCY(R3)) u_stage3 (.clk(clk), .ce(ce),
        .d({special_3, special_y_3, sign_x_3, both_negative_3, exp_x_3, sum_3, floor_3}),
        .q({special_4, special_y_4, sign_x_4, both_negative_4, exp_x_4, sum_4, floor_4}));

    // Stage 4: the normalising shift, min(leading zeros, exp_x): the leading one to bit NW - 1
    // with the exponent exp_x + 1 - shift (at most EMAX: exp_x is below it), or a subnormal
    // result with exponent field 0. The exponent follows the count in stage 5, exp_x + 1
    // formed here beside it: in binary64 the count fills this stage.
    wire [LW-1:0] lz_4 = leading_zeros(sum_4 | floor_4);
    wire [EW-1:0] exp_up_4 = exp_x_4 + 1'b1;
    wire          sign_sum_4 = sum_4 == 0 ? both_negative_4 : sign_x_4;

    localparam B4 = 1 + W + 1 + EW + NW + LW;
    wire          special_5, sign_sum_5;
    wire [W-1:0]  special_y_5;
    wire [EW-1:0] exp_up_5;
    wire [NW-1:0] sum_5;
    wire [LW-1:0] lz_5;
    dpn_delay #(.W(B4), .LATENCY(R4)) u_stage4 (.clk(clk), .ce(ce),
        .d({special_4, special_y_4, sign_sum_4, exp_up_4, sum_4, lz_4}),
        .q({special_5, special_y_5, sign_sum_5, exp_up_5, sum_5, lz_5}));

    // Stage 5: normalise; round to nearest even from the four bits below the fraction; an
    // exponent of EMAX overflows to infinity.
    wire [NW-1:0] normalised = sum_5 << lz_5;
    wire [EW-1:0] exp_sum_5 = exp_up_5 - {{(EW - LW){1'b0}}, lz_5};
    wire          normal = normalised[NW-1];
    wire [EW-1:0] exp_field_5 = normal ? exp_sum_5 : {EW{1'b0}};
    wire          overflow_5 = normal && exp_sum_5 == EMAX;
    wire          increment_5 = normalised[3] && (normalised[4] || |normalised[2:0]);
    wire [MW-1:0] fraction_5 = normalised[NW-2:4];

    localparam B5 = 1 + W + 1 + 1 + 1 + EW + MW;
    wire          special_6, sign_6, overflow_6, increment_6;
    wire [W-1:0]  special_y_6;
    wire [EW-1:0] exp_field_6;
    wire [MW-1:0] fraction_6;
    dpn_delay #(.W(B5), .LATENCY(R5)) u_stage5 (.clk(clk), .ce(ce),
        .d({special_5, special_y_5, sign_sum_5, overflow_5, increment_5, exp_field_5, fraction_5}),
        .q({special_6, special_y_6, sign_6, overflow_6, increment_6, exp_field_6, fraction_6}));

    // Stage 6: round (a carry out of the fraction moves into the exponent field: subnormal ->
    // smallest normal, next binade, largest finite -> infinity) and select.
    // The increment is formed beside the decision, which then only selects.
    wire [EW+MW-1:0] truncated = {exp_field_6, fraction_6};
    wire [EW+MW-1:0] incremented = truncated + 1'b1;
    wire [W-1:0]     y_6 = special_6 ? special_y_6 : overflow_6 ? {sign_6, EMAX, {MW{1'b0}}} : {sign_6, increment_6 ? incremented : truncated};
    wire [W-1:0]     y_out;
    dpn_delay #(.W(W), .LATENCY(R6)) u_stage6 (.clk(clk), .ce(ce), .d(y_6), .q(y_out));
    dpn_delay #(.W(W), .LATENCY(TAIL)) u_delay (.clk(clk), .ce(ce), .d(y_out), .q(y));

    wire unused_ok = &{1'b0, z_inv_asr[NW], z_inv_asr[0]};

endmodule
