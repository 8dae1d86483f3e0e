// LATENCY-deep delay line advancing when ce=1 (LATENCY=0: a wire). The staged cells (dpn_fadd,
// dpn_fmul, dpn_fdiv, dpn_fsqrt) use it for each stage register; the others compute
// combinationally and end with one, leaving retiming to synthesis.
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
        end else if (LATENCY == 1) begin : g_one
            (* shreg_extract = "no" *)
            reg [W-1:0] stage;
            always @(posedge clk) if (ce) stage <= d;
            assign q = stage;
        end else begin : g_pipe
            // One packed shift register rather than an array walked by a for loop: the
            // simulator does not unroll loops past 64 iterations, and the balancing lines of
            // a math function's datapath are hundreds of stages deep.
            (* shreg_extract = "no" *)  // plain registers, so that synthesis can retime them into the logic
            reg [W*LATENCY-1:0] stage;  // stage k in bits [W*k +: W]
            always @(posedge clk) if (ce) stage <= {stage[W*(LATENCY-1)-1:0], d};
            assign q = stage[W*LATENCY-1 -: W];
        end
    endgenerate
endmodule
