// Test top: fp_tb_cells for binary32 (dpn_f2f to binary64).
module fp_tb_f32 (
    input  wire        clk,
    input  wire        ce,
    input  wire [31:0] a,
    input  wire [31:0] b,
    input  wire [63:0] x,
    output wire [31:0] add_y,
    output wire [31:0] sub_y,
    output wire [31:0] mul_y,
    output wire [31:0] div_y,
    output wire [31:0] sqrt_y,
    output wire [5:0] cmp_y,
    output wire [31:0] min_y,
    output wire [31:0] max_y,
    output wire [31:0] i2f32_y,
    output wire [31:0] i2f64_y,
    output wire [31:0] f2i32_y,
    output wire [63:0] f2i64_y,
    output wire [63:0] f2f_y
);
    fp_tb_cells #(.EW(8), .MW(23), .EWO(11), .MWO(52)) cells (
        .clk(clk), .ce(ce), .a(a), .b(b), .x(x),
        .add_y(add_y), .sub_y(sub_y), .mul_y(mul_y), .div_y(div_y), .sqrt_y(sqrt_y), .cmp_y(cmp_y),
        .min_y(min_y), .max_y(max_y), .i2f32_y(i2f32_y), .i2f64_y(i2f64_y),
        .f2i32_y(f2i32_y), .f2i64_y(f2i64_y), .f2f_y(f2f_y)
    );
endmodule
