// Round-robin choice among LANES requesters: the first one after `last` (the one served last)
// whose `want` bit is set, searching in order and wrapping around.
module dpn_round_robin #(
    parameter LANES = 2,
    parameter LB = LANES > 1 ? $clog2(LANES) : 1  // bits of a lane's number (left as it is)
) (
    input  wire [LANES-1:0] want,
    input  wire [LB-1:0]    last,
    output reg              found,
    output reg  [LB-1:0]    pick
);
    localparam [31:0] LANES32 = LANES;
    localparam [LB:0] LANES_C = LANES32[LB:0];
    reg [LB:0] at;
    integer i;
    always @* begin
        found = 1'b0;
        pick = {LB{1'b0}};
        at = {1'b0, last};
        for (i = 0; i < LANES; i = i + 1) begin
            at = at + 1'b1 == LANES_C ? {(LB + 1){1'b0}} : at + 1'b1;
            if (!found && want[at[LB-1:0]]) begin
                found = 1'b1;
                pick = at[LB-1:0];
            end
        end
    end
endmodule
