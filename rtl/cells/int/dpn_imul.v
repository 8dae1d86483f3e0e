// Integer multiplier: low IW bits of a * b (two's complement, same bits signed or unsigned), pipelined LATENCY cycles (default 3).
//
// The operands are cut into 16-bit pieces; the low IW bits of the product are the sum of the
// pieces' products a_i * b_j with i + j below IW / 16, each shifted by 16 (i + j) (those
// further up only reach bits above IW). Stages, each ending in a register that moves only
// when ce = 1: (1) the pieces' products, one DSP48E2 each (17 x 26 bits unsigned), its own
// register behind it; (2) the products of each shift summed; (3) those sums summed. LATENCY
// sets which registers exist (the output first, then the one after the products, then the one
// after (2)); beyond three, a delay line follows. LATENCY = 0 gives a combinational cell.
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
    localparam P = (IW + 15) / 16;  // pieces per operand
    localparam PW = 16 * P;
    localparam SW = PW > 32 ? PW : 32;  // a sum's bits (a product's 32 at least)
    localparam RO = LATENCY >= 1 ? 1 : 0;  // output register
    localparam R1 = LATENCY >= 2 ? 1 : 0;  // after the products
    localparam R2 = LATENCY >= 3 ? 1 : 0;  // after the sums per shift
    localparam TAIL = LATENCY > 3 ? LATENCY - 3 : 0;

    wire [PW-1:0] a_p = {{(PW - IW){1'b0}}, a};
    wire [PW-1:0] b_p = {{(PW - IW){1'b0}}, b};

    // Stage 1: the products a_i * b_j for i + j < P, 32 bits each, in row-major order of (i, j).
    reg [32*P*P-1:0] products_1;
    integer i, j;
    always @(*) begin
        products_1 = {(32 * P * P){1'b0}};
        for (i = 0; i < P; i = i + 1)
            for (j = 0; j < P; j = j + 1)
                if (i + j < P) products_1[32*(P*i+j) +: 32] = a_p[16*i +: 16] * b_p[16*j +: 16];
    end
    wire [32*P*P-1:0] products_2;
    dpn_delay #(.W(32 * P * P), .LATENCY(R1)) u_products (.clk(clk), .ce(ce), .d(products_1), .q(products_2));

    // Stage 2: per shift d (i + j = d), the sum of its products, in the PW - 16 d bits that
    // reach the result.
    reg [SW*P-1:0] sums_2;
    reg [SW-1:0] sum, term;
    integer d;
    always @(*) begin
        sums_2 = {(SW * P){1'b0}};
        for (d = 0; d < P; d = d + 1) begin
            sum = {SW{1'b0}};
            for (i = 0; i <= d; i = i + 1) begin
                term = {SW{1'b0}};
                term[31:0] = products_2[32*(P*i+(d-i)) +: 32];
                sum = sum + term;
            end
            sums_2[SW*d +: SW] = sum;
        end
    end
    wire [SW*P-1:0] sums_3;
    dpn_delay #(.W(SW * P), .LATENCY(R2)) u_sums (.clk(clk), .ce(ce), .d(sums_2), .q(sums_3));

    // Stage 3: the sums at their shifts.
    reg [SW-1:0] total_3;
    always @(*) begin
        total_3 = {SW{1'b0}};
        for (d = 0; d < P; d = d + 1) total_3 = total_3 + (sums_3[SW*d +: SW] << (16 * d));
    end
    wire [IW-1:0] y_out;
    dpn_delay #(.W(IW), .LATENCY(RO)) u_out (.clk(clk), .ce(ce), .d(total_3[IW-1:0]), .q(y_out));
    dpn_delay #(.W(IW), .LATENCY(TAIL)) u_delay (.clk(clk), .ce(ce), .d(y_out), .q(y));
    wire unused_ok = &{1'b0, total_3};
endmodule
