// Integer multiplier: low IW bits of a * b (two's complement, same bits signed or unsigned), pipelined LATENCY cycles (default 3).
//
// The product is computed combinationally and followed by a LATENCY-deep register delay line that
// moves only when ce = 1 (retiming is left to synthesis); LATENCY = 0 gives a combinational cell.
module dpn_imul #(
    parameter IW = 32,
    parameter LATENCY = 3
) (
    input  wire            clk,
    input  wire            ce,
    input  wire [IW-1:0]   a,
    input  wire [IW-1:0]   b,
    output wire [IW-1:0]   y
);
    wire [IW-1:0] y_comb = a * b;

    dpn_delay #(.W(IW), .LATENCY(LATENCY)) u_delay (.clk(clk), .ce(ce), .d(y_comb), .q(y));
endmodule
