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

    generate
        if (LATENCY == 0) begin : g_comb
            assign y = y_comb;
            wire unused_ok = &{1'b0, clk, ce};
        end else begin : g_pipe
            (* shreg_extract = "no" *)  // plain registers, so that synthesis can retime them into the logic
            reg [IW-1:0] stage [0:LATENCY-1];
            integer i;
            always @(posedge clk) begin
                if (ce) begin
                    stage[0] <= y_comb;
                    for (i = 1; i < LATENCY; i = i + 1) stage[i] <= stage[i-1];
                end
            end
            assign y = stage[LATENCY-1];
        end
    endgenerate
endmodule
