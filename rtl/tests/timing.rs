//! `dpnc_rtl::timing` on a design whose depths are known: Yosys maps it (`synth_xilinx`, then
//! flattened) and each module's deepest path must be the one its logic implies.

use dpnc_rtl::synth::{yosys, Ask};
use dpnc_rtl::timing::delay::{period_needed, CARRY_ENTRY, CARRY_LINK, LUT, MUXF, NET};
use dpnc_rtl::timing::ModuleDepth;

/// A 64-input XOR between two registers (three LUT6 levels at best: 64 → 11 → 2 → 1), a
/// registered 32-bit adder in a submodule (a carry chain behind one LUT level), a register
/// feeding an output port directly, and a LUT RAM read by a registered address.
const DESIGN: &str = "
module adder(input clk, input [31:0] a, b, output reg [31:0] s);
  always @(posedge clk) s <= a + b;
endmodule
module lutram(input clk, input we, input [4:0] wa, ra, input [7:0] d, output reg [7:0] q);
  reg [7:0] m [0:31];
  reg [4:0] ra_q;
  always @(posedge clk) begin
    if (we) m[wa] <= d;
    ra_q <= ra;
    q <= m[ra_q];
  end
endmodule
module top(input clk, input we, input [4:0] wa, ra, input [7:0] d, input [63:0] x, input [31:0] a, b,
           output reg p, output [31:0] s, output [7:0] q, output reg [3:0] copy);
  reg [63:0] rx;
  reg [31:0] ra_, rb_;
  always @(posedge clk) begin rx <= x; p <= ^rx; ra_ <= a; rb_ <= b; copy <= rx[3:0]; end
  adder u(.clk(clk), .a(ra_), .b(rb_), .s(s));
  lutram r(.clk(clk), .we(we), .wa(wa), .ra(ra), .d(d), .q(q));
endmodule
";

fn row<'a>(rows: &'a [ModuleDepth], module: &str) -> &'a ModuleDepth {
    rows.iter().find(|r| r.module == module).unwrap_or_else(|| panic!("no row for {module}: {rows:#?}"))
}

#[test]
fn deepest_paths_are_what_the_logic_implies() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("timing");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("design.v");
    std::fs::write(&file, DESIGN).unwrap();
    let s = yosys(&dir, "top", &[file], Ask { per_module: false, timing: true }).unwrap_or_else(|e| panic!("{e}"));
    let rows = &s.paths;

    // The XOR tree: LUTs (some of whose levels Yosys builds from MUXF7/MUXF8 behind a LUT),
    // from rx's flip-flops to p's.
    let top = row(rows, "top");
    assert!((3..=6).contains(&top.depth.levels()) && top.depth.luts >= 2, "{top:?}");
    assert_eq!((top.depth.carries, top.depth.dsps), (0, 0), "{top:?}");
    assert!(top.from.starts_with("rx[") && top.from.contains("FDRE"), "{top:?}");
    assert!(top.to.contains("into FDRE D"), "{top:?}");
    // Its period: each LUT behind a net, each MUXF inside the slice.
    assert_eq!(top.depth.ps, period_needed(top.depth.luts * (NET + LUT) + top.depth.muxes * MUXF), "{top:?}");

    // The adder: its carry chain (32 bits: 8 CARRY4 or 4 CARRY8), from top's registers ra_ and
    // rb_ across the module boundary (named as the adder's ports, where the path is captured).
    let adder = row(rows, "adder");
    assert!(adder.depth.carries >= 4 && adder.depth.luts >= 1, "{adder:?}");
    assert!(adder.from.starts_with("u.") && adder.from.contains("FDRE Q"), "{adder:?}");
    // One chain: entered once, then linked (CARRY8 cells, or CARRY4 at half a link each).
    let chain = |link: u32| period_needed(adder.depth.luts * (NET + LUT) + CARRY_ENTRY + (adder.depth.carries - 1) * link);
    assert!([chain(CARRY_LINK), chain(CARRY_LINK.div_ceil(2))].contains(&adder.depth.ps), "{adder:?}");

    // The LUT RAM: its read (a LUT) between the address register and q's register; the write
    // side is captured by the RAM, not counted through it.
    let ram = row(rows, "lutram");
    assert!((1..=3).contains(&ram.depth.luts), "{ram:?}");
    assert_eq!(ram.depth.carries, 0, "{ram:?}");

    // Slowest first.
    assert!(rows.windows(2).all(|w| w[0].depth >= w[1].depth), "{rows:#?}");
}

/// A cell of the library alone (`dpnc synth-cell`): its ports registered, the clock enable
/// held, so that its own logic is a path between registers inside it.
#[test]
fn a_cell_alone_is_timed_between_its_registers() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("timing_cell");
    let s = dpnc_rtl::timing::cell::time_cell(&dir, "dpn_fmax", &[("LATENCY".into(), "1".into())], None).unwrap_or_else(|e| panic!("{e}"));
    // fmax: a magnitude comparison (a carry chain) and the choice, from the wrapper's input
    // registers into the cell's output register.
    let cell = row(&s.paths, "dpn_fmax");
    assert!(cell.depth.carries >= 1 && cell.depth.luts >= 1, "{cell:?}");
    assert!(cell.from.contains("FDRE Q") && cell.to.contains("into FDRE D"), "{cell:?}");
    assert!(s.total.luts > 0 && s.total.ffs >= 3 * 32, "{:?}", s.total);
    let e = dpnc_rtl::timing::cell::time_cell(&dir, "dpn_no_such_cell", &[], None).unwrap_err();
    assert!(e.contains("dpn_no_such_cell"), "{e}");
}
