// Float helper: rounds a normalised mantissa to nearest even and packs it, with subnormal results and overflow to infinity.
//
// Used by dpn_fdiv, dpn_fsqrt and dpn_i2f (include this file with them).
// The value is (-1)^sign * (man + r) * 2^(exp - bias - MW - G), where 0 <= r < 1 is nonzero when
// the remainder is: rem (two's complement), with rem_fix added when it is negative (a
// non-restoring divider's or root's last partial remainder and its correction; 0 for none).
// man[MW+G] = 1, or man = 0 for a zero result (then the remainder must be 0 and the result is a
// signed zero). exp is the biased exponent the leading bit would have; exp < 1 gives a subnormal
// or zero result (shifted right, the bits shifted out sticky, before rounding), a rounded
// exponent >= 2^EW - 1 gives infinity. G >= 1 guard bits (bit G-1 rounds, those below are
// sticky); exp is a signed number of XW bits. TINY = 0 says that exp is never below 1 (a square
// root, an integer converted), which leaves the subnormal shift out.
// Three stages: (1) from the exponent alone, the subnormal shift, the exponent field, overflow;
// (2) the shift and the rounding decision (round bit and sticky bits: those the shift passes,
// found with a mask rather than from the shifter's output, and the remainder's, tested for zero
// without a carry chain); (3) the increment and packing. LATENCY = 0 is combinational; 1 puts a
// register (moving when ce = 1) between (2) and (3), whose increment is a carry chain as wide
// as the result; 2 one between (1) and (2) as well: (1) is short, so that its user can end its
// own last stage there (the divider's and the root's last steps, their exponent coming from
// registers further back).
module dpn_fp_round #(
    parameter EW = 8,
    parameter MW = 23,
    parameter G = 2,
    parameter XW = EW + 3,
    parameter RMW = 1,
    parameter TINY = 1,
    parameter LATENCY = 0
) (
    input  wire                 clk,
    input  wire                 ce,
    input  wire                 sign,
    input  wire signed [XW-1:0] exp,
    input  wire [MW+G:0]        man,
    input  wire [RMW-1:0]       rem,
    input  wire [RMW-1:0]       rem_fix,
    output wire [EW+MW:0]       result
);
    localparam VW = MW + G + 1;
    localparam SMAX = MW + 2;  // a shift this far takes the round bit above the mantissa: all sticky
    localparam SW = $clog2(SMAX + 1);
    localparam [EW-1:0] EMAX = {EW{1'b1}};
    localparam integer EXP_ALL_I = 1 - SMAX;
    localparam [XW-1:0] EXP_ALL = EXP_ALL_I[XW-1:0];  // exp at which the shift reaches SMAX
    localparam RP = LATENCY >= 2 ? 1 : 0;
    localparam RD = LATENCY >= 1 ? 1 : 0;

    // Stage 1: the exponent. A subnormal result shifts right by 1 - exp (at most SMAX).
    // The comparisons on exp itself, beside the subtraction (whose low bits are enough).
    wire          subnormal_1 = TINY != 0 && exp < 1;
    wire          all_sticky = exp <= $signed(EXP_ALL);
    wire [SW-1:0] shift_low = {{(SW - 1){1'b0}}, 1'b1} - exp[SW-1:0];
    wire [SW-1:0] shift_1 = !subnormal_1 ? {SW{1'b0}} : all_sticky ? SMAX[SW-1:0] : shift_low;
    wire [EW-1:0] exp_field_1 = subnormal_1 ? {EW{1'b0}} : exp[EW-1:0];
    wire          overflow_1 = !subnormal_1 && exp >= $signed({{(XW - EW){1'b0}}, EMAX});

    localparam B1 = 1 + 1 + EW + SW + VW + RMW + RMW;
    wire          sign_2, overflow_2;
    wire [EW-1:0] exp_field_2;
    wire [SW-1:0] shift_q, shift_2;
    wire [VW-1:0] man_2;
    wire [RMW-1:0] rem_2, rem_fix_2;
    dpn_delay #(.W(B1), .LATENCY(RP)) u_prepared (.clk(clk), .ce(ce),
        .d({sign, overflow_1, exp_field_1, shift_1, man, rem, rem_fix}),
        .q({sign_2, overflow_2, exp_field_2, shift_q, man_2, rem_2, rem_fix_2}));
    // A constant does not cross the register's module: without subnormals, no shifter.
    assign shift_2 = TINY != 0 ? shift_q : {SW{1'b0}};

    // Stage 2: align and decide. Bit i of man ends below the round bit when i < G - 1 + shift.
    wire [VW-1:0] aligned = man_2 >> shift_2;
    wire [VW-1:0] below;
    genvar k;
    generate
        for (k = 0; k < VW; k = k + 1) begin : g_below
            assign below[k] = k < G - 1 + shift_2;
        end
    endgenerate
    // rem + rem_fix is 0 exactly when each bit of rem ^ rem_fix is the carry into it, and the
    // carry out of a bit whose sum is 0 is rem | rem_fix: no carry chain.
    wire [RMW:0]  carry = {rem_2 | rem_fix_2, 1'b0};
    wire          rem_zero = rem_2[RMW-1] ? (rem_2 ^ rem_fix_2) == carry[RMW-1:0] : rem_2 == 0;
    wire          sticky = |(man_2 & below) || !rem_zero;
    wire          increment_2 = aligned[G-1] && (aligned[G] || sticky);
    wire          zero_2 = !man_2[VW-1];

    localparam B2 = 1 + 1 + 1 + 1 + EW + MW;
    wire          sign_3, zero_3, overflow_3, increment_3;
    wire [EW-1:0] exp_field_3;
    wire [MW-1:0] fraction_3;
    dpn_delay #(.W(B2), .LATENCY(RD)) u_decided (.clk(clk), .ce(ce),
        .d({sign_2, zero_2, overflow_2, increment_2, exp_field_2, aligned[G +: MW]}),
        .q({sign_3, zero_3, overflow_3, increment_3, exp_field_3, fraction_3}));

    // Stage 3: exponent field and fraction; a carry out of the fraction moves into the exponent
    // field (subnormal -> smallest normal, next binade, largest finite -> infinity).
    wire [EW+MW-1:0] encoded = {exp_field_3, fraction_3} + {{(EW + MW - 1){1'b0}}, increment_3};
    assign result = zero_3 ? {sign_3, {(EW + MW){1'b0}}} : overflow_3 ? {sign_3, EMAX, {MW{1'b0}}} : {sign_3, encoded};

    wire unused_ok = &{1'b0, aligned, carry[RMW]};
endmodule
