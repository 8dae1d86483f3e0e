// Splits (address, beats) commands into AXI4 INCR bursts of at most MAX_BURST beats that never cross a 4 KiB boundary.
// A command waits a cycle in a register of its own before its first burst is offered; the
// bursts of a command follow one a cycle, and a command's first burst follows its predecessor's
// last without a gap. Every burst output is a register: each burst's length, whether it is
// its command's last, and what the next burst would be are worked out a cycle ahead, so that
// no comparison of the remainder or of the room left in the page lies between burst_ready and
// a register.
module dpn_axi_split #(
    parameter DW = 512,        // beat width in bits (a power of two, 8..1024)
    parameter MAX_BURST = 64,  // 1..256 beats
    parameter BEATS_W = 32     // width of cmd_beats, 14..32
) (
    input  wire               clk,
    input  wire               rst,
    input  wire               cmd_valid,
    output wire               cmd_ready,
    input  wire [63:0]        cmd_addr,   // byte address, aligned to DW/8
    input  wire [BEATS_W-1:0] cmd_beats,  // number of beats; 0 is accepted and ignored
    output wire               burst_valid,
    input  wire               burst_ready,
    output wire [63:0]        burst_addr,
    output wire [8:0]         burst_beats,  // 1..MAX_BURST (AXI len + 1)
    output wire               burst_last    // the command's last burst
);
    localparam SZ = $clog2(DW / 8);
    localparam [31:0] PAGE = 4096 / (DW / 8);  // beats in a 4 KiB page, 32..4096
    localparam [31:0] MB32 = MAX_BURST;
    localparam [31:0] MB2_32 = 2 * MB32;
    // A burst that starts at page offset `off` (in beats) has PAGE - off beats of room: more
    // than MAX_BURST where off < PAGE - MAX_BURST (never where a page holds no more).
    localparam [31:0] PM32 = PAGE > MB32 ? PAGE - MB32 : 0;
    localparam [31:0] PM2_32 = PAGE > MB2_32 ? PAGE - MB2_32 : 0;
    localparam [12:0] PAGE_C = PAGE[12:0];
    localparam [12:0] MB_C = MB32[12:0];
    localparam [12:0] MB2_C = MB2_32[12:0];
    localparam [12:0] PM_C = PM32[12:0];
    localparam [12:0] PM2_C = PM2_32[12:0];
    localparam        FULL_G = PAGE > MB32;  // a burst that starts a page is cut by MAX_BURST

    // A burst's room: `pl` beats to the page's end, and its clip `c` = min(MAX_BURST, pl), the
    // beats of every burst but a command's last. Each burst that is not the last ends at its
    // clip, so the next one starts with pl - MAX_BURST (where pl > MAX_BURST) or a whole page.
    // `g`: pl > MAX_BURST.

    // The command waiting: its address and beats, its first burst's clip, and the second's room.
    reg               a_valid;
    reg [63:0]        a_addr;
    reg [BEATS_W-1:0] a_beats;
    reg [8:0]         a_c0, a_c1;
    reg [12:0]        a_pl1;
    reg               a_g1;

    // The burst offered (addr, beats, last), the beats of the command after it (rem), and the
    // room of the burst after it (cn = its clip, pln, gn).
    reg               b_valid;
    reg [63:0]        addr;
    reg [8:0]         beats;
    reg               last;
    reg [BEATS_W-1:0] rem;
    reg [8:0]         cn;
    reg [12:0]        pln;
    reg               gn;

    assign burst_valid = b_valid;
    assign burst_addr = addr;
    assign burst_beats = beats;
    assign burst_last = last;

    // The burst registers move when the burst offered is taken or none is. They take the
    // waiting command where no burst of a command is left (a choice made from registers alone,
    // so burst_ready is only their enable).
    wire move = !b_valid || burst_ready;
    wire fresh = !b_valid || last;
    assign cmd_ready = !a_valid || (move && fresh);

    // The command coming in: its page offset in beats, its first two bursts' room.
    wire [12:0] off = {1'b0, cmd_addr[11:0]} >> SZ;
    /* verilator lint_off UNSIGNED */  // PM_C and PM2_C are 0 where a page holds no more than MAX_BURST
    wire        g0 = off < PM_C;
    wire [8:0]  pl0 = PAGE_C[8:0] - off[8:0];  // used where it is at most MAX_BURST
    wire [12:0] pl1 = g0 ? PM_C - off : PAGE_C;
    wire        g1 = g0 ? off < PM2_C : FULL_G;
    /* verilator lint_on UNSIGNED */
    wire [8:0]  c0 = g0 ? MB_C[8:0] : pl0;
    wire [8:0]  c1 = g1 ? MB_C[8:0] : pl1[8:0];

    // The waiting command's first burst.
    wire              a_le = a_beats <= {{(BEATS_W - 9){1'b0}}, a_c0};
    wire [8:0]        a_first = a_le ? a_beats[8:0] : a_c0;
    wire [BEATS_W-1:0] a_rem = a_beats - {{(BEATS_W - 9){1'b0}}, a_c0};
    // The burst after the one offered, in the same command.
    wire              n_le = rem <= {{(BEATS_W - 9){1'b0}}, cn};
    wire [8:0]        n_beats = n_le ? rem[8:0] : cn;
    wire [BEATS_W-1:0] n_rem = rem - {{(BEATS_W - 9){1'b0}}, cn};
    wire [63:0]       n_addr = addr + ({55'd0, beats} << SZ);
    wire [12:0]       n_pl = gn ? pln - MB_C : PAGE_C;
    wire              n_g = gn ? pln > MB2_C : FULL_G;
    wire [8:0]        n_c = n_g ? MB_C[8:0] : n_pl[8:0];

    // The two sources, AND-ORed with copies of `fresh` (a multiplexer would be moved in front
    // of the sums, after the choice).
    wire [63:0]        s_addr = ({64{fresh}} & a_addr) | ({64{!fresh}} & n_addr);
    wire [8:0]         s_beats = ({9{fresh}} & a_first) | ({9{!fresh}} & n_beats);
    wire               s_last = fresh ? a_le : n_le;
    wire [BEATS_W-1:0] s_rem = ({BEATS_W{fresh}} & a_rem) | ({BEATS_W{!fresh}} & n_rem);
    wire [8:0]         s_cn = ({9{fresh}} & a_c1) | ({9{!fresh}} & n_c);
    wire [12:0]        s_pln = ({13{fresh}} & a_pl1) | ({13{!fresh}} & n_pl);
    wire               s_gn = fresh ? a_g1 : n_g;

    wire accept = cmd_valid && cmd_ready;
    always @(posedge clk) begin
        if (rst) begin
            a_valid <= 1'b0;
        end else begin
            if (accept) a_valid <= (cmd_beats != {BEATS_W{1'b0}});
            else if (move && fresh) a_valid <= 1'b0;
        end
        if (accept) begin
            a_addr <= cmd_addr;
            a_beats <= cmd_beats;
            a_c0 <= c0;
            a_c1 <= c1;
            a_pl1 <= pl1;
            a_g1 <= g1;
        end
    end
    always @(posedge clk) begin
        if (rst) begin
            b_valid <= 1'b0;
            addr <= 64'd0;
            beats <= 9'd0;
            last <= 1'b0;
            rem <= {BEATS_W{1'b0}};
            cn <= 9'd0;
            pln <= 13'd0;
            gn <= 1'b0;
        end else if (move) begin
            b_valid <= !fresh || a_valid;
            addr <= s_addr;
            beats <= s_beats;
            last <= s_last;
            rem <= s_rem;
            cn <= s_cn;
            pln <= s_pln;
            gn <= s_gn;
        end
    end

`ifndef SYNTHESIS
    always @(posedge clk) begin
        if (!rst && cmd_valid && cmd_ready && (cmd_addr & ~({64{1'b1}} << SZ)) != 64'd0) begin
            $display("dpn_axi_split: command address %h not aligned to %0d bytes", cmd_addr, DW / 8);
            $stop;
        end
    end
`endif
endmodule
