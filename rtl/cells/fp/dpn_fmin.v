// IEEE-754 minimum bit-identical to glibc fmin/fminf on x86-64, pipelined LATENCY cycles (default 1).
//
// Format: EW exponent bits, MW fraction bits (8/23 binary32, 11/52 binary64). What glibc 2.36 does
// (checked by the unit test against the host library): if a or b is a signalling NaN the result is
// a + b (a quieted if a is a NaN, else b quieted); else if exactly one is a quiet NaN the other is
// returned; two quiet NaNs give a; otherwise a if a is strictly less than b, else b (so for
// +0 and -0 the result is b).
// The result is computed combinationally and followed by a LATENCY-deep register delay line that
// moves only when ce = 1 (retiming is left to synthesis); LATENCY = 0 gives a combinational cell.
module dpn_fmin #(
    parameter EW = 8,
    parameter MW = 23,
    parameter LATENCY = 1
) (
    input  wire             clk,
    input  wire             ce,
    input  wire [EW+MW:0]   a,
    input  wire [EW+MW:0]   b,
    output wire [EW+MW:0]   y
);
    localparam W = EW + MW + 1;
    localparam [EW-1:0] EMAX = {EW{1'b1}};

    wire         nan_a = a[W-2:MW] == EMAX && a[MW-1:0] != 0;
    wire         nan_b = b[W-2:MW] == EMAX && b[MW-1:0] != 0;
    wire         snan_a = nan_a && !a[MW-1];
    wire         snan_b = nan_b && !b[MW-1];
    wire [W-1:0] quiet_a = a | ({{(W - 1){1'b0}}, 1'b1} << (MW - 1));
    wire [W-1:0] quiet_b = b | ({{(W - 1){1'b0}}, 1'b1} << (MW - 1));
    // Keys ordered as unsigned numbers like the values: negatives inverted, positives offset.
    wire [W-1:0] key_a = a[W-1] ? ~a : {1'b1, a[W-2:0]};
    wire [W-1:0] key_b = b[W-1] ? ~b : {1'b1, b[W-2:0]};
    wire         both_zero = a[W-2:0] == 0 && b[W-2:0] == 0;
    wire         pick_a = !both_zero && key_a < key_b;

    wire [W-1:0] y_comb = snan_a || snan_b ? (nan_a ? quiet_a : quiet_b)
                        : nan_a ? (nan_b ? a : b)
                        : nan_b ? a
                        : pick_a ? a : b;

    dpn_delay #(.W(W), .LATENCY(LATENCY)) u_delay (.clk(clk), .ce(ce), .d(y_comb), .q(y));
endmodule
