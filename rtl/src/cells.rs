//! The cell library (`rtl/cells/`), compiled into dpnc: a design is written and simulated
//! with the cells of the binary that generated it, wherever that binary runs.

use std::path::Path;

/// Every cell: its path under `cells/` and its Verilog text.
pub const CELLS: &[(&str, &str)] = &[
    ("axi/dpn_axi_lite_ctrl.v", include_str!("../cells/axi/dpn_axi_lite_ctrl.v")),
    ("axi/dpn_axi_read.v", include_str!("../cells/axi/dpn_axi_read.v")),
    ("axi/dpn_axi_split.v", include_str!("../cells/axi/dpn_axi_split.v")),
    ("axi/dpn_axi_write.v", include_str!("../cells/axi/dpn_axi_write.v")),
    ("axi/dpn_read_lanes.v", include_str!("../cells/axi/dpn_read_lanes.v")),
    ("axi/dpn_round_robin.v", include_str!("../cells/axi/dpn_round_robin.v")),
    ("axi/dpn_write_lanes.v", include_str!("../cells/axi/dpn_write_lanes.v")),
    ("dpn_delay.v", include_str!("../cells/dpn_delay.v")),
    ("fp/dpn_f2f.v", include_str!("../cells/fp/dpn_f2f.v")),
    ("fp/dpn_f2i.v", include_str!("../cells/fp/dpn_f2i.v")),
    ("fp/dpn_fadd.v", include_str!("../cells/fp/dpn_fadd.v")),
    ("fp/dpn_fcmp.v", include_str!("../cells/fp/dpn_fcmp.v")),
    ("fp/dpn_fdiv.v", include_str!("../cells/fp/dpn_fdiv.v")),
    ("fp/dpn_fmax.v", include_str!("../cells/fp/dpn_fmax.v")),
    ("fp/dpn_fmin.v", include_str!("../cells/fp/dpn_fmin.v")),
    ("fp/dpn_fmul.v", include_str!("../cells/fp/dpn_fmul.v")),
    ("fp/dpn_fp_round.v", include_str!("../cells/fp/dpn_fp_round.v")),
    ("fp/dpn_fp_unpack.v", include_str!("../cells/fp/dpn_fp_unpack.v")),
    ("fp/dpn_fsqrt.v", include_str!("../cells/fp/dpn_fsqrt.v")),
    ("fp/dpn_i2f.v", include_str!("../cells/fp/dpn_i2f.v")),
    ("int/dpn_idiv.v", include_str!("../cells/int/dpn_idiv.v")),
    ("int/dpn_imul.v", include_str!("../cells/int/dpn_imul.v")),
    ("mem/dpn_fifo.v", include_str!("../cells/mem/dpn_fifo.v")),
    ("mem/dpn_fifo_keep.v", include_str!("../cells/mem/dpn_fifo_keep.v")),
    ("mem/dpn_fifo_ram.v", include_str!("../cells/mem/dpn_fifo_ram.v")),
    ("mem/dpn_fifo_reg.v", include_str!("../cells/mem/dpn_fifo_reg.v")),
    ("mem/dpn_ram_dp.v", include_str!("../cells/mem/dpn_ram_dp.v")),
    ("mem/dpn_scratchpad.v", include_str!("../cells/mem/dpn_scratchpad.v")),
];

/// The text of cell `name` (a path under `cells/`, e.g. `fp/dpn_fadd.v`).
pub fn text(name: &str) -> Result<&'static str, String> {
    CELLS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t).ok_or_else(|| format!("no cell `{name}` in dpnc's library"))
}

/// Where cell `name` goes in a design's directory: `cells/<name>`.
pub fn path(name: &str) -> String {
    format!("cells/{name}")
}

/// Writes cell `name` to its [`path`] under `dir`; returns that path.
pub fn write(dir: &Path, name: &str) -> Result<std::path::PathBuf, String> {
    let text = text(name)?;
    let path = dir.join(path(name));
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    /// The table holds every file of the library, so a new cell cannot be left out of it.
    #[test]
    fn every_cell_is_compiled_in() {
        let root = super::super::cells_dir();
        let mut on_disk = Vec::new();
        let mut dirs = vec![root.clone()];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).expect("cells dir") {
                let p = e.expect("entry").path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "v") {
                    on_disk.push(p.strip_prefix(&root).expect("under cells").to_string_lossy().replace('\\', "/"));
                }
            }
        }
        on_disk.sort();
        let table: Vec<String> = super::CELLS.iter().map(|(n, _)| n.to_string()).collect();
        assert_eq!(on_disk, table);
    }
}
