// Register-file FIFO (flip-flops or LUTRAM, asynchronous read) for small depths: valid/ready in, valid/ready out.
module dpn_fifo_reg #(
    parameter W = 32,
    parameter DEPTH = 4,
    // 1: when full, a push is accepted in the same cycle as a pop (in_ready depends combinationally
    // on out_ready); 0: in_ready = !full (registered, no combinational ready path).
    parameter FULL_PASS = 1,
    // 1: the head is a register beside the ring, so that what its consumer decides on the
    // head's fields starts at a flip-flop rather than at a LUT-RAM read; the same cycles.
    parameter OUT_REG = 0
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
    localparam CW = $clog2(DEPTH + 1);
    localparam [31:0] NEAR32 = DEPTH - 1;
    localparam [CW-1:0] NEAR_FULL = NEAR32[CW-1:0];  // one push from full
    localparam [31:0] ONE32 = 1;
    localparam [CW-1:0] ONE = ONE32[CW-1:0];

    // Empty and full as registers beside the count, so that a handshake through the FIFO
    // starts at a flip-flop rather than at a comparison of the count.
    reg nonempty, full;
    assign out_valid = nonempty;
    assign in_ready = !full || ((FULL_PASS != 0) && out_ready && out_valid);
    wire push = in_valid && in_ready;
    wire pop = out_valid && out_ready;

    generate
        if (DEPTH == 1) begin : g_one
            reg [W-1:0] slot;
            always @(posedge clk) if (push) slot <= in_data;
            assign out_data = slot;
        end else begin : g_ring
            localparam AW = $clog2(DEPTH);
            localparam [31:0] LAST32 = DEPTH - 1;
            localparam [AW-1:0] LAST = LAST32[AW-1:0];
            reg [W-1:0] mem [0:DEPTH-1];
            reg [AW-1:0] wptr;
            always @(posedge clk) if (push) mem[wptr] <= in_data;
            always @(posedge clk) begin
                if (rst) wptr <= {AW{1'b0}};
                else if (push) wptr <= (wptr == LAST) ? {AW{1'b0}} : wptr + 1'b1;
            end
            if (OUT_REG != 0) begin : g_head
                // The entry behind the head, read from the ring at rptr1 (a register): after a
                // pop it becomes the head, unless the head was the only entry, when this
                // cycle's push (if any) does; an empty FIFO's head is this cycle's push.
                reg [W-1:0] head;
                reg [AW-1:0] rptr1;
                always @(posedge clk) begin
                    if (rst) rptr1 <= ONE32[AW-1:0];
                    else if (pop) rptr1 <= (rptr1 == LAST) ? {AW{1'b0}} : rptr1 + 1'b1;
                    if (pop) head <= (count == ONE) ? in_data : mem[rptr1];
                    else if (!nonempty) head <= in_data;
                end
                assign out_data = head;
            end else begin : g_read
                reg [AW-1:0] rptr;
                always @(posedge clk) begin
                    if (rst) rptr <= {AW{1'b0}};
                    else if (pop) rptr <= (rptr == LAST) ? {AW{1'b0}} : rptr + 1'b1;
                end
                assign out_data = mem[rptr];
            end
        end
    endgenerate

    // Both counts from the register, the handshakes only choosing (as gates: a multiplexer
    // would become one adder after them, on the path from a consumer's decision to pop).
    wire [CW-1:0] count_up = count + 1'b1, count_down = count - 1'b1;
    always @(posedge clk) begin
        if (rst) begin
            count <= {CW{1'b0}};
            peak <= {CW{1'b0}};
            nonempty <= 1'b0;
            full <= 1'b0;
        end else begin
            if (push != pop) count <= (count_up & {CW{push}}) | (count_down & {CW{pop}});
            if (push && !pop) begin
                nonempty <= 1'b1;
                full <= count == NEAR_FULL;
            end else if (pop && !push) begin
                nonempty <= count != ONE;
                full <= 1'b0;
            end
            // The most elements held, a cycle after they were: from the count alone, which no
            // handshake reaches.
            if (count > peak) peak <= count;
        end
    end
endmodule
