// Signed integer divider: quotient q = a / b and remainder r = a % b truncating toward zero as in C, pipelined LATENCY cycles (default 16).
//
// IW-bit two's complement. Cases C leaves undefined get defined values (as RISC-V): b = 0 gives
// q = -1 (all ones) and r = a; a = -2^(IW-1), b = -1 gives q = -2^(IW-1) and r = 0.
// The division (one restoring array on the magnitudes) is combinational and followed by a
// LATENCY-deep register delay line that moves only when ce = 1 (retiming is left to synthesis);
// LATENCY = 0 gives a combinational cell.
module dpn_idiv #(
    parameter IW = 32,
    parameter LATENCY = 16
) (
    input  wire            clk,
    input  wire            ce,
    input  wire [IW-1:0]   a,
    input  wire [IW-1:0]   b,
    output wire [IW-1:0]   q,
    output wire [IW-1:0]   r
);
    // Unsigned restoring division: {quotient, remainder}.
    function automatic [2*IW-1:0] divide(input [IW-1:0] num, input [IW-1:0] den);
        integer i;
        reg [IW:0]   rem;
        reg [IW+1:0] diff;  // rem - den with a borrow bit on top
        reg [IW-1:0] quot;
        begin
            rem = 0;
            quot = 0;
            for (i = IW - 1; i >= 0; i = i - 1) begin
                rem = {rem[IW-1:0], num[i]};
                diff = {1'b0, rem} - {2'b00, den};
                if (!diff[IW+1]) begin
                    quot[i] = 1'b1;
                    rem = diff[IW:0];
                end
            end
            divide = {quot, rem[IW-1:0]};
        end
    endfunction

    wire            neg_a = a[IW-1];
    wire            neg_b = b[IW-1];
    wire [IW-1:0]   mag_a = neg_a ? -a : a;  // -(-2^(IW-1)) = 2^(IW-1) as unsigned
    wire [IW-1:0]   mag_b = neg_b ? -b : b;
    wire [2*IW-1:0] qr = divide(mag_a, mag_b);  // b = 0: quotient all ones, remainder |a|
    wire [IW-1:0]   mag_q = qr[2*IW-1:IW];
    wire [IW-1:0]   mag_r = qr[IW-1:0];
    wire            by_zero = b == 0;
    wire [IW-1:0]   q_comb = by_zero ? {IW{1'b1}} : (neg_a ^ neg_b) ? -mag_q : mag_q;
    wire [IW-1:0]   r_comb = by_zero ? a : neg_a ? -mag_r : mag_r;

    wire [2*IW-1:0] qr_out;
    assign {q, r} = qr_out;
    generate
        if (LATENCY == 0) begin : g_comb
            assign qr_out = {q_comb, r_comb};
            wire unused_ok = &{1'b0, clk, ce};
        end else begin : g_pipe
            (* shreg_extract = "no" *)  // plain registers, so that synthesis can retime them into the logic
            reg [2*IW-1:0] stage [0:LATENCY-1];
            integer i;
            always @(posedge clk) begin
                if (ce) begin
                    stage[0] <= {q_comb, r_comb};
                    for (i = 1; i < LATENCY; i = i + 1) stage[i] <= stage[i-1];
                end
            end
            assign qr_out = stage[LATENCY-1];
        end
    endgenerate
endmodule
