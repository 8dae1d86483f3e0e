// IEEE-754 format conversion (EWI/MWI to EWO/MWO, e.g. binary32 <-> binary64), round to nearest even, pipelined LATENCY cycles (default 2).
//
// Widening is exact (subnormal inputs are normalised); narrowing rounds to nearest even with
// subnormal results and overflow to infinity. A NaN keeps its sign, gets the quiet bit set and its
// payload's top bits (narrowing) or is padded with zeros (widening), as SSE cvtss2sd/cvtsd2ss.
// Needs dpn_fp_round.v.
// With LATENCY >= 2 the first register splits the rounding before its increment; the others
// form a delay line after the conversion. All move only when ce = 1; LATENCY = 0 gives a
// combinational cell.
module dpn_f2f #(
    parameter EWI = 8,
    parameter MWI = 23,
    parameter EWO = 11,
    parameter MWO = 52,
    parameter LATENCY = 2
) (
    input  wire               clk,
    input  wire               ce,
    input  wire [EWI+MWI:0]   a,
    output wire [EWO+MWO:0]   y
);
    localparam WI = EWI + MWI + 1;
    localparam WO = EWO + MWO + 1;
    localparam XW = (EWI > EWO ? EWI : EWO) + 3;
    localparam LW = $clog2(MWI + 2);
    localparam [EWI-1:0] EMAXI = {EWI{1'b1}};
    localparam [EWO-1:0] EMAXO = {EWO{1'b1}};
    localparam [XW-1:0] BIASI = {{(XW - EWI + 1){1'b0}}, {(EWI - 1){1'b1}}};
    localparam [XW-1:0] BIASO = {{(XW - EWO + 1){1'b0}}, {(EWO - 1){1'b1}}};

    function automatic [LW-1:0] leading_zeros(input [MWI:0] v);
        integer i;
        reg found;
        begin
            leading_zeros = 0;
            found = 1'b0;
            for (i = MWI; i >= 0; i = i - 1) begin
                if (!found && v[i]) begin
                    leading_zeros = MWI[LW-1:0] - i[LW-1:0];
                    found = 1'b1;
                end
            end
        end
    endfunction

    wire           sign = a[WI-1];
    wire [EWI-1:0] exp_a = a[WI-2:MWI];
    wire [MWI-1:0] frac_a = a[MWI-1:0];
    wire           nan_a = exp_a == EMAXI && frac_a != 0;
    wire           inf_a = exp_a == EMAXI && frac_a == 0;

    // NaN: quiet bit set, payload aligned at the top of the fraction.
    wire [MWI+MWO-1:0] nan_payload = {frac_a | ({{(MWI - 1){1'b0}}, 1'b1} << (MWI - 1)), {MWO{1'b0}}};
    wire [WO-1:0]      nan_out = {sign, EMAXO, nan_payload[MWI+MWO-1:MWI]};

    wire [MWI:0]         man_a = {exp_a != 0, frac_a};
    wire [LW-1:0]        lz_a = leading_zeros(man_a);
    wire [MWI:0]         norm_a = man_a << lz_a;
    wire signed [XW-1:0] exp_out = $signed({{(XW - EWI){1'b0}}, exp_a | {{(EWI - 1){1'b0}}, exp_a == 0}})
                                   - $signed({{(XW - LW){1'b0}}, lz_a}) - $signed(BIASI) + $signed(BIASO);
    localparam RR = LATENCY >= 2 ? 1 : 0;  // inside the rounding
    wire [WO-1:0]        rounded;
    dpn_fp_round #(.EW(EWO), .MW(MWO), .G(MWI + 1), .XW(XW), .LATENCY(RR)) round (
        .clk(clk), .ce(ce), .sign(sign), .exp(exp_out), .man({norm_a, {(MWO + 1){1'b0}}}), .sticky(1'b0), .result(rounded)
    );

    wire          nan_r, inf_r, sign_r;
    wire [WO-1:0] nan_out_r;
    dpn_delay #(.W(3 + WO), .LATENCY(RR)) u_round (.clk(clk), .ce(ce), .d({nan_a, inf_a, sign, nan_out}), .q({nan_r, inf_r, sign_r, nan_out_r}));
    wire [WO-1:0] y_comb = nan_r ? nan_out_r
                         : inf_r ? {sign_r, EMAXO, {MWO{1'b0}}}
                         : rounded;  // zero: norm_a = 0 gives a signed zero

    wire unused_ok = &{1'b0, nan_payload[MWI-1:0]};
    dpn_delay #(.W(WO), .LATENCY(LATENCY - RR)) u_delay (.clk(clk), .ce(ce), .d(y_comb), .q(y));
endmodule
