// Test top: the integer cells (dpn_imul, dpn_idiv) for 32 and 64 bits on shared operands, each with its own latency (see LATENCY in int_tb.cpp).
module int_tb_top (
    input  wire        clk,
    input  wire        ce,
    input  wire [63:0] a,
    input  wire [63:0] b,
    output wire [31:0] mul32_y,
    output wire [63:0] mul64_y,
    output wire [31:0] div32_q,
    output wire [31:0] div32_r,
    output wire [63:0] div64_q,
    output wire [63:0] div64_r,
    output wire [31:0] mul32c_y,
    output wire [31:0] div32c_q,
    output wire [31:0] div32c_r
);
    dpn_imul #(.IW(32), .LATENCY(3)) u_mul32 (.clk(clk), .ce(ce), .a(a[31:0]), .b(b[31:0]), .y(mul32_y));
    dpn_imul #(.IW(64), .LATENCY(4)) u_mul64 (.clk(clk), .ce(ce), .a(a), .b(b), .y(mul64_y));
    dpn_idiv #(.IW(32), .LATENCY(18)) u_div32 (.clk(clk), .ce(ce), .a(a[31:0]), .b(b[31:0]), .q(div32_q), .r(div32_r));
    dpn_idiv #(.IW(64), .LATENCY(34)) u_div64 (.clk(clk), .ce(ce), .a(a), .b(b), .q(div64_q), .r(div64_r));
    // combinational variants (LATENCY = 0)
    dpn_imul #(.IW(32), .LATENCY(0)) u_mul32c (.clk(clk), .ce(ce), .a(a[31:0]), .b(b[31:0]), .y(mul32c_y));
    dpn_idiv #(.IW(32), .LATENCY(0)) u_div32c (.clk(clk), .ce(ce), .a(a[31:0]), .b(b[31:0]), .q(div32c_q), .r(div32c_r));
endmodule
