// Round-robin choice among LANES requesters: the first one after `last` (the one served last)
// whose `want` bit is set, wrapping around. Two priority encoders side by side, one over the
// requests after `last` and one over all of them, the first chosen where it finds one; each
// request is tested against an OR of those before it (a tree of LUTs, not a chain of lanes).
module dpn_round_robin #(
    parameter LANES = 2,
    parameter LB = LANES > 1 ? $clog2(LANES) : 1  // bits of a lane's number (left as it is)
) (
    input  wire [LANES-1:0] want,
    input  wire [LB-1:0]    last,
    output wire             found,
    output wire [LB-1:0]    pick
);
    reg [LANES-1:0] after;  // the requests numbered above `last`
    reg [LB-1:0] pick_after, pick_any;
    integer i;
    always @* begin
        for (i = 0; i < LANES; i = i + 1) after[i] = want[i] && i > last;
        pick_after = {LB{1'b0}};
        pick_any = {LB{1'b0}};
        for (i = 0; i < LANES; i = i + 1) begin
            if (after[i] && !(|(after & ((1 << i) - 1)))) pick_after = pick_after | i[LB-1:0];
            if (want[i] && !(|(want & ((1 << i) - 1)))) pick_any = pick_any | i[LB-1:0];
        end
    end
    assign found = |want;
    assign pick = |after ? pick_after : pick_any;
endmodule
