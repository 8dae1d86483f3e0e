// Splits (address, beats) commands into AXI4 INCR bursts of at most MAX_BURST beats that never cross a 4 KiB boundary.
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
    localparam [31:0] MB32 = MAX_BURST;
    localparam [BEATS_W-1:0] MB = MB32[BEATS_W-1:0];

    reg               active;
    reg [63:0]        addr;
    reg [BEATS_W-1:0] rem;

    // Beats left before the next 4 KiB boundary: 1 .. 4096/(DW/8).
    wire [12:0] page_left = (13'h1000 - {1'b0, addr[11:0]}) >> SZ;
    wire        rem_big = rem > MB;
    wire [12:0] rem_clip = rem_big ? MB[12:0] : rem[12:0];
    wire [12:0] beats = (rem_clip < page_left) ? rem_clip : page_left;

    assign burst_valid = active;
    assign burst_addr = addr;
    assign burst_beats = beats[8:0];
    assign burst_last = !rem_big && (rem[12:0] <= page_left);
    assign cmd_ready = !active || (burst_ready && burst_last);

    always @(posedge clk) begin
        if (rst) begin
            active <= 1'b0;
            addr <= 64'd0;
            rem <= {BEATS_W{1'b0}};
        end else if (cmd_valid && cmd_ready) begin
            active <= (cmd_beats != {BEATS_W{1'b0}});
            addr <= cmd_addr;
            rem <= cmd_beats;
        end else if (burst_valid && burst_ready) begin
            addr <= addr + ({51'd0, beats} << SZ);
            rem <= rem - {{(BEATS_W - 13){1'b0}}, beats};
            if (burst_last) active <= 1'b0;
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
