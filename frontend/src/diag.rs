//! Diagnostics: one error with its position, rendered the way C compilers do
//! (`file:line:col: error: …`, the source line, a caret under the culprit, a help line).

use crate::source::{SourceMap, Span};
use std::fmt::Write;

/// An error to show the user: a problem with the input program or the options, or an
/// internal fault of dpnc's met while compiling it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Where; `None` for errors about the command line or the whole file.
    pub span: Option<Span>,
    /// What is wrong, one sentence.
    pub message: String,
    /// What is accepted instead, or how to fix it.
    pub help: Option<String>,
    /// A fault of dpnc's own (a broken invariant, or isl failing on what dpnc gave it), not of
    /// the input: shown as an internal error that asks to be reported.
    pub internal: bool,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.internal {
            f.write_str("internal error: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diagnostic {}

impl Diagnostic {
    pub fn new(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { span: Some(span), message: message.into(), help: None, internal: false }
    }
    pub fn global(message: impl Into<String>) -> Diagnostic {
        Diagnostic { span: None, message: message.into(), help: None, internal: false }
    }
    /// An internal fault met at `span` (`None`: nowhere in particular).
    pub fn bug(span: Option<Span>, message: impl Into<String>) -> Diagnostic {
        Diagnostic { span, message: message.into(), help: None, internal: true }
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }
    /// `(path, line, col)` of the start of the span, 1-based.
    pub fn position(&self, sm: &SourceMap) -> Option<(String, usize, usize)> {
        let span = self.span?;
        let file = sm.get(span.file)?;
        let (line, col) = file.line_col(span.lo as usize);
        Some((file.path.display().to_string(), line, col))
    }
    /// An internal fault (a broken invariant of dpnc's), as opposed to a problem with the input.
    pub fn is_internal(&self) -> bool {
        self.internal
    }

    /// The full multi-line rendering.
    pub fn render(&self, sm: &SourceMap) -> String {
        let mut out = String::new();
        match self.span.and_then(|s| sm.get(s.file).map(|f| (s, f))) {
            Some((span, file)) => {
                let (line, col) = file.line_col(span.lo as usize);
                let _ = writeln!(out, "{}:{}:{}: error: {self}", file.path.display(), line, col);
                let text = file.line_text(line);
                let (_, end_col) = file.line_col(span.hi as usize);
                let width = if file.line_col(span.hi as usize).0 == line {
                    end_col.saturating_sub(col).max(1)
                } else {
                    text.chars().count().saturating_sub(col - 1).max(1)
                };
                let gutter = line.to_string().len();
                let _ = writeln!(out, "{:gutter$} |", "");
                let _ = writeln!(out, "{line} | {}", text.replace('\t', " "));
                let _ = writeln!(out, "{:gutter$} | {}{}", "", " ".repeat(col - 1), "^".repeat(width));
            }
            None => {
                let _ = writeln!(out, "error: {self}");
            }
        }
        if let Some(help) = &self.help {
            let _ = writeln!(out, "  = help: {help}");
        }
        if self.is_internal() {
            let _ =
                writeln!(out, "  = note: this is a bug in dpnc, not in the kernel; please report it with the kernel and the command line");
        }
        out
    }
}

pub type Result<T, E = Diagnostic> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_faults_say_they_are_bugs_and_user_errors_do_not() {
        let sm = SourceMap::new();
        let bug = Diagnostic::bug(None, "a value is loaded before it is stored").render(&sm);
        assert!(bug.starts_with("error: internal error: a value"), "{bug}");
        assert!(bug.contains("this is a bug in dpnc"), "{bug}");
        let user = Diagnostic::global("--param n is given twice (4 and 5)").render(&sm);
        assert!(!user.contains("bug"), "{user}");
        // The words alone do not make a fault dpnc's.
        let quoted = Diagnostic::global("internal error: quoted from the kernel's own message").render(&sm);
        assert!(!quoted.contains("bug"), "{quoted}");
    }
}
