// Signed IW-bit integer to IEEE-754 float conversion, round to nearest even, pipelined LATENCY cycles (default 3).
//
// Format: EW exponent bits, MW fraction bits (8/23 binary32, 11/52 binary64); IW = 32 or 64 (any
// width >= 2 works). 0 gives +0. Same results as SSE cvtsi2ss/cvtsi2sd. Needs dpn_fp_round.v.
// The conversion is combinational and followed by a LATENCY-deep register delay line that moves
// only when ce = 1 (retiming is left to synthesis); LATENCY = 0 gives a combinational cell.
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

    function automatic [LW-1:0] leading_zeros(input [IW-1:0] v);
        integer i;
        reg found;
        begin
            leading_zeros = 0;
            found = 1'b0;
            for (i = IW - 1; i >= 0; i = i - 1) begin
                if (!found && v[i]) begin
                    leading_zeros = TOP[LW-1:0] - i[LW-1:0];
                    found = 1'b1;
                end
            end
        end
    endfunction

    wire                 negative = a[IW-1];
    wire [IW-1:0]        magnitude = negative ? -a : a;  // -(-2^(IW-1)) = 2^(IW-1) as unsigned
    wire [LW-1:0]        lz = leading_zeros(magnitude);
    wire [IW-1:0]        normalised = magnitude << lz;
    wire signed [XW-1:0] exp_value = $signed(BIAS) + $signed(TOP) - $signed({{(XW - LW){1'b0}}, lz});
    wire [W-1:0]         y_comb;
    dpn_fp_round #(.EW(EW), .MW(MW), .G(IW), .XW(XW)) round (
        .clk(clk), .ce(ce), .sign(negative), .exp(exp_value), .man({normalised, {(MW + 1){1'b0}}}), .sticky(1'b0), .result(y_comb)
    );

    dpn_delay #(.W(W), .LATENCY(LATENCY)) u_delay (.clk(clk), .ce(ce), .d(y_comb), .q(y));
endmodule
