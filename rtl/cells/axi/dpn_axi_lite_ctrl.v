// AXI4-Lite control slave (s_axi_control) with the Vitis ap_ctrl_hs register map and NUM_ARGS 64-bit kernel arguments.
module dpn_axi_lite_ctrl #(
    parameter NUM_ARGS = 4  // 1..510; argument k: low word at 0x10 + 8k, high word at 0x14 + 8k
) (
    input  wire                    clk,
    input  wire                    rst,
    input  wire                    s_axi_control_awvalid,
    output wire                    s_axi_control_awready,
    input  wire [11:0]             s_axi_control_awaddr,
    input  wire                    s_axi_control_wvalid,
    output wire                    s_axi_control_wready,
    input  wire [31:0]             s_axi_control_wdata,
    input  wire [3:0]              s_axi_control_wstrb,
    output wire                    s_axi_control_bvalid,
    input  wire                    s_axi_control_bready,
    output wire [1:0]              s_axi_control_bresp,
    input  wire                    s_axi_control_arvalid,
    output wire                    s_axi_control_arready,
    input  wire [11:0]             s_axi_control_araddr,
    output wire                    s_axi_control_rvalid,
    input  wire                    s_axi_control_rready,
    output wire [31:0]             s_axi_control_rdata,
    output wire [1:0]              s_axi_control_rresp,
    output wire                    ap_start,
    input  wire                    ap_done,
    input  wire                    ap_idle,
    input  wire                    ap_ready,
    /* verilator lint_off SYMRSVDWORD */
    output wire                    interrupt,
    /* verilator lint_on SYMRSVDWORD */
    output wire [64*NUM_ARGS-1:0]  args
);
    // 0x00 control: bit 0 ap_start (R/W, writing 1 sets it; cleared by the kernel's ap_ready unless
    //      auto_restart), bit 1 ap_done (R, clear on read), bit 2 ap_idle (R), bit 3 ap_ready (R,
    //      clear on read), bit 7 auto_restart (R/W)
    // 0x04 global interrupt enable (bit 0), 0x08 IP interrupt enable (bit 0 ap_done, bit 1 ap_ready),
    // 0x0C IP interrupt status (same bits, set by the events the IER enables, toggle on write)
    // interrupt = GIE && |(ISR). Unmapped addresses read 0 and ignore writes. Responses are OKAY.
    localparam [31:0] NA32 = NUM_ARGS;
    localparam [8:0] NA = NA32[8:0];
    localparam IW = $clog2(64 * NUM_ARGS);  // bit index into args

    // ---- write channel: take AW and W (in any order), then answer on B
    reg        aw_full;
    reg [11:2] aw_addr;
    reg        w_full;
    reg [31:0] w_data;
    reg [3:0]  w_strb;
    reg        bvalid_r;
    assign s_axi_control_awready = !aw_full;
    assign s_axi_control_wready = !w_full;
    assign s_axi_control_bvalid = bvalid_r;
    assign s_axi_control_bresp = 2'b00;
    wire do_write = aw_full && w_full && !bvalid_r;

    always @(posedge clk) begin
        if (rst) begin
            aw_full <= 1'b0;
            w_full <= 1'b0;
            bvalid_r <= 1'b0;
            aw_addr <= 10'd0;
            w_data <= 32'd0;
            w_strb <= 4'd0;
        end else begin
            if (s_axi_control_awvalid && !aw_full) begin
                aw_full <= 1'b1;
                aw_addr <= s_axi_control_awaddr[11:2];
            end
            if (s_axi_control_wvalid && !w_full) begin
                w_full <= 1'b1;
                w_data <= s_axi_control_wdata;
                w_strb <= s_axi_control_wstrb;
            end
            if (do_write) begin
                aw_full <= 1'b0;
                w_full <= 1'b0;
                bvalid_r <= 1'b1;
            end else if (bvalid_r && s_axi_control_bready) begin
                bvalid_r <= 1'b0;
            end
        end
    end

    // ---- registers
    reg                    start_r;
    reg                    done_r;
    reg                    ready_r;
    reg                    auto_restart;
    reg                    gie;
    reg [1:0]              ier;
    reg [1:0]              isr;
    wire [64*NUM_ARGS-1:0] args_r;
    assign ap_start = start_r;
    assign args = args_r;

    // argument words: word k (k = 0 .. 2*NUM_ARGS-1) at 0x10 + 4k, byte strobes honoured
    genvar k;
    generate
        for (k = 0; k < 2 * NUM_ARGS; k = k + 1) begin : g_arg
            localparam [31:0] WA32 = 4 + k;
            reg [31:0] word;
            wire hit = do_write && (w_word == WA32[9:0]);
            always @(posedge clk) begin
                if (rst) word <= 32'd0;
                else if (hit) begin
                    if (w_strb[0]) word[7:0] <= w_data[7:0];
                    if (w_strb[1]) word[15:8] <= w_data[15:8];
                    if (w_strb[2]) word[23:16] <= w_data[23:16];
                    if (w_strb[3]) word[31:24] <= w_data[31:24];
                end
            end
            assign args_r[32*k +: 32] = word;
        end
    endgenerate
    assign interrupt = gie && (isr != 2'b00);

    wire [9:0] w_word = aw_addr[11:2];
    wire       ar_hs = s_axi_control_arvalid && s_axi_control_arready;
    wire       read_ctrl = ar_hs && (s_axi_control_araddr[11:2] == 10'd0);

    always @(posedge clk) begin
        if (rst) begin
            start_r <= 1'b0;
            done_r <= 1'b0;
            ready_r <= 1'b0;
            auto_restart <= 1'b0;
            gie <= 1'b0;
            ier <= 2'b00;
            isr <= 2'b00;
        end else begin
            if (ap_ready) start_r <= auto_restart;
            if (ap_done) done_r <= 1'b1;
            else if (read_ctrl) done_r <= 1'b0;
            if (ap_ready) ready_r <= 1'b1;
            else if (read_ctrl) ready_r <= 1'b0;
            isr <= (isr ^ ((do_write && w_word == 10'd3 && w_strb[0]) ? w_data[1:0] : 2'b00))
                   | (ier & {ap_ready, ap_done});
            if (do_write && w_strb[0]) begin
                case (w_word)
                    10'd0: begin
                        if (w_data[0]) start_r <= 1'b1;
                        auto_restart <= w_data[7];
                    end
                    10'd1: gie <= w_data[0];
                    10'd2: ier <= w_data[1:0];
                    default: ;
                endcase
            end
        end
    end

    // ---- read channel: one outstanding read, data registered
    reg        rvalid_r;
    reg [31:0] rdata_r;
    wire [9:0] r_word = s_axi_control_araddr[11:2];
    wire [8:0] r_arg = s_axi_control_araddr[11:3] - 9'd2;
    wire       r_is_arg = (s_axi_control_araddr[11:3] >= 9'd2) && (r_arg < NA);
    /* verilator lint_off UNUSED */
    wire [14:0] r_bit = {r_arg, s_axi_control_araddr[2], 5'd0};
    wire [3:0]  unused_byte_addr = {s_axi_control_araddr[1:0], s_axi_control_awaddr[1:0]};
    /* verilator lint_on UNUSED */
    wire [IW-1:0] r_base = r_bit[IW-1:0];
    assign s_axi_control_arready = !rvalid_r;
    assign s_axi_control_rvalid = rvalid_r;
    assign s_axi_control_rdata = rdata_r;
    assign s_axi_control_rresp = 2'b00;

    always @(posedge clk) begin
        if (rst) begin
            rvalid_r <= 1'b0;
            rdata_r <= 32'd0;
        end else if (ar_hs) begin
            rvalid_r <= 1'b1;
            if (r_is_arg) rdata_r <= args_r[r_base +: 32];
            else begin
                case (r_word)
                    10'd0: rdata_r <= {24'd0, auto_restart, 3'b000, ready_r, ap_idle, done_r, start_r};
                    10'd1: rdata_r <= {31'd0, gie};
                    10'd2: rdata_r <= {30'd0, ier};
                    10'd3: rdata_r <= {30'd0, isr};
                    default: rdata_r <= 32'd0;
                endcase
            end
        end else if (s_axi_control_rready) begin
            rvalid_r <= 1'b0;
        end
    end
endmodule
