// Scratchpad channel: addressed storage with a full bit per cell; write only into free cells, read only full ones, last read frees.
module dpn_scratchpad #(
    parameter W = 32,
    parameter DEPTH = 64,
    // 1: rsp_valid/rsp_data one cycle after an accepted read, data from block RAM (dpn_ram_dp);
    // 0: rsp_valid = rd_valid && rd_ready and rsp_data = cell, same cycle (LUTRAM/registers).
    parameter LATENCY = 1
) (
    input  wire                                           clk,
    input  wire                                           rst,
    input  wire                                           wr_valid,
    output wire                                           wr_ready,
    input  wire [((DEPTH > 1) ? $clog2(DEPTH) : 1) - 1:0] wr_addr,
    input  wire [W-1:0]                                   wr_data,
    input  wire                                           rd_valid,
    output wire                                           rd_ready,
    input  wire [((DEPTH > 1) ? $clog2(DEPTH) : 1) - 1:0] rd_addr,
    input  wire                                           rd_last,
    output wire                                           rsp_valid,
    output wire [W-1:0]                                   rsp_data,
    output reg  [$clog2(DEPTH+1)-1:0]                     count,
    output reg  [$clog2(DEPTH+1)-1:0]                     peak
);
    // Addresses must be < DEPTH. A write needs the cell free and a read needs it full, so a write and
    // a read accepted in the same cycle always touch different cells; a read of a cell written in
    // the previous cycle sees the new value. A write waiting for a cell that is freed this cycle is
    // accepted in the next one.
    localparam CW = $clog2(DEPTH + 1);
    localparam AW = (DEPTH > 1) ? $clog2(DEPTH) : 1;

    reg [DEPTH-1:0] full_bits;
    wire [AW-1:0] wr_cell;
    wire [AW-1:0] rd_cell;
    generate
        if (DEPTH == 1) begin : g_one_addr
            assign wr_cell = {AW{1'b0}};
            assign rd_cell = {AW{1'b0}};
            wire unused_addr = &{1'b0, wr_addr, rd_addr};
        end else begin : g_addr
            assign wr_cell = wr_addr;
            assign rd_cell = rd_addr;
        end
    endgenerate

    assign wr_ready = !full_bits[wr_cell];
    assign rd_ready = full_bits[rd_cell];
    wire wr = wr_valid && wr_ready;
    wire rd = rd_valid && rd_ready;
    wire free = rd && rd_last;

    always @(posedge clk) begin
        if (rst) begin
            full_bits <= {DEPTH{1'b0}};
            count <= {CW{1'b0}};
            peak <= {CW{1'b0}};
        end else begin
            if (wr) full_bits[wr_cell] <= 1'b1;
            if (free) full_bits[rd_cell] <= 1'b0;
            if (wr && !free) count <= count + 1'b1;
            else if (free && !wr) count <= count - 1'b1;
            if (wr && !free && count == peak) peak <= peak + 1'b1;
        end
    end

    generate
        if (LATENCY == 0) begin : g_comb
            reg [W-1:0] mem [0:DEPTH-1];
            always @(posedge clk) if (wr) mem[wr_cell] <= wr_data;
            assign rsp_data = mem[rd_cell];
            assign rsp_valid = rd;
        end else begin : g_ram
            reg rsp_valid_r;
            dpn_ram_dp #(.W(W), .DEPTH(DEPTH)) ram (
                .clk(clk), .we(wr), .waddr(wr_addr), .wdata(wr_data), .raddr(rd_addr), .rdata(rsp_data)
            );
            always @(posedge clk) rsp_valid_r <= !rst && rd;
            assign rsp_valid = rsp_valid_r;
        end
    endgenerate
endmodule
