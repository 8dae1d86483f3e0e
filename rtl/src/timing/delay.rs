//! A path's delay on UltraScale+, estimated from the cells it crosses. Yosys maps to the
//! UltraScale+ primitives but knows none of their delays, and Xilinx's data sheets (DS922,
//! DS923) give none for a LUT, a carry chain or a net; Vivado's speed files do, and its timing
//! reports print them. The figures below are what Vivado 2021.2 reports for an UltraScale+ part
//! at speed grade -1 (the slowest of the parts' grades, so an estimate that fits the period
//! at -1 fits it at -2) before placement, where it estimates each net; a routed net is rarely
//! shorter, so every net between slices is taken at the longest such estimate seen, rounded
//! up.

use super::Kind;

/// A flip-flop's clock to its output (`Prop_FDRE_C_Q`).
pub const CLOCK_TO_OUT: u32 = 93;
/// A flip-flop's setup before the capturing edge (`Setup_FDRE_C_D`).
pub const SETUP: u32 = 27;
/// Clock uncertainty of a clock made by an MMCM, as a Vitis platform's kernel clock is.
pub const UNCERTAINTY: u32 = 67;
/// A net from one slice to another (Vivado's estimates before placement: 161 to 293 ps, the
/// longest at the highest fan-outs).
pub const NET: u32 = 300;
/// A LUT, from its slowest input (`Prop_LUT6_I1_O`; LUT5 and LUT4 inputs take 40 to 122).
pub const LUT: u32 = 150;
/// A wide-function multiplexer behind a LUT of its own slice: the net inside the slice (25)
/// and the multiplexer (`Prop_MUXF7_I0_O`, 87).
pub const MUXF: u32 = 112;
/// A carry chain entered from a LUT or a register: the net to it, then data input to sum
/// output (`Prop_CARRY8_DI_O`, 189; to its carry output 148).
pub const CARRY_ENTRY: u32 = NET + 189;
/// A carry chain's next eight bits: the dedicated net (7) and carry in to carry out
/// (`Prop_CARRY8_CI_CO`, 30).
pub const CARRY_LINK: u32 = 37;
/// A DSP48E2 crossed without its output register: the slowest register-to-register path
/// through its multiplier that DS923 gives (the slice at 410 MHz without its `MREG` and
/// `ADREG`), which counts its own input and output registers and so errs long.
pub const DSP: u32 = NET + 2_439;

/// The delay a path gains by crossing a cell of `kind`, entered from a cell of kind `from`
/// (`None`: from a timing point, which launches the path).
pub fn through(kind: Kind, from: Option<Kind>) -> u32 {
    match kind {
        Kind::Lut => NET + LUT,
        Kind::Mux => MUXF,
        Kind::Carry if from == Some(Kind::Carry) => CARRY_LINK,
        Kind::Carry4 if matches!(from, Some(Kind::Carry | Kind::Carry4)) => CARRY_LINK.div_ceil(2),
        Kind::Carry | Kind::Carry4 => CARRY_ENTRY,
        Kind::Dsp => DSP,
        Kind::Wire => 0,
    }
}

/// The clock period a path needs whose logic and nets take `arrival` ps after the launching
/// edge: the launch, the net into the capturing cell, its setup and the clock's uncertainty.
pub fn period_needed(arrival: u32) -> u32 {
    CLOCK_TO_OUT + arrival + NET + SETUP + UNCERTAINTY
}

/// The clock period of `mhz`, in ps.
pub fn period_of(mhz: f64) -> u32 {
    (1e6 / mhz).floor() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_carry_chain_pays_its_entry_once() {
        let chain = through(Kind::Carry, Some(Kind::Lut)) + 3 * through(Kind::Carry, Some(Kind::Carry));
        assert_eq!(chain, CARRY_ENTRY + 3 * CARRY_LINK);
        // The same 32 bits in CARRY4 cells: twice as many, each half a CARRY8.
        let chain4 = through(Kind::Carry4, Some(Kind::Lut)) + 7 * through(Kind::Carry4, Some(Kind::Carry4));
        assert_eq!(chain4, CARRY_ENTRY + 7 * CARRY_LINK.div_ceil(2));
    }

    #[test]
    fn six_lut_levels_fit_300_mhz_and_seven_do_not() {
        let levels = |n: u32| period_needed(n * through(Kind::Lut, Some(Kind::Lut)));
        assert!(levels(6) <= period_of(300.0), "{}", levels(6));
        assert!(levels(7) > period_of(300.0), "{}", levels(7));
    }
}
