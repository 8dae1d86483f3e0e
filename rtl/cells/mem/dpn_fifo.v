// Stream FIFO of DEPTH elements of W bits with occupancy statistics: register file below RAM_MIN_DEPTH, block RAM from it on.
module dpn_fifo #(
    parameter W = 32,
    parameter DEPTH = 4,
    parameter FULL_PASS = 1,       // see dpn_fifo_reg
    parameter RAM_MIN_DEPTH = 64,  // DEPTH >= this: dpn_fifo_ram (3-cycle latency), else dpn_fifo_reg (1 cycle)
    parameter OUT_REG = 0          // see dpn_fifo_reg (dpn_fifo_ram's head is a register already)
) (
    input  wire                       clk,
    input  wire                       rst,
    input  wire                       in_valid,
    output wire                       in_ready,
    input  wire [W-1:0]               in_data,
    output wire                       out_valid,
    input  wire                       out_ready,
    output wire [W-1:0]               out_data,
    output wire [$clog2(DEPTH+1)-1:0] count,
    output wire [$clog2(DEPTH+1)-1:0] peak
);
    generate
        if (DEPTH >= RAM_MIN_DEPTH) begin : g_ram
            dpn_fifo_ram #(.W(W), .DEPTH(DEPTH), .FULL_PASS(FULL_PASS)) fifo (
                .clk(clk), .rst(rst),
                .in_valid(in_valid), .in_ready(in_ready), .in_data(in_data),
                .out_valid(out_valid), .out_ready(out_ready), .out_data(out_data),
                .count(count), .peak(peak)
            );
        end else begin : g_reg
            dpn_fifo_reg #(.W(W), .DEPTH(DEPTH), .FULL_PASS(FULL_PASS), .OUT_REG(OUT_REG)) fifo (
                .clk(clk), .rst(rst),
                .in_valid(in_valid), .in_ready(in_ready), .in_data(in_data),
                .out_valid(out_valid), .out_ready(out_ready), .out_data(out_data),
                .count(count), .peak(peak)
            );
        end
    endgenerate
endmodule
