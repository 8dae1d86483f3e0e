// LATENCY-deep delay line advancing when ce=1 (LATENCY=0: a wire); every pipelined operator
// cell computes combinationally and ends with one, leaving retiming to synthesis.
module dpn_delay #(
    parameter W = 32,
    parameter LATENCY = 1
) (
    input clk,
    input ce,
    input [W-1:0] d,
    output [W-1:0] q
);
    generate
        if (LATENCY == 0) begin : g_comb
            assign q = d;
            wire unused_ok = &{1'b0, clk, ce};
        end else begin : g_pipe
            (* shreg_extract = "no" *)  // plain registers, so that synthesis can retime them into the logic
            reg [W-1:0] stage [0:LATENCY-1];
            integer i;
            always @(posedge clk) begin
                if (ce) begin
                    stage[0] <= d;
                    for (i = 1; i < LATENCY; i = i + 1) stage[i] <= stage[i-1];
                end
            end
            assign q = stage[LATENCY-1];
        end
    endgenerate
endmodule
