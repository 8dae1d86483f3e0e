// IEEE-754 float to signed IW-bit integer conversion truncating toward zero (C cast), pipelined LATENCY cycles (default 3).
//
// Format: EW exponent bits, MW fraction bits (8/23 binary32, 11/52 binary64); IW = 32 or 64 (any
// width >= 2 works). NaN, infinities and values out of range give the x86 "integer indefinite"
// 100...0, like SSE cvttss2si/cvttsd2si.
// Two stages, each ending in a register that moves only when ce = 1: (1) the exponent's range
// and the magnitude, the mantissa shifted by it; (2) the sign (a carry chain as wide as the
// result) and the out-of-range cases. LATENCY sets which registers exist (the output first,
// then the one between (1) and (2)); beyond two, a delay line follows. LATENCY = 0 gives a
// combinational cell.
module dpn_f2i #(
    parameter EW = 8,
    parameter MW = 23,
    parameter IW = 32,
    parameter LATENCY = 3
) (
    input  wire             clk,
    input  wire             ce,
    input  wire [EW+MW:0]   a,
    output wire [IW-1:0]    y
);
    localparam W = EW + MW + 1;
    localparam XW = EW + 2;
    localparam SW = MW + IW;  // the mantissa shifted left by up to IW - 2
    localparam SB = $clog2(IW);  // bits of a shift up to IW - 2
    localparam [XW-1:0] BIAS = {{(XW - EW + 1){1'b0}}, {(EW - 1){1'b1}}};
    localparam integer TOP_BIT = IW - 1;
    localparam [XW-1:0] LIMIT = TOP_BIT[XW-1:0];

    localparam RO = LATENCY >= 1 ? 1 : 0;  // output register
    localparam R1 = LATENCY >= 2 ? 1 : 0;  // after the magnitude
    localparam TAIL = LATENCY > 2 ? LATENCY - 2 : 0;

    // Stage 1: |a| >= 2^(IW-1) is out of range (the one representable case, -2^(IW-1), is also
    // 100...0), which covers infinities and NaNs too; |a| < 1 truncates to 0. In range, the
    // shift is below IW - 1: its low bits alone shift the mantissa.
    wire [EW-1:0]        exp_a = a[W-2:MW];
    wire signed [XW-1:0] unbiased = $signed({2'b00, exp_a}) - $signed(BIAS);
    wire                 too_big_1 = unbiased >= $signed(LIMIT);
    wire                 below_one_1 = unbiased < 0;
    wire [SW-1:0]        shifted = {{(SW - MW - 1){1'b0}}, 1'b1, a[MW-1:0]} << unbiased[SB-1:0];
    wire [IW-1:0]        magnitude_1 = shifted[MW+IW-1:MW];

    localparam B1 = 1 + 1 + 1 + IW;
    wire          negative_2, too_big_2, below_one_2;
    wire [IW-1:0] magnitude_2;
    dpn_delay #(.W(B1), .LATENCY(R1)) u_shifted (.clk(clk), .ce(ce),
        .d({a[W-1], too_big_1, below_one_1, magnitude_1}), .q({negative_2, too_big_2, below_one_2, magnitude_2}));

    // Stage 2: the sign (~magnitude + 1 when negative) and the cases out of range.
    wire [IW-1:0] signed_2 = (magnitude_2 ^ {IW{negative_2}}) + {{(IW - 1){1'b0}}, negative_2};
    wire [IW-1:0] y_2 = too_big_2 ? {1'b1, {(IW - 1){1'b0}}} : below_one_2 ? {IW{1'b0}} : signed_2;

    wire [IW-1:0] y_out;
    dpn_delay #(.W(IW), .LATENCY(RO)) u_out (.clk(clk), .ce(ce), .d(y_2), .q(y_out));
    dpn_delay #(.W(IW), .LATENCY(TAIL)) u_delay (.clk(clk), .ce(ce), .d(y_out), .q(y));
    wire unused_ok = &{1'b0, shifted[MW-1:0], unbiased[XW-2:SB]};
endmodule
