// Signed integer divider: quotient q = a / b and remainder r = a % b truncating toward zero as in C, pipelined LATENCY cycles (default 16).
//
// IW-bit two's complement. Cases C leaves undefined get defined values (as RISC-V): b = 0 gives
// q = -1 (all ones) and r = a; a = -2^(IW-1), b = -1 gives q = -2^(IW-1) and r = 0.
// The division (one non-restoring array on the magnitudes) is combinational and followed by a
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
    // Unsigned non-restoring division: {quotient, remainder}. The two's complement partial remainder
    // stays in [-den, den); each step adds or subtracts den (one adder) and its sign gives the
    // quotient bit. den = 0: quotient all ones, remainder num.
    function automatic [2*IW-1:0] divide(input [IW-1:0] num, input [IW-1:0] den);
        integer i;
        reg [IW+1:0] part;
        reg [IW+1:0] operand;
        /* verilator lint_off UNUSEDSIGNAL */
        reg [IW+2:0] total;  // bit 0 only feeds the carry-in
        /* verilator lint_on UNUSEDSIGNAL */
        reg          subtract;
        reg [IW-1:0] quot;
        reg [IW-1:0] rem;
        begin
            part = 0;
            quot = 0;
            for (i = IW - 1; i >= 0; i = i - 1) begin
                subtract = !part[IW+1];
                operand = subtract ? ~{2'b00, den} : {2'b00, den};
                total = {part[IW:0], num[i], 1'b1} + {operand, subtract};  // 2 part + bit -/+ den
                part = total[IW+2:1];
                quot[i] = !part[IW+1];
            end
            rem = part[IW+1] ? part[IW-1:0] + den : part[IW-1:0];
            divide = {quot, rem};
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
    dpn_delay #(.W(2*IW), .LATENCY(LATENCY)) u_delay (.clk(clk), .ce(ce), .d({q_comb, r_comb}), .q(qr_out));
endmodule
