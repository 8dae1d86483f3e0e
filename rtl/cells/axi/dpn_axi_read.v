// AXI4 read master: (address, beats) commands -> 4 KiB-safe INCR bursts, several in flight; data returned in order with out_last.
module dpn_axi_read #(
    parameter DW = 512,
    parameter ID_W = 1,
    parameter ID = 0,
    parameter MAX_OUTSTANDING = 4,  // read bursts in flight (AR issued, last R beat not yet received)
    parameter MAX_BURST = 64,       // beats per burst, 1..256
    parameter BEATS_W = 32,
    // Data buffer. An AR is issued only when the buffer has room for all its beats (credits), so
    // R is never back-pressured by a slow consumer and nothing is dropped. Must be >= MAX_BURST.
    parameter BUF_DEPTH = MAX_OUTSTANDING * MAX_BURST
) (
    input  wire               clk,
    input  wire               rst,
    // commands: byte address aligned to DW/8, number of DW-wide beats
    input  wire               cmd_valid,
    output wire               cmd_ready,
    input  wire [63:0]        cmd_addr,
    input  wire [BEATS_W-1:0] cmd_beats,
    // data, in command order; out_last on each command's last beat
    output wire               out_valid,
    input  wire               out_ready,
    output wire [DW-1:0]      out_data,
    output wire               out_last,
    // AXI4 master, read channels
    output wire               m_axi_arvalid,
    input  wire               m_axi_arready,
    output wire [63:0]        m_axi_araddr,
    output wire [7:0]         m_axi_arlen,
    output wire [2:0]         m_axi_arsize,
    output wire [1:0]         m_axi_arburst,
    output wire [ID_W-1:0]    m_axi_arid,
    output wire               m_axi_arlock,
    output wire [3:0]         m_axi_arcache,
    output wire [2:0]         m_axi_arprot,
    output wire [3:0]         m_axi_arqos,
    input  wire               m_axi_rvalid,
    output wire               m_axi_rready,
    input  wire [DW-1:0]      m_axi_rdata,
    input  wire [1:0]         m_axi_rresp,
    input  wire               m_axi_rlast,
    input  wire [ID_W-1:0]    m_axi_rid,
    // sticky: a response other than OKAY, a wrong ID, or data with no burst outstanding
    output reg                error
);
    localparam OW = $clog2(MAX_OUTSTANDING + 1);
    localparam KW = $clog2(BUF_DEPTH + 1);
    localparam [31:0] MO32 = MAX_OUTSTANDING;
    localparam [OW-1:0] MO = MO32[OW-1:0];
    localparam [31:0] BUF32 = BUF_DEPTH;
    localparam [31:0] ID32 = ID;
    localparam [ID_W-1:0] ID_C = ID32[ID_W-1:0];
    localparam [31:0] SIZE32 = $clog2(DW / 8);

    wire        sp_valid;
    wire        sp_ready;
    wire [63:0] sp_addr;
    wire [8:0]  sp_beats;
    wire        sp_last;
    dpn_axi_split #(.DW(DW), .MAX_BURST(MAX_BURST), .BEATS_W(BEATS_W)) split (
        .clk(clk), .rst(rst),
        .cmd_valid(cmd_valid), .cmd_ready(cmd_ready), .cmd_addr(cmd_addr), .cmd_beats(cmd_beats),
        .burst_valid(sp_valid), .burst_ready(sp_ready), .burst_addr(sp_addr), .burst_beats(sp_beats),
        .burst_last(sp_last)
    );

    reg          arvalid_r;
    reg [63:0]   araddr_r;
    reg [7:0]    arlen_r;
    reg [OW-1:0] outstanding;  // counted from the AR register load to the last R beat
    reg [KW-1:0] credit;       // buffer slots not promised to an issued burst

    wire [31:0] credit32 = {{(32 - KW){1'b0}}, credit};
    wire [31:0] beats32 = {23'd0, sp_beats};
    assign sp_ready = (!arvalid_r || m_axi_arready) && (outstanding != MO) && (credit32 >= beats32);
    wire issue = sp_valid && sp_ready;
    wire r_hs = m_axi_rvalid && m_axi_rready;
    wire r_end = r_hs && m_axi_rlast;
    wire pop = out_valid && out_ready;

    assign m_axi_arvalid = arvalid_r;
    assign m_axi_araddr = araddr_r;
    assign m_axi_arlen = arlen_r;
    assign m_axi_arsize = SIZE32[2:0];
    assign m_axi_arburst = 2'b01;  // INCR
    assign m_axi_arid = ID_C;
    assign m_axi_arlock = 1'b0;
    assign m_axi_arcache = 4'b0011;
    assign m_axi_arprot = 3'b000;
    assign m_axi_arqos = 4'b0000;

    /* verilator lint_off UNUSED */
    wire [31:0] credit_next = credit32 - (issue ? beats32 : 32'd0) + (pop ? 32'd1 : 32'd0);
    /* verilator lint_on UNUSED */
    always @(posedge clk) begin
        if (rst) begin
            arvalid_r <= 1'b0;
            araddr_r <= 64'd0;
            arlen_r <= 8'd0;
            outstanding <= {OW{1'b0}};
            credit <= BUF32[KW-1:0];
        end else begin
            if (issue) begin
                arvalid_r <= 1'b1;
                araddr_r <= sp_addr;
                arlen_r <= sp_beats[7:0] - 8'd1;
            end else if (m_axi_arready) begin
                arvalid_r <= 1'b0;
            end
            if (issue && !r_end) outstanding <= outstanding + 1'b1;
            else if (r_end && !issue) outstanding <= outstanding - 1'b1;
            credit <= credit_next[KW-1:0];
        end
    end

    // Per issued burst: is it its command's last? (popped with the burst's last beat)
    wire flag_valid;
    wire flag_last;
    /* verilator lint_off UNUSED */
    wire flag_in_ready;
    wire [OW-1:0] flag_count;
    wire [OW-1:0] flag_peak;
    wire [KW-1:0] buf_count;
    wire [KW-1:0] buf_peak;
    /* verilator lint_on UNUSED */
    dpn_fifo_reg #(.W(1), .DEPTH(MAX_OUTSTANDING), .FULL_PASS(0)) flags (
        .clk(clk), .rst(rst),
        .in_valid(issue), .in_ready(flag_in_ready), .in_data(sp_last),
        .out_valid(flag_valid), .out_ready(r_end), .out_data(flag_last),
        .count(flag_count), .peak(flag_peak)
    );

    dpn_fifo #(.W(DW + 1), .DEPTH(BUF_DEPTH)) buffer (
        .clk(clk), .rst(rst),
        .in_valid(m_axi_rvalid), .in_ready(m_axi_rready), .in_data({m_axi_rlast && flag_last, m_axi_rdata}),
        .out_valid(out_valid), .out_ready(out_ready), .out_data({out_last, out_data}),
        .count(buf_count), .peak(buf_peak)
    );

    always @(posedge clk) begin
        if (rst) error <= 1'b0;
        else if (r_hs && (m_axi_rresp != 2'b00 || m_axi_rid != ID_C || !flag_valid)) error <= 1'b1;
    end
endmodule
