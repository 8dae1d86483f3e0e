// AXI4 write master: (address, beats) commands + a data stream -> 4 KiB-safe INCR AW/W bursts; counts commands whose writes are acknowledged.
module dpn_axi_write #(
    parameter DW = 512,
    parameter ID_W = 1,
    parameter ID = 0,
    parameter MAX_OUTSTANDING = 4,  // write bursts issued and not yet acknowledged on B
    parameter MAX_BURST = 64,       // beats per burst, 1..256
    parameter BEATS_W = 32,
    parameter DONE_W = 32
) (
    input  wire               clk,
    input  wire               rst,
    // commands: byte address aligned to DW/8, number of DW-wide beats
    input  wire               cmd_valid,
    output wire               cmd_ready,
    input  wire [63:0]        cmd_addr,
    input  wire [BEATS_W-1:0] cmd_beats,
    // data: the commands' beats in order (no last flag: the commands say how many)
    input  wire               in_valid,
    output wire               in_ready,
    input  wire [DW-1:0]      in_data,
    input  wire [DW/8-1:0]    in_strb,
    // AXI4 master, write channels
    output wire               m_axi_awvalid,
    input  wire               m_axi_awready,
    output wire [63:0]        m_axi_awaddr,
    output wire [7:0]         m_axi_awlen,
    output wire [2:0]         m_axi_awsize,
    output wire [1:0]         m_axi_awburst,
    output wire [ID_W-1:0]    m_axi_awid,
    output wire               m_axi_awlock,
    output wire [3:0]         m_axi_awcache,
    output wire [2:0]         m_axi_awprot,
    output wire [3:0]         m_axi_awqos,
    output wire               m_axi_wvalid,
    input  wire               m_axi_wready,
    output wire [DW-1:0]      m_axi_wdata,
    output wire [DW/8-1:0]    m_axi_wstrb,
    output wire               m_axi_wlast,
    input  wire               m_axi_bvalid,
    output wire               m_axi_bready,
    input  wire [1:0]         m_axi_bresp,
    input  wire [ID_W-1:0]    m_axi_bid,
    // one-cycle pulse per command whose last write response has been received, and their count
    output reg                cmd_done,
    output reg  [DONE_W-1:0]  done_count,
    // sticky: a response other than OKAY, a wrong ID, or a response with no burst outstanding
    output reg                error
);
    localparam OW = $clog2(MAX_OUTSTANDING + 1);
    localparam [31:0] MO32 = MAX_OUTSTANDING;
    localparam [OW-1:0] MO = MO32[OW-1:0];
    localparam [31:0] ID32 = ID;
    localparam [ID_W-1:0] ID_C = ID32[ID_W-1:0];
    localparam [31:0] SIZE32 = $clog2(DW / 8);

    wire        sp_valid;
    wire        sp_ready;
    wire [63:0] sp_addr;
    wire [8:0]  sp_beats;
    wire        sp_last;
    wire        unused_beats_msb = sp_beats[8];  // a burst of 256 beats has awlen 255
    dpn_axi_split #(.DW(DW), .MAX_BURST(MAX_BURST), .BEATS_W(BEATS_W)) split (
        .clk(clk), .rst(rst),
        .cmd_valid(cmd_valid), .cmd_ready(cmd_ready), .cmd_addr(cmd_addr), .cmd_beats(cmd_beats),
        .burst_valid(sp_valid), .burst_ready(sp_ready), .burst_addr(sp_addr), .burst_beats(sp_beats),
        .burst_last(sp_last)
    );

    reg          awvalid_r;
    reg [63:0]   awaddr_r;
    reg [7:0]    awlen_r;
    reg [OW-1:0] outstanding;  // counted from the AW register load to the B handshake

    assign sp_ready = (!awvalid_r || m_axi_awready) && (outstanding != MO);
    wire issue = sp_valid && sp_ready;
    wire aw_hs = awvalid_r && m_axi_awready;
    wire b_hs = m_axi_bvalid && m_axi_bready;

    assign m_axi_awvalid = awvalid_r;
    assign m_axi_awaddr = awaddr_r;
    assign m_axi_awlen = awlen_r;
    assign m_axi_awsize = SIZE32[2:0];
    assign m_axi_awburst = 2'b01;  // INCR
    assign m_axi_awid = ID_C;
    assign m_axi_awlock = 1'b0;
    assign m_axi_awcache = 4'b0011;
    assign m_axi_awprot = 3'b000;
    assign m_axi_awqos = 4'b0000;

    always @(posedge clk) begin
        if (rst) begin
            awvalid_r <= 1'b0;
            awaddr_r <= 64'd0;
            awlen_r <= 8'd0;
            outstanding <= {OW{1'b0}};
        end else begin
            if (issue) begin
                awvalid_r <= 1'b1;
                awaddr_r <= sp_addr;
                awlen_r <= sp_beats[7:0] - 8'd1;
            end else if (m_axi_awready) begin
                awvalid_r <= 1'b0;
            end
            if (issue && !b_hs) outstanding <= outstanding + 1'b1;
            else if (b_hs && !issue) outstanding <= outstanding - 1'b1;
        end
    end

    // W: the lengths of bursts whose AW was accepted; W beats are sent only after their AW.
    // Whether a beat is its burst's last is decided without comparing the queue's head: a
    // burst's first beat is its last where the queue says it has one beat (compared before the
    // queue), and a later beat is where the count of beats sent, registered with the beat
    // before it, has reached the burst's length.
    wire       w_active;
    wire [7:0] w_len;
    wire       w_single;
    reg  [7:0] beat;
    reg        first;     // no beat of the head's burst has been sent
    reg        end_next;  // a later beat: beat == w_len
    wire       w_hs = m_axi_wvalid && m_axi_wready;
    assign m_axi_wvalid = in_valid && w_active;
    assign in_ready = m_axi_wready && w_active;
    assign m_axi_wdata = in_data;
    assign m_axi_wstrb = in_strb;
    assign m_axi_wlast = first ? w_single : end_next;
    wire [7:0] beat_next = beat + 8'd1;
    always @(posedge clk) begin
        if (rst) begin
            beat <= 8'd0;
            first <= 1'b1;
            end_next <= 1'b0;
        end else if (w_hs) begin
            beat <= m_axi_wlast ? 8'd0 : beat_next;
            first <= m_axi_wlast;
            end_next <= beat_next == w_len;
        end
    end

    // B: per issued burst, is it its command's last?
    wire b_expected;
    wire b_last;
    assign m_axi_bready = b_expected;

    /* verilator lint_off UNUSED */
    wire wq_in_ready;
    wire bq_in_ready;
    wire [OW-1:0] wq_count;
    wire [OW-1:0] wq_peak;
    wire [OW-1:0] bq_count;
    wire [OW-1:0] bq_peak;
    /* verilator lint_on UNUSED */
    dpn_fifo_reg #(.W(9), .DEPTH(MAX_OUTSTANDING), .FULL_PASS(0)) wq (
        .clk(clk), .rst(rst),
        .in_valid(aw_hs), .in_ready(wq_in_ready), .in_data({awlen_r == 8'd0, awlen_r}),
        .out_valid(w_active), .out_ready(w_hs && m_axi_wlast), .out_data({w_single, w_len}),
        .count(wq_count), .peak(wq_peak)
    );
    dpn_fifo_reg #(.W(1), .DEPTH(MAX_OUTSTANDING), .FULL_PASS(0)) bq (
        .clk(clk), .rst(rst),
        .in_valid(issue), .in_ready(bq_in_ready), .in_data(sp_last),
        .out_valid(b_expected), .out_ready(b_hs), .out_data(b_last),
        .count(bq_count), .peak(bq_peak)
    );

    always @(posedge clk) begin
        if (rst) begin
            cmd_done <= 1'b0;
            done_count <= {DONE_W{1'b0}};
            error <= 1'b0;
        end else begin
            cmd_done <= b_hs && b_last;
            if (b_hs && b_last) done_count <= done_count + 1'b1;
            if (b_hs && (m_axi_bresp != 2'b00 || m_axi_bid != ID_C)) error <= 1'b1;
        end
    end
endmodule
