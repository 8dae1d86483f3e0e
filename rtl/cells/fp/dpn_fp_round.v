// Float helper: rounds a normalised mantissa to nearest even and packs it, with subnormal results and overflow to infinity.
//
// Used by dpn_fdiv, dpn_fsqrt and dpn_i2f (include this file with them).
// The value is (-1)^sign * man * 2^(exp - bias - MW - G) (+ a tiny nonzero amount when sticky = 1),
// with man[MW+G] = 1, or man = 0 for a zero result (then sticky must be 0 and the result is a
// signed zero). exp is the biased exponent the leading bit would have; exp < 1 gives a subnormal or
// zero result (shifted right with a sticky bit before rounding), a rounded exponent >= 2^EW - 1 gives
// infinity. G >= 2 guard bits; exp is a signed number of XW bits.
// Combinational with LATENCY = 0; with LATENCY = 1 a register (moving when ce = 1) lies between
// the rounding decision and the packing, whose increment is a carry chain as wide as the result.
module dpn_fp_round #(
    parameter EW = 8,
    parameter MW = 23,
    parameter G = 3,
    parameter XW = EW + 3,
    parameter LATENCY = 0
) (
    input  wire                 clk,
    input  wire                 ce,
    input  wire                 sign,
    input  wire signed [XW-1:0] exp,
    input  wire [MW+G:0]        man,
    input  wire                 sticky,
    output wire [EW+MW:0]       result
);
    localparam RW = MW + 3;  // hidden bit, MW fraction bits, round bit, sticky bit
    localparam SW = $clog2(RW + 1);
    localparam [EW-1:0] EMAX = {EW{1'b1}};
    localparam [XW-1:0] RW_X = RW[XW-1:0];

    // Compress the guard bits into round + sticky.
    wire [RW-1:0] compact = {man[MW+G:G-1], sticky | (|man[G-2:0])};

    // Subnormal result: shift right by 1 - exp (at most RW: everything goes into the sticky bit).
    wire                 subnormal = exp < 1;
    wire signed [XW-1:0] shift_wide = 1 - exp;
    wire [SW-1:0]        shift = !subnormal ? {SW{1'b0}} : (shift_wide >= $signed(RW_X)) ? RW_X[SW-1:0] : shift_wide[SW-1:0];
    wire [2*RW-1:0]      shifted = {compact, {RW{1'b0}}} >> shift;
    wire [RW-1:0]        aligned = shifted[2*RW-1:RW];
    wire                 lost = |shifted[RW-1:0];

    wire round_bit = aligned[1];
    wire sticky_bit = aligned[0] | lost;
    wire increment = round_bit & (sticky_bit | aligned[2]);

    wire [EW-1:0] exp_field = subnormal ? {EW{1'b0}} : exp[EW-1:0];
    wire          overflow = !subnormal && exp >= $signed({{(XW - EW){1'b0}}, EMAX});
    wire          is_zero = !man[MW+G];

    localparam PW = 4 + EW + MW;
    wire          sign_p, is_zero_p, overflow_p, increment_p;
    wire [EW-1:0] exp_field_p;
    wire [MW-1:0] fraction_p;
    dpn_delay #(.W(PW), .LATENCY(LATENCY)) u_pack (.clk(clk), .ce(ce),
        .d({sign, is_zero, overflow, increment, exp_field, aligned[MW+1:2]}),
        .q({sign_p, is_zero_p, overflow_p, increment_p, exp_field_p, fraction_p}));

    // Exponent field and fraction; a carry out of the fraction moves into the exponent field
    // (subnormal -> smallest normal, next binade, largest finite -> infinity).
    wire [EW+MW-1:0] encoded = {exp_field_p, fraction_p} + {{(EW + MW - 1){1'b0}}, increment_p};
    assign result = is_zero_p ? {sign_p, {(EW + MW){1'b0}}} : overflow_p ? {sign_p, EMAX, {MW{1'b0}}} : {sign_p, encoded};

    wire unused_ok = &{1'b0, shift_wide, aligned[RW-1]};
endmodule
