//! The reference interpreter executes kernels exactly as C does: every kernel of the test
//! set, compiled by gcc (no contraction, no fast-math) and run on the same inputs, gives the
//! same bits as the interpreter, in float and in double. `exp`, `pow`, `expf` and `powf` are
//! dpnc's own (frontend/src/mathlib.rs), as in every backend: the harness maps them to
//! the generated C of hls-emit/runtime/dpn_math.h.

use dpnc_frontend::ir::{ArgSlot, Program, VarKind};
use dpnc_frontend::{interp, Options, SourceMap, Store};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// A `main` that reads every array/scalar argument as raw bytes, calls the kernel, and
/// writes them back; the kernel file's own `main` is renamed away, its `exp`/`pow` calls go to
/// dpnc's functions (`<math.h>` first, so that the kernel's own include declares nothing more).
fn harness(p: &Program, kernel_file: &Path) -> String {
    let mut c = String::new();
    let _ = writeln!(c, "#include <stdio.h>\n#include <math.h>\n#include \"dpn_math.h\"");
    let _ = writeln!(c, "#define exp dpn_exp\n#define pow dpn_pow\n#define expf dpn_expf\n#define powf dpn_powf");
    let _ = writeln!(c, "#define main dpnc_original_main\n#include \"{}\"\n#undef main", kernel_file.display());
    let _ = writeln!(c, "int main(int argc, char **argv) {{\n  (void)argc;\n  FILE *in = fopen(argv[1], \"rb\"), *out = fopen(argv[2], \"wb\");\n  if (!in || !out) return 2;");
    for v in p.vars.iter().filter(|v| v.kind == VarKind::Argument) {
        let dims: String = v.dims.iter().map(|d| format!("[{d}]")).collect();
        let _ = writeln!(c, "  static {} {}{dims};", v.ty.c_name(), v.name);
        let _ = writeln!(c, "  if (fread(&{0}, sizeof {0}, 1, in) != 1) return 3;", v.name);
    }
    let args: Vec<String> = p
        .signature
        .iter()
        .map(|a| match a {
            ArgSlot::Param(i) => p.params[*i].value.expect("known").to_string(),
            ArgSlot::Var(i) => p.vars[*i].name.clone(),
        })
        .collect();
    let _ = writeln!(c, "  {}({});", p.kernel, args.join(", "));
    for v in p.vars.iter().filter(|v| v.kind == VarKind::Argument) {
        let _ = writeln!(c, "  fwrite(&{0}, sizeof {0}, 1, out);", v.name);
    }
    let _ = writeln!(c, "  fclose(out);\n  return 0;\n}}");
    c
}

fn bytes(p: &Program, s: &Store) -> Vec<u8> {
    let mut b = Vec::new();
    for (k, v) in p.vars.iter().enumerate().filter(|(_, v)| v.kind == VarKind::Argument) {
        for x in &s.data[k] {
            let bits = x.bits();
            b.extend_from_slice(&bits.to_le_bytes()[..v.ty.size()]);
        }
    }
    b
}

#[test]
fn interpreter_matches_gcc() {
    if Command::new("gcc").arg("--version").output().is_err() {
        panic!("gcc is required (scripts/setup.sh installs it)");
    }
    let tmp = std::env::temp_dir().join(format!("dpnc-gcc-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let files = dpnc_tests::kernels();
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hls-emit/runtime");
    let mut failures = Vec::new();
    for f in &files {
        for ty in ["double", "float"] {
            let mut sm = SourceMap::new();
            let opts = Options { defines: vec![("DATA_TYPE".into(), Some(ty.into()))], ..Options::default() };
            let p = dpnc_frontend::load(&mut sm, f, &opts).unwrap_or_else(|d| panic!("{}", d.render(&sm)));
            let stem = format!("{}_{ty}", f.file_stem().and_then(|s| s.to_str()).unwrap_or("k"));
            let src = tmp.join(format!("{stem}.c"));
            std::fs::write(&src, harness(&p, f)).expect("write harness");
            let exe = tmp.join(&stem);
            let cc = Command::new("gcc")
                .args(["-O1", "-ffp-contract=off", "-fno-fast-math", "-w", &format!("-DDATA_TYPE={ty}")])
                .arg(format!("-I{}", runtime.display()))
                .arg(&src)
                .arg("-o")
                .arg(&exe)
                .arg("-lm")
                .output()
                .expect("gcc runs");
            assert!(cc.status.success(), "{}: {}", f.display(), String::from_utf8_lossy(&cc.stderr));
            let inputs = Store::random(&p, 11);
            let (fin, fout) = (tmp.join(format!("{stem}.in")), tmp.join(format!("{stem}.out")));
            std::fs::write(&fin, bytes(&p, &inputs)).expect("write inputs");
            let st = Command::new(&exe).arg(&fin).arg(&fout).status().expect("runs");
            assert!(st.success(), "{} exited with {st}", exe.display());
            let mut mem = inputs.clone();
            interp::run(&p, &p.param_values().expect("values"), &mut mem).expect("interpreter");
            let want = std::fs::read(&fout).expect("outputs");
            if want != bytes(&p, &mem) {
                failures.push(format!("{} ({ty})", f.display()));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(failures.is_empty(), "interpreter differs from gcc on: {failures:?}");
}
