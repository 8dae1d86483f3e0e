// IEEE-754 float to signed IW-bit integer conversion truncating toward zero (C cast), pipelined LATENCY cycles (default 3).
//
// Format: EW exponent bits, MW fraction bits (8/23 binary32, 11/52 binary64); IW = 32 or 64 (any
// width >= 2 works). NaN, infinities and values out of range give the x86 "integer indefinite"
// 100...0, like SSE cvttss2si/cvttsd2si.
// The conversion is combinational and followed by a LATENCY-deep register delay line that moves
// only when ce = 1 (retiming is left to synthesis); LATENCY = 0 gives a combinational cell.
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
    localparam SW = W + IW;  // wide enough for the mantissa shifted left by up to IW - 2
    localparam [XW-1:0] BIAS = {{(XW - EW + 1){1'b0}}, {(EW - 1){1'b1}}};
    localparam integer TOP_BIT = IW - 1;
    localparam [XW-1:0] LIMIT = TOP_BIT[XW-1:0];

    wire [EW-1:0]        exp_a = a[W-2:MW];
    wire signed [XW-1:0] unbiased = $signed({2'b00, exp_a}) - $signed(BIAS);
    // |a| >= 2^(IW-1): out of range (the one representable case, -2^(IW-1), is also 100...0);
    // this covers infinities and NaNs too.
    wire                 too_big = unbiased >= $signed(LIMIT);
    wire                 below_one = unbiased < 0;
    wire [SW-1:0]        shifted = {{(SW - MW - 1){1'b0}}, 1'b1, a[MW-1:0]} << unbiased[XW-2:0];
    wire [IW-1:0]        magnitude = shifted[MW+IW-1:MW];
    wire [IW-1:0]        y_comb = too_big ? {1'b1, {(IW - 1){1'b0}}}
                                : below_one ? {IW{1'b0}}
                                : a[W-1] ? -magnitude : magnitude;

    wire unused_ok = &{1'b0, shifted[SW-1:MW+IW], shifted[MW-1:0]};
    dpn_delay #(.W(IW), .LATENCY(LATENCY)) u_delay (.clk(clk), .ce(ce), .d(y_comb), .q(y));
endmodule
