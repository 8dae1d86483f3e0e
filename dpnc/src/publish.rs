//! Writing an output directory whole or not at all. Everything goes into a fresh directory
//! beside the target, which replaces the target only once it is complete: a failure or an
//! interrupted run leaves the previous output (or nothing), never a mix of two runs or a
//! half-written tree. A directory that dpnc wrote carries a manifest of its files; a target
//! that holds anything else is refused unless the user asks to replace it.

use std::path::{Path, PathBuf};

/// The file naming what dpnc wrote in a directory.
const MANIFEST: &str = ".dpnc-manifest";

/// Writes `target` through `fill`, which writes into the directory it is given; `replace`
/// allows replacing a directory that dpnc did not write.
pub(crate) fn publish(target: &Path, replace: bool, fill: impl FnOnce(&Path) -> Result<(), String>) -> Result<(), String> {
    check_target(target, replace)?;
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|e| format!("cannot write {}: cannot create {}: {e}", target.display(), parent.display()))?;
    let name = target.file_name().map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let staging = parent.join(format!(".{name}.dpnc-new-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir(&staging)
        .map_err(|e| format!("cannot write {}: cannot create {} beside it: {e}", target.display(), staging.display()))?;
    let written = fill(&staging).and_then(|()| write_manifest(&staging));
    if let Err(e) = written {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    let old = parent.join(format!(".{name}.dpnc-old-{}", std::process::id()));
    if target.exists() {
        std::fs::rename(target, &old).map_err(|e| {
            let _ = std::fs::remove_dir_all(&staging);
            format!("cannot move the previous {} aside: {e}", target.display())
        })?;
    }
    if let Err(e) = std::fs::rename(&staging, target) {
        // Put the previous output back: it is still complete.
        let _ = std::fs::rename(&old, target);
        let _ = std::fs::remove_dir_all(&staging);
        return Err(format!("cannot move the new output into {}: {e}", target.display()));
    }
    let _ = std::fs::remove_dir_all(&old);
    Ok(())
}

/// A target may be absent, an empty directory, or a directory with dpnc's manifest (then its
/// build products go with it); anything else only with `replace`.
fn check_target(target: &Path, replace: bool) -> Result<(), String> {
    if !target.exists() {
        return Ok(());
    }
    if !target.is_dir() {
        return Err(format!("{} exists and is not a directory", target.display()));
    }
    let entries: Vec<String> = std::fs::read_dir(target)
        .map_err(|e| format!("cannot read {}: {e}", target.display()))?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    if entries.is_empty() || replace || entries.iter().any(|e| e == MANIFEST) {
        return Ok(());
    }
    let mut shown: Vec<&str> = entries.iter().map(String::as_str).collect();
    shown.sort_unstable();
    let more = if shown.len() > 5 { format!(" and {} more", shown.len() - 5) } else { String::new() };
    shown.truncate(5);
    Err(format!(
        "{} holds files that dpnc did not write ({}{more}); choose another directory, or pass --force to replace it whole",
        target.display(),
        shown.join(", ")
    ))
}

/// Lists every file under `dir` (relative, sorted) in its manifest.
fn write_manifest(dir: &Path) -> Result<(), String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<(), String> {
        for e in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?.flatten() {
            let path = e.path();
            if path.is_dir() {
                walk(root, &path, out)?;
            } else if let Ok(rel) = path.strip_prefix(root) {
                out.push(rel.to_string_lossy().into_owned());
            }
        }
        Ok(())
    }
    let mut files = Vec::new();
    walk(dir, dir, &mut files)?;
    files.sort();
    let text = format!(
        "# written by dpnc {}; this directory is replaced whole by the next run\n{}\n",
        env!("CARGO_PKG_VERSION"),
        files.join("\n")
    );
    std::fs::write(dir.join(MANIFEST), text).map_err(|e| format!("{}: {e}", dir.join(MANIFEST).display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("dpnc-publish-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("tmp");
        d
    }

    fn write(dir: &Path, name: &str) -> Result<(), String> {
        std::fs::write(dir.join(name), name).map_err(|e| e.to_string())
    }

    #[test]
    fn a_second_run_replaces_the_first_whole() {
        let root = tmp("replace");
        let out = root.join("out");
        publish(&out, false, |d| write(d, "a.v").and_then(|()| write(d, "b.v"))).expect("first");
        std::fs::write(out.join("built-by-make.o"), "x").expect("a build product");
        publish(&out, false, |d| write(d, "a.v")).expect("second");
        assert!(out.join("a.v").exists());
        assert!(!out.join("b.v").exists(), "a stale file of the first run survived");
        assert!(!out.join("built-by-make.o").exists());
        let manifest = std::fs::read_to_string(out.join(MANIFEST)).expect("manifest");
        assert!(manifest.lines().any(|l| l == "a.v") && !manifest.contains("b.v"), "{manifest}");
        // Nothing is left beside it.
        let beside: Vec<_> = std::fs::read_dir(&root).expect("root").flatten().map(|e| e.file_name()).collect();
        assert_eq!(beside, vec![std::ffi::OsString::from("out")]);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_failure_keeps_the_previous_output() {
        let root = tmp("failure");
        let out = root.join("out");
        publish(&out, false, |d| write(d, "a.v")).expect("first");
        let e = publish(&out, false, |d| write(d, "half.v").and_then(|()| Err("generation failed".into()))).expect_err("fails");
        assert_eq!(e, "generation failed");
        assert!(out.join("a.v").exists() && !out.join("half.v").exists());
        let fresh = root.join("fresh");
        publish(&fresh, false, |_| Err("no".into())).expect_err("fails");
        assert!(!fresh.exists(), "a failed first run left a directory");
        assert_eq!(std::fs::read_dir(&root).expect("root").count(), 1, "a staging directory was left behind");
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_directory_of_the_users_is_refused_unless_replaced() {
        let root = tmp("foreign");
        let out = root.join("mine");
        std::fs::create_dir_all(&out).expect("mkdir");
        std::fs::write(out.join("notes.txt"), "keep me").expect("write");
        let e = publish(&out, false, |d| write(d, "a.v")).expect_err("refused");
        assert!(e.contains("notes.txt") && e.contains("--force"), "{e}");
        assert!(out.join("notes.txt").exists() && !out.join("a.v").exists());
        publish(&out, true, |d| write(d, "a.v")).expect("replaced");
        assert!(out.join("a.v").exists() && !out.join("notes.txt").exists());
        let _ = std::fs::remove_dir_all(&root);
    }
}
