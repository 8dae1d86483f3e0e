// Round-robin choice among LANES requesters: the first one after the one served last whose
// `want` bit is set, wrapping around. The caller keeps who was served last as the mask of the
// lanes numbered after it (`above`, registered from `grant_above`), so no lane number is
// compared here; the choice is one-hot (its number, encoded, would add levels of logic that the
// caller can take from a register). Two priority encoders side by side, one over the requests in
// `above` and one over all of them, the first chosen where it finds one; each request is tested
// against an OR of those before it (a tree of LUTs, not a chain of lanes), and the same ORs give
// the mask of the lanes after the one chosen.
module dpn_round_robin #(
    parameter LANES = 2
) (
    input  wire [LANES-1:0] want,
    input  wire [LANES-1:0] above,        // the lanes numbered after the one served last
    output wire             found,
    output wire [LANES-1:0] grant,        // the lane chosen
    output wire [LANES-1:0] grant_above   // the lanes numbered after it: `above` once it is served
);
    wire [LANES-1:0] after = want & above;
    reg  [LANES-1:0] before_after, before_any;  // per lane: a request numbered below it
    integer i;
    always @* begin
        for (i = 0; i < LANES; i = i + 1) begin
            before_after[i] = |(after & ((1 << i) - 1));
            before_any[i] = |(want & ((1 << i) - 1));
        end
    end
    wire some_after = |after;
    assign found = |want;
    assign grant = some_after ? after & ~before_after : want & ~before_any;
    assign grant_above = some_after ? before_after : before_any;
endmodule
