// Signed IW-bit integer to IEEE-754 float conversion, round to nearest even, pipelined LATENCY cycles (default 3).
//
// Format: EW exponent bits, MW fraction bits (8/23 binary32, 11/52 binary64); IW = 32 or 64 (any
// width >= 2 works). 0 gives +0. Same results as SSE cvtsi2ss/cvtsi2sd. Needs dpn_fp_round.v.
// Three stages, each ending in a register that moves only when ce = 1: (1) the magnitude and,
// beside its negation, the leading zeros counted on the operand itself (for a negative one, on
// its complement: one too many when the magnitude is a power of two) with the shift by the
// count's high bits, and for each bit position whether a one lies there or below; (2) the rest
// of the shift and the rounding decision (the sticky bit from those flags, shifted alike, not
// from the shifter's output); (3) the increment (dpn_fp_round, without subnormal results).
// LATENCY sets which registers exist (the output first, then the one after (1), then the one
// between (2) and (3)); beyond three, a delay line follows. LATENCY = 0 gives a combinational
// cell.
module dpn_i2f #(
    parameter EW = 8,
    parameter MW = 23,
    parameter IW = 32,
    parameter LATENCY = 3
) (
    input  wire             clk,
    input  wire             ce,
    input  wire [IW-1:0]    a,
    output wire [EW+MW:0]   y
);
    localparam W = EW + MW + 1;
    localparam LW = $clog2(IW + 1);
    localparam XW = (EW > LW ? EW : LW) + 3;
    localparam [XW-1:0] BIAS = {{(XW - EW + 1){1'b0}}, {(EW - 1){1'b1}}};
    localparam integer TOP_BIT = IW - 1;
    localparam [XW-1:0] TOP = TOP_BIT[XW-1:0];
    localparam G = 2;  // round bit, sticky bit
    localparam VW = MW + G + 1;
    // Bits of the normalised magnitude below the round bit: those at IW - MW - 3 and below
    // (none when MW + 3 > IW: every integer is then exact).
    localparam integer LOW = IW - MW - 3;
    localparam TW = LOW >= 0 ? LOW + 1 : 1;
    localparam FINE = LW > 3 ? LW - 3 : 1;  // the count's low bits, by which stage 2 shifts

    localparam RO = LATENCY >= 1 ? 1 : 0;  // output register
    localparam R1 = LATENCY >= 2 ? 1 : 0;  // after the magnitude and counts
    localparam R2 = LATENCY >= 3 ? 1 : 0;  // rounding: between the decision and the increment
    localparam TAIL = LATENCY > 3 ? LATENCY - 3 : 0;

    // How many zeros lead v (IW when v is 0), as a tree: a pair of nodes counts the upper
    // node's zeros, or all of them and the lower node's when the upper holds no one (the lower
    // count is below the upper node's span, so the sum is an OR).
    // (dpn_fadd's function: see there why each cell holds its own, and why simulation counts
    // by halving instead.)
`ifdef SYNTHESIS
    function automatic [LW-1:0] leading_zeros(input [IW-1:0] v);
        reg [2**LW-1:0] zero_n, zero_up;
        reg [LW*2**LW-1:0] count, count_up;
        reg [LW-1:0] span, node;
        integer level, i;
        begin
            zero_n = ~{v, {(2**LW - IW){1'b1}}};
            count = {(LW * 2**LW){1'b0}};
            for (level = 1; level <= LW; level = level + 1) begin
                zero_up = {(2**LW){1'b0}};
                count_up = {(LW * 2**LW){1'b0}};
                span = {{(LW - 1){1'b0}}, 1'b1} << (level - 1);
                for (i = 0; i < (2**LW >> level); i = i + 1) begin
                    node = zero_n[2*i+1] ? count[LW*(2*i) +: LW] | span : count[LW*(2*i+1) +: LW];
                    zero_up[i] = zero_n[2*i+1] && zero_n[2*i];
                    count_up[LW*i +: LW] = node;
                end
                zero_n = zero_up;
                count = count_up;
            end
            leading_zeros = count[LW-1:0];
        end
    endfunction
`else
    // Halving: whether the upper half of what is left holds no one sets the count's next bit
    // (the ones put below v stop the count of a zero v at its width).
    function automatic [LW-1:0] leading_zeros(input [IW-1:0] v);
        reg [2**LW-1:0] rest;
        integer level;
        begin
            rest = {v, {(2**LW - (IW)){1'b1}}};
            for (level = LW - 1; level >= 0; level = level - 1) begin
                leading_zeros[level] = rest >> (2**LW - 2**level) == 0;
                if (leading_zeros[level]) rest = rest << 2**level;
            end
        end
    endfunction
`endif

    // Stage 1: the magnitude (-(-2^(IW-1)) = 2^(IW-1) as unsigned). Its leading zeros are those
    // of a, or of ~a = magnitude - 1 when a is negative: the same, but one more when the
    // magnitude is a power of two (stage 2 mends that). Beside them, for each bit position j
    // up to LOW, whether a one lies at j or below (negation keeps the lowest one where it is).
    wire          negative_1 = a[IW-1];
    wire [IW-1:0] magnitude_1 = negative_1 ? -a : a;
    wire [LW-1:0] lz_1 = leading_zeros(a ^ {IW{negative_1}});
    wire signed [XW-1:0] exp_1 = $signed(BIAS) + $signed(TOP) - $signed({{(XW - LW){1'b0}}, lz_1});
    // (A prefix OR in log2(TW) steps, each ORing in the flags 2^k below.)
    reg  [TW-1:0] ones_1;
    integer j, k;
    always @(*) begin
        ones_1 = a[TW-1:0] & {TW{LOW >= 0}};
        for (k = 1; k < TW; k = k * 2)
            for (j = TW - 1; j >= k; j = j - 1) ones_1[j] = ones_1[j] | ones_1[j-k];
    end
    // The shift to normalise, but for the count's lowest FINE bits (stage 2's), here: an 8-to-1
    // multiplexer after the count.
    wire [IW:0]   coarse_1 = {1'b0, magnitude_1} << {lz_1[LW-1:FINE], {FINE{1'b0}}};
    wire [TW-1:0] ones_coarse_1 = ones_1 << {lz_1[LW-1:FINE], {FINE{1'b0}}};

    localparam B1 = 1 + XW + (IW + 1) + FINE + TW;
    wire          negative_2;
    wire signed [XW-1:0] exp_2;
    wire [IW:0]   coarse_2;
    wire [FINE-1:0] fine_2;
    wire [TW-1:0] ones_2;
    dpn_delay #(.W(B1), .LATENCY(R1)) u_counted (.clk(clk), .ce(ce),
        .d({negative_1, exp_1, coarse_1, lz_1[FINE-1:0], ones_coarse_1}), .q({negative_2, exp_2, coarse_2, fine_2, ones_2}));

    // Stage 2: normalise (the leading one to bit IW - 1, or to bit IW when the count was one
    // too many: the magnitude is then 2^k, which is 2^(k-1) * 1.11...1 rounded up, so every
    // bit below is set and the rounding carries into the exponent). The bits below the round
    // bit are sticky: there are some when a one lies at LOW - lz or below, a bit of the flags
    // shifted as the magnitude is (not an OR after the shifter, nor a sum of counts: a carry
    // chain that the LUT mapping would take for an input of the logic after it).
    wire [IW:0]          shifted = coarse_2 << fine_2;
    wire [IW+VW:0]       padded = {shifted, {VW{1'b0}}};  // MW + 1 may exceed IW: the fraction is then exact
    wire [TW-1:0]        ones_shifted = ones_2 << fine_2;
    wire                 sticky = LOW >= 0 && ones_shifted[TW-1];
    wire [VW-1:0]        man_2 = {padded[IW+VW-1 -: VW-1], sticky} | {VW{shifted[IW]}};
    wire [W-1:0]         y_2;
    dpn_fp_round #(.EW(EW), .MW(MW), .G(G), .XW(XW), .TINY(0), .LATENCY(R2)) u_round (
        .clk(clk), .ce(ce), .sign(negative_2), .exp(exp_2), .man(man_2), .rem(1'b0), .rem_fix(1'b0), .result(y_2)
    );

    wire [W-1:0] y_out;
    dpn_delay #(.W(W), .LATENCY(RO)) u_out (.clk(clk), .ce(ce), .d(y_2), .q(y_out));
    dpn_delay #(.W(W), .LATENCY(TAIL)) u_delay (.clk(clk), .ce(ce), .d(y_out), .q(y));
    wire unused_ok = &{1'b0, padded, ones_shifted};
endmodule
