// Simple dual-port RAM: one write port, one synchronous read port (rdata one cycle after raddr), read-first; infers BRAM/LUTRAM.
module dpn_ram_dp #(
    parameter W = 32,
    parameter DEPTH = 1024
) (
    input  wire                                          clk,
    input  wire                                          we,
    input  wire [((DEPTH > 1) ? $clog2(DEPTH) : 1) - 1:0] waddr,
    input  wire [W-1:0]                                  wdata,
    input  wire [((DEPTH > 1) ? $clog2(DEPTH) : 1) - 1:0] raddr,
    output reg  [W-1:0]                                  rdata
);
    // Addresses must be < DEPTH. No reset: the contents and rdata are undefined until written,
    // which is what lets synthesis map the array onto block RAM.
    generate
        if (DEPTH == 1) begin : g_one
            reg [W-1:0] slot;
            always @(posedge clk) begin
                if (we) slot <= wdata;
                rdata <= slot;
            end
            wire unused_addr = &{1'b0, waddr, raddr};
        end else begin : g_mem
            reg [W-1:0] mem [0:DEPTH-1];
            always @(posedge clk) begin
                if (we) mem[waddr] <= wdata;
                rdata <= mem[raddr];
            end
        end
    endgenerate
endmodule
