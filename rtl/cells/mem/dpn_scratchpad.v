// Scratchpad channel: addressed storage with a full bit per cell; write only into free cells, read only full ones, last read frees.
module dpn_scratchpad #(
    parameter W = 32,
    parameter DEPTH = 64,
    // 1: rsp_valid/rsp_data one cycle after an accepted read, data from block RAM (dpn_ram_dp);
    // 0: rsp_valid = rd_valid && rd_ready and rsp_data = cell, same cycle (LUTRAM/registers).
    parameter LATENCY = 1,
    // Full bits: flip-flops below this depth; from it on two LUTRAM bit arrays, which cost far
    // fewer LUTs but need DEPTH cycles after reset (wr_ready = rd_ready = 0) to clear.
    parameter LUTRAM_MIN_DEPTH = 64
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

    wire wr_full;   // full bit of cell wr_addr
    wire rd_full;   // full bit of cell rd_addr
    wire init;      // clearing the full bits after reset (LUTRAM variant only)
    assign wr_ready = !init && !wr_full;
    assign rd_ready = !init && rd_full;
    wire wr = wr_valid && wr_ready;
    wire rd = rd_valid && rd_ready;
    wire free = rd && rd_last;

    generate
        if (DEPTH < LUTRAM_MIN_DEPTH) begin : g_ff
            // one flip-flop per cell
            reg [DEPTH-1:0] full_bits;
            wire [AW-1:0] wr_cell;
            wire [AW-1:0] rd_cell;
            if (DEPTH == 1) begin : g_one_addr
                assign wr_cell = {AW{1'b0}};
                assign rd_cell = {AW{1'b0}};
                wire unused_addr = &{1'b0, wr_addr, rd_addr};
            end else begin : g_addr
                assign wr_cell = wr_addr;
                assign rd_cell = rd_addr;
            end
            assign wr_full = full_bits[wr_cell];
            assign rd_full = full_bits[rd_cell];
            assign init = 1'b0;
            // Each cell's bit is written where its address matches (a decoder; a write at a
            // variable index is a shift that Yosys leaves as a carry chain).
            integer c;
            always @(posedge clk) begin
                if (rst) full_bits <= {DEPTH{1'b0}};
                else
                    for (c = 0; c < DEPTH; c = c + 1) begin
                        if (wr && wr_cell == c[AW-1:0]) full_bits[c] <= 1'b1;
                        if (free && rd_cell == c[AW-1:0]) full_bits[c] <= 1'b0;
                    end
            end
        end else begin : g_lutram
            // Two 1-bit LUTRAMs, each with one write port: the writer owns set_mem, the reader
            // clr_mem, and cell a is full when set_mem[a] != clr_mem[a]. A write makes them differ,
            // a last read makes them equal again (never the same cell in one cycle). LUTRAM has no
            // reset: after rst both are cleared one cell per cycle (DEPTH cycles, ready low).
            localparam [31:0] LAST32 = DEPTH - 1;
            localparam [AW-1:0] LAST = LAST32[AW-1:0];
            reg set_mem [0:DEPTH-1];
            reg clr_mem [0:DEPTH-1];
            reg init_r;
            reg [AW-1:0] init_ptr;
            wire [AW-1:0] set_addr = init_r ? init_ptr : wr_addr;
            wire [AW-1:0] clr_addr = init_r ? init_ptr : rd_addr;
            wire set_w = set_mem[set_addr];
            wire clr_w = clr_mem[set_addr];
            wire set_r = set_mem[clr_addr];
            wire clr_r = clr_mem[clr_addr];
            assign wr_full = set_w ^ clr_w;
            assign rd_full = set_r ^ clr_r;
            assign init = init_r;
            always @(posedge clk) begin
                if (init_r || wr) set_mem[set_addr] <= !init_r && !clr_w;
                if (init_r || free) clr_mem[clr_addr] <= !init_r && set_r;
            end
            always @(posedge clk) begin
                if (rst) begin
                    init_r <= 1'b1;
                    init_ptr <= {AW{1'b0}};
                end else if (init_r) begin
                    init_ptr <= init_ptr + 1'b1;
                    if (init_ptr == LAST) init_r <= 1'b0;
                end
            end
        end
    endgenerate

    // Both sums from the register, the write and the free only choosing (as gates: a
    // multiplexer would become one adder after them).
    wire [CW-1:0] count_up = count + 1'b1, count_down = count - 1'b1;
    always @(posedge clk) begin
        if (rst) begin
            count <= {CW{1'b0}};
            peak <= {CW{1'b0}};
        end else begin
            if (wr != free) count <= (count_up & {CW{wr}}) | (count_down & {CW{free}});
            if (wr && !free && count == peak) peak <= peak + 1'b1;
        end
    end

    generate
        if (LATENCY == 0) begin : g_comb
            reg [W-1:0] mem [0:DEPTH-1];
            always @(posedge clk) if (wr) mem[wr_addr] <= wr_data;
            assign rsp_data = mem[rd_addr];
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
