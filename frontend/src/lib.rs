//! dpnc frontend: C subset → polyhedral model (SCoP) → exact dataflow (SARE).
//!
//! Pipeline inside this crate: [`preprocess`] (tokens with spans) → [`parser`] (AST of the
//! kernel) → [`scop`] (iterators, parameters, affine domains and accesses, typed bodies) →
//! [`polyhedral`] (isl notation) → [`dataflow`] (`compute_flow`, the [`Sare`]). Alongside:
//! [`interp`], the reference interpreter (ground truth), and [`sare_eval`], which executes
//! the SARE itself to prove the dataflow exact. Start reading at [`load`].

pub mod ast;
pub mod bounds;
mod callsite;
pub mod dataflow;
pub mod diag;
pub mod eval;
pub mod interp;
pub mod ir;
pub mod lexer;
pub mod mathlib;
pub mod npy;
pub mod parser;
pub mod polyhedral;
pub mod preprocess;
pub mod qrel;
pub mod sare_eval;
pub mod scop;
pub mod source;
pub mod store;
pub mod token;
pub mod value;

pub use dataflow::Sare;
pub use diag::Diagnostic;
pub use ir::Program;
pub use source::SourceMap;
pub use store::Store;

use std::path::{Path, PathBuf};

/// How to read a kernel: the C compiler flags that matter, and which function.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `-I DIR`
    pub include_dirs: Vec<PathBuf>,
    /// `-D NAME[=VALUE]`
    pub defines: Vec<(String, Option<String>)>,
    /// `--kernel NAME`: the function to compile when there is no `#pragma scop`.
    pub kernel: Option<String>,
    /// `--param NAME=VALUE`: values for size parameters, overriding the call in `main`.
    pub params: Vec<(String, i64)>,
}

/// Reads, preprocesses, parses and analyses the kernel in `path`.
pub fn load(sm: &mut SourceMap, path: &Path, opts: &Options) -> Result<Program, Diagnostic> {
    let file = sm.load(path).map_err(|e| Diagnostic::global(format!("cannot read {}: {e}", path.display())))?;
    analyse(sm, file, opts)
}

/// Like [`load`], for source text in memory.
pub fn load_str(sm: &mut SourceMap, name: &str, text: &str, opts: &Options) -> Result<Program, Diagnostic> {
    let file = sm.add(name, text);
    analyse(sm, file, opts)
}

fn analyse(sm: &mut SourceMap, file: source::FileId, opts: &Options) -> Result<Program, Diagnostic> {
    let pp = preprocess::PpOptions { include_dirs: opts.include_dirs.clone(), defines: opts.defines.clone() };
    let tokens = preprocess::preprocess(sm, file, &pp)?;
    let unit = parser::parse_unit(&tokens, opts.kernel.as_deref())?;
    let program = scop::analyse(&unit, &opts.params)?;
    bounds::check(&program)?;
    Ok(program)
}
