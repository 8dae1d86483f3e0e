// Test harness: every float cell of one format on shared operands, each with its own latency (see LAT_* in fp_tb.cpp).
module fp_tb_cells #(
    parameter EW = 8,
    parameter MW = 23,
    parameter EWO = 11,  // the other format, for dpn_f2f
    parameter MWO = 52
) (
    input  wire               clk,
    input  wire               ce,
    input  wire [EW+MW:0]     a,
    input  wire [EW+MW:0]     b,
    input  wire [63:0]        x,
    output wire [EW+MW:0]     add_y,
    output wire [EW+MW:0]     sub_y,
    output wire [EW+MW:0]     mul_y,
    output wire [EW+MW:0]     div_y,
    output wire [EW+MW:0]     sqrt_y,
    output wire [5:0]         cmp_y,
    output wire [EW+MW:0]     min_y,
    output wire [EW+MW:0]     max_y,
    output wire [EW+MW:0]     i2f32_y,
    output wire [EW+MW:0]     i2f64_y,
    output wire [31:0]        f2i32_y,
    output wire [63:0]        f2i64_y,
    output wire [EWO+MWO:0]   f2f_y
);
    dpn_fadd #(.EW(EW), .MW(MW), .LATENCY(5)) u_add (.clk(clk), .ce(ce), .a(a), .b(b), .sub(1'b0), .y(add_y));
    dpn_fadd #(.EW(EW), .MW(MW), .LATENCY(2)) u_sub (.clk(clk), .ce(ce), .a(a), .b(b), .sub(1'b1), .y(sub_y));
    dpn_fmul #(.EW(EW), .MW(MW), .LATENCY(6)) u_mul (.clk(clk), .ce(ce), .a(a), .b(b), .y(mul_y));
    dpn_fdiv #(.EW(EW), .MW(MW), .LATENCY(16)) u_div (.clk(clk), .ce(ce), .a(a), .b(b), .y(div_y));
    dpn_fsqrt #(.EW(EW), .MW(MW), .LATENCY(16)) u_sqrt (.clk(clk), .ce(ce), .a(a), .y(sqrt_y));
    dpn_fcmp #(.EW(EW), .MW(MW), .LATENCY(1)) u_cmp (
        .clk(clk), .ce(ce), .a(a), .b(b),
        .lt(cmp_y[5]), .le(cmp_y[4]), .gt(cmp_y[3]), .ge(cmp_y[2]), .eq(cmp_y[1]), .ne(cmp_y[0])
    );
    dpn_fmin #(.EW(EW), .MW(MW), .LATENCY(0)) u_min (.clk(clk), .ce(ce), .a(a), .b(b), .y(min_y));
    dpn_fmax #(.EW(EW), .MW(MW), .LATENCY(2)) u_max (.clk(clk), .ce(ce), .a(a), .b(b), .y(max_y));
    dpn_i2f #(.EW(EW), .MW(MW), .IW(32), .LATENCY(3)) u_i2f32 (.clk(clk), .ce(ce), .a(x[31:0]), .y(i2f32_y));
    dpn_i2f #(.EW(EW), .MW(MW), .IW(64), .LATENCY(1)) u_i2f64 (.clk(clk), .ce(ce), .a(x), .y(i2f64_y));
    dpn_f2i #(.EW(EW), .MW(MW), .IW(32), .LATENCY(2)) u_f2i32 (.clk(clk), .ce(ce), .a(a), .y(f2i32_y));
    dpn_f2i #(.EW(EW), .MW(MW), .IW(64), .LATENCY(0)) u_f2i64 (.clk(clk), .ce(ce), .a(a), .y(f2i64_y));
    dpn_f2f #(.EWI(EW), .MWI(MW), .EWO(EWO), .MWO(MWO), .LATENCY(3)) u_f2f (.clk(clk), .ce(ce), .a(a), .y(f2f_y));
endmodule
