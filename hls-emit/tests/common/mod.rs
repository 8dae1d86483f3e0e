//! What the runtime tests share: a clean work directory per run, and running a test program
//! with its output in files (no pipe can fill up), killed if it outlives [`RUN_LIMIT`].

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Any single run longer than this is a hang (the deadlock modes end after about 1 s).
pub const RUN_LIMIT: Duration = Duration::from_secs(180);

/// `CARGO_TARGET_TMPDIR/group/name`, emptied.
pub fn work_dir(group: &str, name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(group).join(name);
    if dir.exists() {
        fs::remove_dir_all(&dir).unwrap_or_else(|e| panic!("cannot clear {}: {e}", dir.display()));
    }
    fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `exe` with `args` in `dir`, without DPN_TIMEOUT unless `env` sets it.
pub fn run_in(exe: &Path, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let (out_path, err_path) = (dir.join("stdout.txt"), dir.join("stderr.txt"));
    let mut cmd = Command::new(exe);
    cmd.args(args)
        .current_dir(dir)
        .env_remove("DPN_TIMEOUT")
        .stdin(Stdio::null())
        .stdout(fs::File::create(&out_path).unwrap())
        .stderr(fs::File::create(&err_path).unwrap());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > RUN_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{} {args:?} still running after {RUN_LIMIT:?}; output so far:\n{}\n{}",
                exe.display(),
                fs::read_to_string(&out_path).unwrap_or_default(),
                fs::read_to_string(&err_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        code: status.code(),
        stdout: fs::read_to_string(&out_path).unwrap_or_default(),
        stderr: fs::read_to_string(&err_path).unwrap_or_default(),
    }
}

pub fn assert_contains(r: &Run, needles: &[&str]) {
    for n in needles {
        assert!(r.stderr.contains(n), "stderr lacks {n:?}; stderr was:\n{}\nstdout was:\n{}", r.stderr, r.stdout);
    }
}
