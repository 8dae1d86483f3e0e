// IEEE-754 format conversion (EWI/MWI to EWO/MWO, e.g. binary32 <-> binary64), round to nearest even, pipelined LATENCY cycles (default 2).
//
// Widening is exact (subnormal inputs are normalised); narrowing rounds to nearest even with
// subnormal results and overflow to infinity. A NaN keeps its sign, gets the quiet bit set and its
// payload's top bits (narrowing) or is padded with zeros (widening), as SSE cvtss2sd/cvtsd2ss.
// Narrowing takes a subnormal input to a signed zero: every subnormal of the wider format lies
// below half the narrower one's smallest subnormal (binary64 to binary32).
// Two stages: (1) classify; widening: count the fraction's leading zeros; narrowing: the
// exponent, whether the result is subnormal and by how much to shift it, and where the
// significand's lowest one is; (2) widening: normalise and pack; narrowing: shift, decide the
// rounding (the bits shifted out told by where the lowest one went) and select between the
// fraction and the fraction plus one, formed beside the decision. The register between them
// exists with LATENCY >= 2, the output register with LATENCY >= 1, a delay line after them
// beyond 2. All move only when ce = 1; LATENCY = 0 gives a combinational cell.
module dpn_f2f #(
    parameter EWI = 8,
    parameter MWI = 23,
    parameter EWO = 11,
    parameter MWO = 52,
    parameter LATENCY = 2
) (
    input  wire               clk,
    input  wire               ce,
    input  wire [EWI+MWI:0]   a,
    output wire [EWO+MWO:0]   y
);
    localparam WI = EWI + MWI + 1;
    localparam WO = EWO + MWO + 1;
    localparam XW = (EWI > EWO ? EWI : EWO) + 3;
    localparam LW = $clog2(MWI + 2);
    localparam [EWI-1:0] EMAXI = {EWI{1'b1}};
    localparam [EWO-1:0] EMAXO = {EWO{1'b1}};
    localparam integer BIASI = 2**(EWI - 1) - 1;
    localparam integer BIASO = 2**(EWO - 1) - 1;
    localparam R1 = LATENCY >= 2 ? 1 : 0;
    localparam R2 = LATENCY >= 1 ? 1 : 0;
    localparam TAIL = LATENCY > 2 ? LATENCY - 2 : 0;

    // How many zeros lead v (MWI + 1 when v is 0), as a tree: a pair of nodes counts the
    // upper node's zeros, or all of them and the lower node's when the upper holds no one.
    // (dpn_fadd's function: see there why each cell holds its own.)
`ifdef SYNTHESIS
    function automatic [LW-1:0] leading_zeros(input [MWI:0] v);
        reg [2**LW-1:0] zero, zero_up;
        reg [LW*2**LW-1:0] count, count_up;
        reg [LW-1:0] span, node;
        integer level, i;
        begin
            zero = ~{v, {(2**LW - MWI - 1){1'b1}}};
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
    function automatic [LW-1:0] leading_zeros(input [MWI:0] v);
        reg [2**LW-1:0] rest;
        integer level;
        begin
            rest = {v, {(2**LW - (MWI + 1)){1'b1}}};
            for (level = LW - 1; level >= 0; level = level - 1) begin
                leading_zeros[level] = rest >> (2**LW - 2**level) == 0;
                if (leading_zeros[level]) rest = rest << 2**level;
            end
        end
    endfunction
`endif

    // v with its bits in the opposite order: its leading zeros say where v's lowest one is.
    function automatic [MWI:0] reversed(input [MWI:0] v);
        integer i;
        for (i = 0; i <= MWI; i = i + 1) reversed[i] = v[MWI-i];
    endfunction

    // Stage 1: classify.
    wire           sign_1 = a[WI-1];
    wire [EWI-1:0] exp_a = a[WI-2:MWI];
    wire [MWI-1:0] frac_a = a[MWI-1:0];
    wire           nan_1 = exp_a == EMAXI && frac_a != 0;
    wire           inf_1 = exp_a == EMAXI && frac_a == 0;
    wire           zero_1 = exp_a == 0 && frac_a == 0;
    wire           subnormal_1 = exp_a == 0 && frac_a != 0;
    // NaN: quiet bit set, payload aligned at the top of the fraction.
    wire [MWI+MWO-1:0] nan_payload = {frac_a | ({{(MWI - 1){1'b0}}, 1'b1} << (MWI - 1)), {MWO{1'b0}}};
    wire [WO-1:0]      nan_1_y = {sign_1, EMAXO, nan_payload[MWI+MWO-1:MWI]};
    wire [WO-1:0]      y_2;

    generate
        if (EWO >= EWI && MWO >= MWI) begin : g_widen
            // A normal input keeps its fraction and moves its exponent; a subnormal one is
            // normalised: its leading one (lz zeros above it) becomes the hidden bit.
            localparam integer SHIFT_I = BIASO - BIASI;
            localparam [EWO-1:0] SHIFT = SHIFT_I[EWO-1:0];
            wire [EWO-1:0] exp_normal_1 = {{(EWO - EWI){1'b0}}, exp_a} + SHIFT;
            wire [LW-1:0]  lz_1 = leading_zeros({1'b0, frac_a});  // the hidden 0 counted too

            localparam B1 = 5 + WO + EWO + LW + MWI;
            wire           sign_2, nan_2, inf_2, zero_2, subnormal_2;
            wire [WO-1:0]  nan_2_y;
            wire [EWO-1:0] exp_normal_2;
            wire [LW-1:0]  lz_2;
            wire [MWI-1:0] frac_2;
            dpn_delay #(.W(B1), .LATENCY(R1)) u_stage1 (.clk(clk), .ce(ce),
                .d({sign_1, nan_1, inf_1, zero_1, subnormal_1, nan_1_y, exp_normal_1, lz_1, frac_a}),
                .q({sign_2, nan_2, inf_2, zero_2, subnormal_2, nan_2_y, exp_normal_2, lz_2, frac_2}));

            // Stage 2: normalise and pack.
            wire [MWI-1:0] frac_shifted = frac_2 << lz_2;  // the leading one shifted out
            wire [EWO-1:0] exp_subnormal = SHIFT + 1'b1 - {{(EWO - LW){1'b0}}, lz_2};
            wire [MWO-1:0] frac_out = {subnormal_2 ? frac_shifted : frac_2, {(MWO - MWI){1'b0}}};
            assign y_2 = nan_2 ? nan_2_y
                       : inf_2 ? {sign_2, EMAXO, {MWO{1'b0}}}
                       : zero_2 ? {sign_2, {(WO - 1){1'b0}}}
                       : {sign_2, subnormal_2 ? exp_subnormal : exp_normal_2, frac_out};
        end else begin : g_narrow
            // The result's exponent field for a normal input, exp_a - BIASI + BIASO: below 1
            // the result is subnormal, shifted right by 1 - that; at EMAXO or above, infinity.
            // Its significand (hidden bit and MWO fraction bits) is the input's top MWO + 1,
            // then a round bit; the rest and what the shift loses make the sticky bit.
            localparam integer LOW = BIASI - BIASO + 1;  // the smallest exp_a of a normal result
            localparam SW = $clog2(MWO + 3);             // a shift of 2^SW - 1 >= MWO + 2 loses every bit
            localparam integer SHIFT_I = BIASI - BIASO;
            localparam integer OVER_I = LOW - 1 + 2**EWO - 1;  // the smallest exp_a that overflows
            localparam integer FAR_I = LOW - 2**SW;            // the largest exp_a shifted by 2^SW or more
            localparam [XW-1:0]  SHIFT = SHIFT_I[XW-1:0];
            localparam [XW-1:0]  LOW_X = LOW[XW-1:0];
            localparam [EWI-1:0] LOW_E = LOW[EWI-1:0];
            localparam [EWI-1:0] OVER_E = OVER_I[EWI-1:0];
            localparam [EWI-1:0] FAR_E = FAR_I[EWI-1:0];
            wire [XW-1:0]  exp_1 = {{(XW - EWI){1'b0}}, exp_a} - SHIFT;
            wire           subnormal_out_1 = exp_a < LOW_E;
            wire           overflow_1 = exp_a >= OVER_E;
            wire [XW-1:0]  right_wide = LOW_X - {{(XW - EWI){1'b0}}, exp_a};
            wire [SW-1:0]  right_1 = !subnormal_out_1 ? {SW{1'b0}} : exp_a <= FAR_E ? {SW{1'b1}} : right_wide[SW-1:0];
            wire [MWI:0]   man_1 = {1'b1, frac_a};
            wire [LW-1:0]  low_1 = leading_zeros(reversed(man_1));  // where its lowest one is

            localparam B1 = 5 + WO + EWO + 1 + 1 + SW + MWI + 1 + LW;
            wire           sign_2, nan_2, inf_2, zero_2, subnormal_2, subnormal_out_2, overflow_2;
            wire [WO-1:0]  nan_2_y;
            wire [EWO-1:0] exp_2;
            wire [SW-1:0]  right_2;
            wire [MWI:0]   man_2;
            wire [LW-1:0]  low_2;
            dpn_delay #(.W(B1), .LATENCY(R1)) u_stage1 (.clk(clk), .ce(ce),
                .d({sign_1, nan_1, inf_1, zero_1, subnormal_1, nan_1_y, exp_1[EWO-1:0], subnormal_out_1, overflow_1, right_1, man_1, low_1}),
                .q({sign_2, nan_2, inf_2, zero_2, subnormal_2, nan_2_y, exp_2, subnormal_out_2, overflow_2, right_2, man_2, low_2}));

            // Stage 2: shift, round to nearest even, select.
            localparam integer ROUND = MWI - MWO - 1;  // the round bit, before the shift
            wire [MWI:0]          shifted = man_2 >> right_2;
            wire [MWO-1:0]        fraction = shifted[MWI-1:MWI-MWO];
            wire signed [LW+1:0]  low_moved = $signed({2'b00, low_2}) - $signed({{(LW + 2 - SW){1'b0}}, right_2});
            wire                  sticky = low_moved < $signed(ROUND[LW+1:0]);
            wire                  increment = shifted[ROUND] && (shifted[ROUND+1] || sticky);
            wire [EWO-1:0]        exp_field = subnormal_out_2 ? {EWO{1'b0}} : exp_2;
            // A carry out of the fraction moves into the exponent field: subnormal -> smallest
            // normal, largest finite -> infinity.
            wire [EWO+MWO-1:0]    truncated = {exp_field, fraction};
            wire [EWO+MWO-1:0]    incremented = truncated + 1'b1;
            assign y_2 = nan_2 ? nan_2_y
                       : inf_2 || overflow_2 ? {sign_2, EMAXO, {MWO{1'b0}}}
                       : zero_2 || subnormal_2 ? {sign_2, {(WO - 1){1'b0}}}
                       : {sign_2, increment ? incremented : truncated};
            wire unused_ok = &{1'b0, exp_1[XW-1:EWO], right_wide[XW-1:SW], shifted[ROUND-1:0]};
        end
    endgenerate

    wire [WO-1:0] y_out;
    dpn_delay #(.W(WO), .LATENCY(R2)) u_stage2 (.clk(clk), .ce(ce), .d(y_2), .q(y_out));
    dpn_delay #(.W(WO), .LATENCY(TAIL)) u_delay (.clk(clk), .ce(ce), .d(y_out), .q(y));

    wire unused_ok = &{1'b0, nan_payload[MWI-1:0]};
endmodule
