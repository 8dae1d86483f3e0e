// IEEE-754 multiplier (y = a * b), round to nearest even, pipelined LATENCY cycles (default 6).
//
// Format: EW exponent bits, MW fraction bits (8/23 binary32, 11/52 binary64).
// Subnormals are handled in and out; 0 * inf gives the x86 default NaN (sign set, quiet bit set); a
// NaN operand is returned quieted, a before b (as SSE mulss/mulsd).
// Six stages, each ending in a register that moves only when ce = 1: (1) the special cases, the
// exponent and where each significand's lowest one is (a subnormal operand is not normalised);
// (2) the partial products, 26 by 17 bits each, one DSP48E2 apiece with the register behind it;
// (3) their sum; (4) the product's leading zeros, at most as many as keep the exponent at 1 or
// above, or the shift right where the exponent is below 1 (the bits shifted out are told by
// where the lowest one went); (5) normalise, with the exponent, and decide the rounding;
// (6) round and select.
// LATENCY sets how many of those registers exist (the output register first, then those after
// the partial products, after stage 1, after the sum, after the count, and last the one
// between the rounding's decision and its increment); beyond six, a delay line follows.
// LATENCY = 0 gives a combinational cell.
module dpn_fmul #(
    parameter EW = 8,
    parameter MW = 23,
    parameter LATENCY = 6
) (
    input  wire             clk,
    input  wire             ce,
    input  wire [EW+MW:0]   a,
    input  wire [EW+MW:0]   b,
    output wire [EW+MW:0]   y
);
    localparam W = EW + MW + 1;
    localparam XW = EW + 3;
    localparam SW = MW + 1;             // a significand: hidden bit and fraction
    localparam PW = 2 * SW;             // the product
    localparam LW = $clog2(PW + 1);
    localparam [EW-1:0] EMAX = {EW{1'b1}};
    localparam [XW-1:0] BIAS = {{(XW - EW + 1){1'b0}}, {(EW - 1){1'b1}}};
    // The partial products: 26 by 17 bits, what one DSP48E2 multiplies unsigned.
    localparam AC = 26;
    localparam BC = 17;
    localparam NA = (SW + AC - 1) / AC;
    localparam NB = (SW + BC - 1) / BC;
    localparam NP = NA * NB;
    localparam CW = AC + BC;
    localparam [LW+1:0] MW_L = MW[LW+1:0];
    localparam [XW-1:0] PW_X = PW[XW-1:0];

    // How many zeros lead v (PW when v is 0), as a tree: a pair of nodes counts the upper
    // node's zeros, or all of them and the lower node's when the upper holds no one. Node i
    // of a level: its flag (no one) in zero[i], its count in count[LW*i +: LW].
    // (dpn_fadd's function: see there why each cell holds its own.)
`ifdef SYNTHESIS
    function automatic [LW-1:0] leading_zeros(input [PW-1:0] v);
        reg [2**LW-1:0] zero, zero_up;
        reg [LW*2**LW-1:0] count, count_up;
        reg [LW-1:0] span, node;
        integer level, i;
        begin
            // Ones below the value: the count stops at PW for a zero value, and the root
            // always holds a one (the count of a node without one is never used).
            zero = ~{v, {(2**LW - PW){1'b1}}};
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
    function automatic [LW-1:0] leading_zeros(input [PW-1:0] v);
        reg [2**LW-1:0] rest;
        integer level;
        begin
            rest = {v, {(2**LW - (PW)){1'b1}}};
            for (level = LW - 1; level >= 0; level = level - 1) begin
                leading_zeros[level] = rest >> (2**LW - 2**level) == 0;
                if (leading_zeros[level]) rest = rest << 2**level;
            end
        end
    endfunction
`endif

    // Where a significand's lowest one is (its leading zeros, reversed; SW when it is 0).
    function automatic [LW-1:0] lowest_one(input [SW-1:0] v);
        reg [PW-1:0] r;
        integer i;
        begin
            r = {PW{1'b0}};
            for (i = 0; i < SW; i = i + 1) r[PW-1-i] = v[i];
            lowest_one = leading_zeros(r);
        end
    endfunction

    // Which stage boundaries hold a register (1: after stage 1, ..., 6: the output).
    localparam R6 = LATENCY >= 1 ? 1 : 0;
    localparam R2 = LATENCY >= 2 ? 1 : 0;
    localparam R1 = LATENCY >= 3 ? 1 : 0;
    localparam R3 = LATENCY >= 4 ? 1 : 0;
    localparam R4 = LATENCY >= 5 ? 1 : 0;
    localparam R5 = LATENCY >= 6 ? 1 : 0;
    localparam TAIL = LATENCY > 6 ? LATENCY - 6 : 0;

    // Stage 1: special cases; the exponent of the product's bit PW - 2 (bit PW - 1 has one
    // more); where each significand's lowest one is, counted as if the hidden bit were set
    // (with the fraction 0 it is that bit; a zero operand is a special case).
    wire          sign_1 = a[W-1] ^ b[W-1];
    wire [EW-1:0] exp_a = a[W-2:MW];
    wire [EW-1:0] exp_b = b[W-2:MW];
    wire [MW-1:0] frac_a = a[MW-1:0];
    wire [MW-1:0] frac_b = b[MW-1:0];
    wire          nan_a = exp_a == EMAX && frac_a != 0;
    wire          nan_b = exp_b == EMAX && frac_b != 0;
    wire          inf_a = exp_a == EMAX && frac_a == 0;
    wire          inf_b = exp_b == EMAX && frac_b == 0;
    wire          zero_a = a[W-2:0] == 0;
    wire          zero_b = b[W-2:0] == 0;
    wire [W-1:0]  quiet_a = a | ({{(W - 1){1'b0}}, 1'b1} << (MW - 1));
    wire [W-1:0]  quiet_b = b | ({{(W - 1){1'b0}}, 1'b1} << (MW - 1));
    wire [W-1:0]  default_nan = {1'b1, EMAX, 1'b1, {(MW - 1){1'b0}}};
    wire          special_1 = nan_a || nan_b || inf_a || inf_b || zero_a || zero_b;
    wire [W-1:0]  special_y_1 = nan_a ? quiet_a
                              : nan_b ? quiet_b
                              : (inf_a && zero_b) || (zero_a && inf_b) ? default_nan
                              : inf_a || inf_b ? {sign_1, EMAX, {MW{1'b0}}}
                              : {sign_1, {(W - 1){1'b0}}};
    // Subnormals: exponent 1, no hidden bit.
    wire [EW-1:0] eff_a = {exp_a[EW-1:1], exp_a[0] | exp_a == 0};
    wire [EW-1:0] eff_b = {exp_b[EW-1:1], exp_b[0] | exp_b == 0};
    wire signed [XW-1:0] exp_1 = $signed({3'b000, eff_a}) + $signed({3'b000, eff_b}) - $signed(BIAS);
    wire [SW-1:0] sig_a_1 = {exp_a != 0, frac_a};
    wire [SW-1:0] sig_b_1 = {exp_b != 0, frac_b};
    wire [LW-1:0] low_a_1 = lowest_one({1'b1, frac_a});
    wire [LW-1:0] low_b_1 = lowest_one({1'b1, frac_b});

    localparam B1 = 1 + W + 1 + XW + 2 * SW + 2 * LW;
    wire                 special_2, sign_2;
    wire [W-1:0]         special_y_2;
    wire signed [XW-1:0] exp_2;
    wire [SW-1:0]        sig_a_2, sig_b_2;
    wire [LW-1:0]        low_a_2, low_b_2;
    dpn_delay #(.W(B1), .LATENCY(R1)) u_stage1 (.clk(clk), .ce(ce),
        .d({special_1, special_y_1, sign_1, exp_1, sig_a_1, sig_b_1, low_a_1, low_b_1}),
        .q({special_2, special_y_2, sign_2, exp_2, sig_a_2, sig_b_2, low_a_2, low_b_2}));

    // Stage 2: the partial products (part k = i * NB + j: chunk i of a by chunk j of b); the
    // product's lowest one; the bit that stops the count of stage 4 where the exponent would
    // fall below 1 (one at PW - 1 - exp, none when exp is PW or more), and the shift right
    // where it already is (by 2^LW - 1 at most, which loses every bit all the same).
    wire [NA*AC-1:0] a_chunks = {{(NA * AC - SW){1'b0}}, sig_a_2};
    wire [NB*BC-1:0] b_chunks = {{(NB * BC - SW){1'b0}}, sig_b_2};
    wire [NP*CW-1:0] parts_2;
    genvar gi, gj;
    generate
        for (gi = 0; gi < NA; gi = gi + 1) begin : g_a
            for (gj = 0; gj < NB; gj = gj + 1) begin : g_b
                assign parts_2[(gi * NB + gj) * CW +: CW] = a_chunks[gi * AC +: AC] * b_chunks[gj * BC +: BC];
            end
        end
    endgenerate
    wire [LW-1:0]        low_2 = low_a_2 + low_b_2;
    wire                 below_2 = exp_2 < 0;
    wire signed [XW-1:0] neg_exp_2 = -exp_2;
    wire [LW-1:0]        right_2 = neg_exp_2 >= 2**LW ? {LW{1'b1}} : neg_exp_2[LW-1:0];
    wire [PW-1:0]        floor_2 = !below_2 && exp_2 < $signed(PW_X) ? {{(PW - 1){1'b0}}, 1'b1} << (PW_X - 1'b1 - exp_2) : {PW{1'b0}};

    localparam B2 = 1 + W + 1 + XW + NP * CW + LW + 1 + LW + PW;
    wire                 special_3, sign_3, below_3;
    wire [W-1:0]         special_y_3;
    wire signed [XW-1:0] exp_3;
    wire [NP*CW-1:0]     parts_3;
    wire [LW-1:0]        low_3, right_3;
    wire [PW-1:0]        floor_3;
    dpn_delay #(.W(B2), .LATENCY(R2)) u_stage2 (.clk(clk), .ce(ce),
        .d({special_2, special_y_2, sign_2, exp_2, parts_2, low_2, below_2, right_2, floor_2}),
        .q({special_3, special_y_3, sign_3, exp_3, parts_3, low_3, below_3, right_3, floor_3}));

    // Stage 3: the product, the parts in their places. Beside it, how far the shift left may
    // go with the exponent, exp + 1 - shift, still at EMAX or above (overflow): none where
    // room < 0, any where it is 2^LW - 1 or more (formed here: stage 4's count leaves no time
    // after it).
    reg [PW-1:0] product_3;
    reg [NA*AC+NB*BC-1:0] part;
    integer k;
    always @* begin
        product_3 = {PW{1'b0}};
        for (k = 0; k < NP; k = k + 1) begin
            part = {{(NA * AC + NB * BC - CW){1'b0}}, parts_3[k * CW +: CW]} << ((k / NB) * AC + (k % NB) * BC);
            product_3 = product_3 + part[PW-1:0];
        end
    end

    wire signed [XW-1:0] room = exp_3 + 1 - $signed({{(XW - EW){1'b0}}, EMAX});
    wire                 room_3 = room >= 0;
    wire [LW-1:0]        room_left_3 = room >= 2**LW - 1 ? {LW{1'b1}} : room[LW-1:0];

    localparam B3 = 1 + W + 1 + XW + PW + LW + 1 + LW + PW + 1 + LW;
    wire                 special_4, sign_4, below_4, room_4;
    wire [W-1:0]         special_y_4;
    wire signed [XW-1:0] exp_4;
    wire [PW-1:0]        product_4, floor_4;
    wire [LW-1:0]        low_4, right_4, room_left_4;
    dpn_delay #(.W(B3), .LATENCY(R3)) u_stage3 (.clk(clk), .ce(ce),
        .d({special_3, special_y_3, sign_3, exp_3, product_3, low_3, below_3, right_3, floor_3, room_3, room_left_3}),
        .q({special_4, special_y_4, sign_4, exp_4, product_4, low_4, below_4, right_4, floor_4, room_4, room_left_4}));

    // Stage 4: the shift left, min(leading zeros, exp); beside it, where the exponent is below
    // 1 already, the shift right (the count is not used then). The exponent follows the count
    // in stage 5, exp + 1 formed here beside it: in binary64 the count fills this stage.
    wire [LW-1:0] lz_4 = leading_zeros(product_4 | floor_4);
    wire signed [XW-1:0] exp_up_4 = exp_4 + 1;
    wire [PW-1:0] shifted_4 = below_4 ? product_4 >> right_4 : product_4;

    localparam B4 = 1 + W + 1 + XW + PW + LW + 1 + LW + LW + 1 + LW;
    wire                 special_5, sign_5, below_5, room_5;
    wire [W-1:0]         special_y_5;
    wire signed [XW-1:0] exp_up_5;
    wire [PW-1:0]        shifted_5;
    wire [LW-1:0]        low_5, right_5, lz_5, room_left_5;
    dpn_delay #(.W(B4), .LATENCY(R4)) u_stage4 (.clk(clk), .ce(ce),
        .d({special_4, special_y_4, sign_4, exp_up_4, shifted_4, low_4, below_4, right_4, lz_4, room_4, room_left_4}),
        .q({special_5, special_y_5, sign_5, exp_up_5, shifted_5, low_5, below_5, right_5, lz_5, room_5, room_left_5}));

    // Stage 5: normalise: the leading one to bit PW - 1 with the exponent exp + 1 - lz, or a
    // subnormal result (exponent field 0). Then the rounding: the fraction's last bit, the
    // round bit below it and whether any one lies lower (the lowest one, moved by the shift,
    // below the round bit or shifted out).
    wire signed [XW-1:0] exp_sum_5 = exp_up_5 - $signed({{(XW - LW){1'b0}}, lz_5});
    wire [PW-1:0]        normalised = below_5 ? shifted_5 : shifted_5 << lz_5;
    wire signed [LW+1:0] low_moved = below_5 ? $signed({2'b00, low_5}) - $signed({2'b00, right_5}) : $signed({2'b00, low_5}) + $signed({2'b00, lz_5});
    wire                 sticky = low_moved < $signed(MW_L);
    wire                 increment_5 = normalised[MW] && (normalised[MW+1] || sticky);
    wire                 normal = normalised[PW-1];
    wire [EW-1:0]        exp_field_5 = normal ? exp_sum_5[EW-1:0] : {EW{1'b0}};
    wire                 overflow_5 = normal && room_5 && lz_5 <= room_left_5;
    wire [MW-1:0]        fraction_5 = normalised[PW-2:MW+1];

    localparam B5 = 1 + W + 1 + 1 + 1 + EW + MW;
    wire          special_6, sign_6, overflow_6, increment_6;
    wire [W-1:0]  special_y_6;
    wire [EW-1:0] exp_field_6;
    wire [MW-1:0] fraction_6;
    dpn_delay #(.W(B5), .LATENCY(R5)) u_stage5 (.clk(clk), .ce(ce),
        .d({special_5, special_y_5, sign_5, overflow_5, increment_5, exp_field_5, fraction_5}),
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

    wire unused_ok = &{1'b0, exp_sum_5[XW-1:EW], normalised[MW-1:0], neg_exp_2[XW-1:LW], part[NA*AC+NB*BC-1:PW], room[XW-1:LW]};
endmodule
