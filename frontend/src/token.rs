//! Tokens shared by the lexer, the preprocessor and the parser.

use crate::source::Span;

#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind {
    Ident(String),
    /// Integer literal as written (suffixes `u`, `l`, `ll` kept in the text).
    Int(String),
    /// Floating literal as written (suffix `f`/`F`/`l`/`L` kept in the text).
    Float(String),
    /// String literal, including the quotes.
    Str(String),
    /// Character literal, including the quotes.
    Char(String),
    /// Operator or punctuator, e.g. `+=`, `[`, `...`, `#`, `##`.
    Punct(String),
    /// A `#pragma` line that survived preprocessing, with the text after `pragma`, trimmed
    /// (`"scop"`, `"endscop"`, …). The parser uses it to find the kernel region.
    Pragma(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub kind: TokenKind,
    /// For tokens produced by macro expansion: the span of the macro *invocation* in the
    /// file that used it, so diagnostics point at the user's code.
    pub span: Span,
}

impl Token {
    pub fn is_punct(&self, p: &str) -> bool {
        matches!(&self.kind, TokenKind::Punct(q) if q == p)
    }
    pub fn is_ident(&self, name: &str) -> bool {
        matches!(&self.kind, TokenKind::Ident(q) if q == name)
    }
    /// The token as C source text.
    pub fn text(&self) -> String {
        match &self.kind {
            TokenKind::Ident(s)
            | TokenKind::Int(s)
            | TokenKind::Float(s)
            | TokenKind::Str(s)
            | TokenKind::Char(s)
            | TokenKind::Punct(s) => s.clone(),
            TokenKind::Pragma(s) => format!("#pragma {s}"),
        }
    }
}
