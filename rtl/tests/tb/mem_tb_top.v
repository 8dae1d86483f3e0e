// Test top for the storage cells: several dpn_fifo / dpn_fifo_keep / dpn_scratchpad / dpn_ram_dp instances on flat ports.
/* verilator lint_off UNUSED */
module mem_tb_top #(
    parameter NF = 12,
    parameter NK = 3,
    parameter NS = 5
) (
    input  wire            clk,
    input  wire            rst,
    // FIFOs (W = 16): instance i uses bit i / bits [16i +: 16]
    input  wire [NF-1:0]    f_in_valid,
    output wire [NF-1:0]    f_in_ready,
    input  wire [16*NF-1:0] f_in_data,
    output wire [NF-1:0]    f_out_valid,
    input  wire [NF-1:0]    f_out_ready,
    output wire [16*NF-1:0] f_out_data,
    output wire [16*NF-1:0] f_count,
    output wire [16*NF-1:0] f_peak,
    // keep-FIFOs (W = 16)
    input  wire [NK-1:0]    k_in_valid,
    output wire [NK-1:0]    k_in_ready,
    input  wire [16*NK-1:0] k_in_data,
    output wire [NK-1:0]    k_out_valid,
    input  wire [NK-1:0]    k_out_ready,
    input  wire [NK-1:0]    k_out_last,
    output wire [16*NK-1:0] k_out_data,
    output wire [16*NK-1:0] k_count,
    output wire [16*NK-1:0] k_peak,
    // scratchpads (W = 16)
    input  wire [NS-1:0]    s_wr_valid,
    output wire [NS-1:0]    s_wr_ready,
    input  wire [16*NS-1:0] s_wr_addr,
    input  wire [16*NS-1:0] s_wr_data,
    input  wire [NS-1:0]    s_rd_valid,
    output wire [NS-1:0]    s_rd_ready,
    input  wire [16*NS-1:0] s_rd_addr,
    input  wire [NS-1:0]    s_rd_last,
    output wire [NS-1:0]    s_rsp_valid,
    output wire [16*NS-1:0] s_rsp_data,
    output wire [16*NS-1:0] s_count,
    output wire [16*NS-1:0] s_peak,
    // RAM (W = 16, DEPTH = 37)
    input  wire            r_we,
    input  wire [7:0]      r_waddr,
    input  wire [15:0]     r_wdata,
    input  wire [7:0]      r_raddr,
    output wire [15:0]     r_rdata
);
    // The testbench (mem_tb.cpp) has the same tables.
    function integer f_depth(input integer i);
        case (i)
            0: f_depth = 1;    1: f_depth = 2;   2: f_depth = 3;  3: f_depth = 16; 4: f_depth = 17;
            5: f_depth = 1;    6: f_depth = 3;   7: f_depth = 5;  8: f_depth = 1000;
            10: f_depth = 2;   11: f_depth = 22;
            default: f_depth = 1;
        endcase
    endfunction
    function integer f_pass(input integer i);
        f_pass = (i == 4 || i >= 9) ? 0 : 1;
    endfunction
    function integer f_ram_min(input integer i);  // 5..7: RAM-based at small depths too
        f_ram_min = (i >= 5 && i <= 7) ? 1 : 64;
    endfunction
    function integer f_out_reg(input integer i);  // 10, 11: the head a register
        f_out_reg = (i >= 10) ? 1 : 0;
    endfunction
    function integer k_depth(input integer i);
        case (i)
            0: k_depth = 1;  1: k_depth = 3;  default: k_depth = 100;
        endcase
    endfunction
    function integer s_depth(input integer i);
        case (i)
            0: s_depth = 1;  1: s_depth = 4;  2: s_depth = 5;  3: s_depth = 64;  default: s_depth = 100;
        endcase
    endfunction
    function integer s_lat(input integer i);
        s_lat = (i == 1 || i == 4) ? 0 : 1;
    endfunction

    genvar i;
    generate
        for (i = 0; i < NF; i = i + 1) begin : g_f
            localparam D = f_depth(i);
            localparam CW = $clog2(D + 1);
            wire [CW-1:0] c;
            wire [CW-1:0] p;
            dpn_fifo #(.W(16), .DEPTH(D), .FULL_PASS(f_pass(i)), .RAM_MIN_DEPTH(f_ram_min(i)), .OUT_REG(f_out_reg(i))) dut (
                .clk(clk), .rst(rst),
                .in_valid(f_in_valid[i]), .in_ready(f_in_ready[i]), .in_data(f_in_data[16*i +: 16]),
                .out_valid(f_out_valid[i]), .out_ready(f_out_ready[i]), .out_data(f_out_data[16*i +: 16]),
                .count(c), .peak(p)
            );
            assign f_count[16*i +: 16] = {{(16 - CW){1'b0}}, c};
            assign f_peak[16*i +: 16] = {{(16 - CW){1'b0}}, p};
        end
        for (i = 0; i < NK; i = i + 1) begin : g_k
            localparam D = k_depth(i);
            localparam CW = $clog2(D + 1);
            wire [CW-1:0] c;
            wire [CW-1:0] p;
            dpn_fifo_keep #(.W(16), .DEPTH(D)) dut (
                .clk(clk), .rst(rst),
                .in_valid(k_in_valid[i]), .in_ready(k_in_ready[i]), .in_data(k_in_data[16*i +: 16]),
                .out_valid(k_out_valid[i]), .out_ready(k_out_ready[i]), .out_last(k_out_last[i]),
                .out_data(k_out_data[16*i +: 16]), .count(c), .peak(p)
            );
            assign k_count[16*i +: 16] = {{(16 - CW){1'b0}}, c};
            assign k_peak[16*i +: 16] = {{(16 - CW){1'b0}}, p};
        end
        for (i = 0; i < NS; i = i + 1) begin : g_s
            localparam D = s_depth(i);
            localparam CW = $clog2(D + 1);
            localparam AW = (D > 1) ? $clog2(D) : 1;
            wire [CW-1:0] c;
            wire [CW-1:0] p;
            dpn_scratchpad #(.W(16), .DEPTH(D), .LATENCY(s_lat(i))) dut (
                .clk(clk), .rst(rst),
                .wr_valid(s_wr_valid[i]), .wr_ready(s_wr_ready[i]), .wr_addr(s_wr_addr[16*i +: AW]),
                .wr_data(s_wr_data[16*i +: 16]),
                .rd_valid(s_rd_valid[i]), .rd_ready(s_rd_ready[i]), .rd_addr(s_rd_addr[16*i +: AW]),
                .rd_last(s_rd_last[i]),
                .rsp_valid(s_rsp_valid[i]), .rsp_data(s_rsp_data[16*i +: 16]), .count(c), .peak(p)
            );
            assign s_count[16*i +: 16] = {{(16 - CW){1'b0}}, c};
            assign s_peak[16*i +: 16] = {{(16 - CW){1'b0}}, p};
        end
    endgenerate

    dpn_ram_dp #(.W(16), .DEPTH(37)) ram (
        .clk(clk), .we(r_we), .waddr(r_waddr[5:0]), .wdata(r_wdata), .raddr(r_raddr[5:0]), .rdata(r_rdata)
    );
endmodule
/* verilator lint_on UNUSED */
