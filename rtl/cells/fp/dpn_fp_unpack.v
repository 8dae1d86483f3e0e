// IEEE-754 operand unpacking shared by the divider and square root: class bits, the quieted
// NaN, how many zeros lead the mantissa with its hidden bit (a subnormal's: how far it is to be
// shifted left to bring its leading one to bit MW), the mantissa shifted by that count but for
// its FINE lowest bits (the shift by the three highest: an 8-to-1 multiplexer), the exponent it
// would have unshifted (1 for subnormals), and with TIMES3 = 1 (the divider's divisor) three
// times the mantissa, shifted alike. Combinational; the users register it and shift by the
// count's FINE low bits (2 in binary32, 3 in binary64) after the register: the count and the
// whole shift take more than a stage at 300 MHz.
module dpn_fp_unpack #(
    parameter EW = 8,
    parameter MW = 23,
    parameter TIMES3 = 0
) (
    input  wire [EW+MW:0]               x,
    output wire                         nan,
    output wire                         inf,
    output wire                         zero,
    output wire [EW+MW:0]               quiet,
    output wire [MW:0]                  coarse,
    output wire [MW+2:0]                coarse3,
    output wire [$clog2(MW + 2)-1:0]    lz,
    output wire [EW-1:0]                exp_eff
);
    localparam W = EW + MW + 1;
    localparam LW = $clog2(MW + 2);
    localparam [EW-1:0] EMAX = {EW{1'b1}};

    // How many zeros lead v (MW + 1 when v is 0), as a tree: a pair of nodes counts the
    // upper node's zeros, or all of them and the lower node's when the upper holds no one
    // (the lower count is below the upper node's span, so the sum is an OR).
    // (dpn_fadd's function: see there why each cell holds its own, and why simulation counts
    // by halving instead.)
`ifdef SYNTHESIS
    function automatic [LW-1:0] leading_zeros(input [MW:0] v);
        reg [2**LW-1:0] zero_n, zero_up;
        reg [LW*2**LW-1:0] count, count_up;
        reg [LW-1:0] span, node;
        integer level, i;
        begin
            zero_n = ~{v, {(2**LW - MW - 1){1'b1}}};
            count = {(LW * 2**LW){1'b0}};
            for (level = 1; level <= LW; level = level + 1) begin
                zero_up = {(2**LW){1'b0}};
                count_up = {(LW * 2**LW){1'b0}};
                span = {{(LW - 1){1'b0}}, 1'b1} << (level - 1);
                for (i = 0; i < (2**LW >> level); i = i + 1) begin
                    node = zero_n[2*i+1] ? count[LW*(2*i) +: LW] | span : count[LW*(2*i+1) +: LW];
                    zero_up[i] = zero_n[2*i+1] && zero_n[2*i];
                    count_up[LW*i +: LW] = node;
                end
                zero_n = zero_up;
                count = count_up;
            end
            leading_zeros = count[LW-1:0];
        end
    endfunction
`else
    // Halving: whether the upper half of what is left holds no one sets the count's next bit
    // (the ones put below v stop the count of a zero v at its width).
    function automatic [LW-1:0] leading_zeros(input [MW:0] v);
        reg [2**LW-1:0] rest;
        integer level;
        begin
            rest = {v, {(2**LW - (MW + 1)){1'b1}}};
            for (level = LW - 1; level >= 0; level = level - 1) begin
                leading_zeros[level] = rest >> (2**LW - 2**level) == 0;
                if (leading_zeros[level]) rest = rest << 2**level;
            end
        end
    endfunction
`endif

    wire [EW-1:0] exp_x = x[W-2:MW];
    wire [MW-1:0] frac_x = x[MW-1:0];
    assign nan = exp_x == EMAX && frac_x != 0;
    assign inf = exp_x == EMAX && frac_x == 0;
    assign zero = x[W-2:0] == 0;
    assign quiet = x | ({{(W - 1){1'b0}}, 1'b1} << (MW - 1));
    wire [MW:0]   man = {exp_x != 0, frac_x};
    assign lz = leading_zeros(man);
    localparam FINE = LW > 3 ? LW - 3 : 1;  // the users' shift
    assign coarse = man << {lz[LW-1:FINE], {FINE{1'b0}}};
    // With TIMES3 = 1, three times the mantissa shifted alike (the divider's second quotient bit
    // needs 3 den), here beside the count (the LUT mapping of another module would not know
    // how late the count comes); 0 otherwise. The carry chain takes the fraction alone (the
    // hidden bit comes two LUT levels late); the hidden bit adds 3 * 2^MW to the top bits t
    // (at most 2), as gates: 3, 4 or 5.
    wire [MW+1:0] frac3 = {2'b00, frac_x} + {1'b0, frac_x, 1'b0};  // below 3 * 2^MW
    wire [1:0]    t3 = frac3[MW+1:MW];
    wire [MW+2:0] man3 = {man[MW] ? {t3 != 0, t3 == 0, !t3[0]} : {1'b0, t3}, frac3[MW-1:0]};
    assign coarse3 = TIMES3 != 0 ? man3 << {lz[LW-1:FINE], {FINE{1'b0}}} : {(MW + 3){1'b0}};
    assign exp_eff = {exp_x[EW-1:1], exp_x[0] | exp_x == 0};
endmodule
