// Block-RAM FIFO (synchronous-read dpn_ram_dp + 3-entry output queue) for large depths: valid/ready in and out.
// An element pushed while the RAM holds none goes straight to the output register (1-cycle latency:
// a chain of processes through an empty FIFO does not wait on the RAM).
module dpn_fifo_ram #(
    parameter W = 32,
    parameter DEPTH = 1024,
    // 1: when full, a push is accepted in the same cycle as a pop (in_ready depends combinationally
    // on out_ready); 0: in_ready = !full.
    parameter FULL_PASS = 1
) (
    input  wire                       clk,
    input  wire                       rst,
    input  wire                       in_valid,
    output wire                       in_ready,
    input  wire [W-1:0]               in_data,
    output wire                       out_valid,
    input  wire                       out_ready,
    output wire [W-1:0]               out_data,
    output reg  [$clog2(DEPTH+1)-1:0] count,
    output reg  [$clog2(DEPTH+1)-1:0] peak
);
    // An element is written to the RAM, read from it one cycle later at the earliest and kept in
    // a three-place output queue (ob0 = head, registered out_data): it enters the output 3 cycles
    // after its push, so full throughput needs DEPTH >= 3. A read is issued while the queue and
    // the read on its way hold fewer than three, whether or not the head leaves this cycle: the
    // third place keeps one read a cycle going, and the pop reaches no RAM address. Where the RAM
    // holds nothing and no read is on its way out of it, a push goes to the output queue directly
    // (`bypass`), behind what it holds, so the order stays. `count` includes all three stages.
    localparam CW = $clog2(DEPTH + 1);
    localparam AW = (DEPTH > 1) ? $clog2(DEPTH) : 1;
    localparam [31:0] NEAR32 = DEPTH - 1;
    localparam [CW-1:0] NEAR_FULL = NEAR32[CW-1:0];  // one push from full
    localparam [31:0] LAST32 = DEPTH - 1;
    localparam [AW-1:0] LAST = LAST32[AW-1:0];

    reg  [AW-1:0] wptr;
    reg  [AW-1:0] rptr;
    reg  [CW-1:0] ram_cnt;     // elements in the RAM not yet read
    reg           rd_pending;  // a RAM read was issued last cycle: ram_q holds it now
    reg  [1:0]    ob_cnt;
    reg           ob_any;      // ob_cnt != 0, as a register (a handshake starts at a flip-flop)
    reg  [W-1:0]  ob0;
    reg  [W-1:0]  ob1;
    reg  [W-1:0]  ob2;
    wire [W-1:0]  ram_q;

    reg full;  // count == DEPTH, as a register
    wire [CW-1:0] count_up = count + 1'b1, count_down = count - 1'b1;
    assign out_valid = ob_any;
    assign out_data = ob0;
    assign in_ready = !full || ((FULL_PASS != 0) && out_ready && out_valid);
    wire push = in_valid && in_ready;
    wire pop = out_valid && out_ready;
    wire bypass = push && ram_cnt == {CW{1'b0}} && !rd_pending && ob_cnt != 2'd3;
    wire to_ram = push && !bypass;
    // What enters the output queue this cycle: the RAM's read, or the bypassed push.
    wire          fill = rd_pending || bypass;
    wire [W-1:0]  fill_data = rd_pending ? ram_q : in_data;
    wire rd_issue = (ram_cnt != {CW{1'b0}}) && {1'b0, ob_cnt} + {2'b0, rd_pending} < 3'd3;
    // The queue's count with the fill appended, then after a pop too: the pop, which the
    // consumer decides late, chooses last, as it does each place.
    wire [1:0] ob_filled = ob_cnt + {1'b0, fill}, ob_filled_pop = ob_filled - 2'd1;
    // The RAM's count moves by one either way: both sums from the register, the write and the
    // read only choosing (a multiplexer would become one adder with the push inside it).
    wire [CW-1:0] ram_cnt_up = ram_cnt + 1'b1, ram_cnt_down = ram_cnt - 1'b1;

    dpn_ram_dp #(.W(W), .DEPTH(DEPTH)) ram (
        .clk(clk), .we(to_ram), .waddr(wptr), .wdata(in_data), .raddr(rptr), .rdata(ram_q)
    );

    always @(posedge clk) begin
        if (pop) begin
            ob0 <= (ob_cnt == 2'd1) ? fill_data : ob1;
            ob1 <= (ob_cnt == 2'd2) ? fill_data : ob2;
            ob2 <= fill_data;
        end else begin
            if (ob_cnt == 2'd0) ob0 <= fill_data;
            if (ob_cnt == 2'd1) ob1 <= fill_data;
            if (ob_cnt == 2'd2) ob2 <= fill_data;
        end
    end
    always @(posedge clk) begin
        if (rst) begin
            wptr <= {AW{1'b0}};
            rptr <= {AW{1'b0}};
            ram_cnt <= {CW{1'b0}};
            rd_pending <= 1'b0;
            ob_cnt <= 2'd0;
            ob_any <= 1'b0;
            count <= {CW{1'b0}};
            peak <= {CW{1'b0}};
            full <= 1'b0;
        end else begin
            if (to_ram) wptr <= (wptr == LAST) ? {AW{1'b0}} : wptr + 1'b1;
            if (rd_issue) rptr <= (rptr == LAST) ? {AW{1'b0}} : rptr + 1'b1;
            if (to_ram != rd_issue) ram_cnt <= (ram_cnt_up & {CW{to_ram}}) | (ram_cnt_down & {CW{rd_issue}});
            rd_pending <= rd_issue;
            ob_cnt <= (ob_filled_pop & {2{pop}}) | (ob_filled & {2{!pop}});
            ob_any <= fill || (pop ? ob_cnt[1] : ob_any);  // more than the head left, or it stays
            // Both counts from the register, the handshakes only choosing (as gates: a
            // multiplexer would become one adder after them).
            if (push != pop) count <= (count_up & {CW{push}}) | (count_down & {CW{pop}});
            if (push && !pop) full <= count == NEAR_FULL;
            else if (pop && !push) full <= 1'b0;
            // The most elements held, a cycle after they were: from the count alone, which no
            // handshake reaches.
            if (count > peak) peak <= count;
`ifndef SYNTHESIS
            if (ob_cnt == 2'd3 && fill && !pop) begin
                $display("dpn_fifo_ram: output queue overflow (internal error)");
                $stop;
            end
`endif
        end
    end
endmodule
