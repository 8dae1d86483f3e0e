// FIFO + register channel: a read (out_valid && out_ready) frees the head only when out_last = 1, otherwise it is read again.
module dpn_fifo_keep #(
    parameter W = 32,
    parameter DEPTH = 4,
    parameter FULL_PASS = 1,
    parameter RAM_MIN_DEPTH = 64
) (
    input  wire                       clk,
    input  wire                       rst,
    input  wire                       in_valid,
    output wire                       in_ready,
    input  wire [W-1:0]               in_data,
    output wire                       out_valid,
    input  wire                       out_ready,
    input  wire                       out_last,
    output wire [W-1:0]               out_data,
    output wire [$clog2(DEPTH+1)-1:0] count,
    output wire [$clog2(DEPTH+1)-1:0] peak
);
    dpn_fifo #(.W(W), .DEPTH(DEPTH), .FULL_PASS(FULL_PASS), .RAM_MIN_DEPTH(RAM_MIN_DEPTH)) fifo (
        .clk(clk), .rst(rst),
        .in_valid(in_valid), .in_ready(in_ready), .in_data(in_data),
        .out_valid(out_valid), .out_ready(out_ready && out_last), .out_data(out_data),
        .count(count), .peak(peak)
    );
endmodule
