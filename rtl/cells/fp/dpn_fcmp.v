// IEEE-754 comparison with C semantics: lt, le, gt, ge, eq, ne of a against b; pipelined LATENCY cycles (default 1).
//
// Format: EW exponent bits, MW fraction bits (8/23 binary32, 11/52 binary64). +0 and -0 compare
// equal; when a or b is a NaN every output is 0 except ne = 1.
// The flags are computed combinationally and followed by a LATENCY-deep register delay line that
// moves only when ce = 1 (retiming is left to synthesis); LATENCY = 0 gives a combinational cell.
module dpn_fcmp #(
    parameter EW = 8,
    parameter MW = 23,
    parameter LATENCY = 1
) (
    input  wire             clk,
    input  wire             ce,
    input  wire [EW+MW:0]   a,
    input  wire [EW+MW:0]   b,
    output wire             lt,
    output wire             le,
    output wire             gt,
    output wire             ge,
    output wire             eq,
    output wire             ne
);
    localparam W = EW + MW + 1;
    localparam [EW-1:0] EMAX = {EW{1'b1}};

    wire unordered = (a[W-2:MW] == EMAX && a[MW-1:0] != 0) || (b[W-2:MW] == EMAX && b[MW-1:0] != 0);
    wire both_zero = a[W-2:0] == 0 && b[W-2:0] == 0;
    // Keys ordered as unsigned numbers like the values: negatives inverted, positives offset.
    wire [W-1:0] key_a = a[W-1] ? ~a : {1'b1, a[W-2:0]};
    wire [W-1:0] key_b = b[W-1] ? ~b : {1'b1, b[W-2:0]};
    wire equal = !unordered && (both_zero || a == b);
    wire less = !unordered && !equal && key_a < key_b;
    wire greater = !unordered && !equal && !less;

    wire [5:0] flags_comb = {less, less | equal, greater, greater | equal, equal, !equal};
    wire [5:0] flags;
    assign {lt, le, gt, ge, eq, ne} = flags;

    dpn_delay #(.W(6), .LATENCY(LATENCY)) u_delay (.clk(clk), .ce(ce), .d(flags_comb), .q(flags));
endmodule
