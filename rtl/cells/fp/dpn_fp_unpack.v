// IEEE-754 operand unpacking shared by the divider and square root: class bits, the
// quieted NaN, and the mantissa normalised to its leading one at bit MW with its effective
// (biased) exponent, which falls below 1 for subnormals. Combinational.
module dpn_fp_unpack #(
    parameter EW = 8,
    parameter MW = 23
) (
    input  wire [EW+MW:0]        x,
    output wire                  nan,
    output wire                  inf,
    output wire                  zero,
    output wire [EW+MW:0]        quiet,
    output wire [MW:0]           norm,
    output wire signed [EW+2:0]  eff
);
    localparam W = EW + MW + 1;
    localparam XW = EW + 3;
    localparam LW = $clog2(MW + 2);
    localparam [EW-1:0] EMAX = {EW{1'b1}};

    function automatic [LW-1:0] leading_zeros(input [MW:0] v);
        integer i;
        reg found;
        begin
            leading_zeros = 0;
            found = 1'b0;
            for (i = MW; i >= 0; i = i - 1) begin
                if (!found && v[i]) begin
                    leading_zeros = MW[LW-1:0] - i[LW-1:0];
                    found = 1'b1;
                end
            end
        end
    endfunction

    wire [EW-1:0] exp_x = x[W-2:MW];
    wire [MW-1:0] frac_x = x[MW-1:0];
    assign nan = exp_x == EMAX && frac_x != 0;
    assign inf = exp_x == EMAX && frac_x == 0;
    assign zero = x[W-2:0] == 0;
    assign quiet = x | ({{(W - 1){1'b0}}, 1'b1} << (MW - 1));

    wire [MW:0]   man = {exp_x != 0, frac_x};
    wire [LW-1:0] lz = leading_zeros(man);
    assign norm = man << lz;
    assign eff = $signed({3'b000, exp_x | {{(EW - 1){1'b0}}, exp_x == 0}}) - $signed({{(XW - LW){1'b0}}, lz});
endmodule
