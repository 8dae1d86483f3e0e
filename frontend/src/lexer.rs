//! C lexer: one source file → preprocessing tokens with spans.
//!
//! Backslash-newline splices are removed before tokenising (translation phase 2), but every
//! token keeps the byte offsets of its *physical* characters, so a span always points at
//! real text in the file. Comments are whitespace; a block comment is a single space, so a
//! directive continues after a block comment that spans lines (as in C).
//!
//! A quote that never closes, and any character that starts no C token (`@`, `` ` ``, `$`, a
//! stray `\`, non-ASCII), becomes a one-character [`TokenKind::Punct`] instead of an error:
//! such text is legal inside groups skipped by `#if 0` and in `#error` messages (`don't`),
//! which only the preprocessor can tell apart. It reports them, through [`stray_message`],
//! once they reach its output.

use crate::diag::{Diagnostic, Result};
use crate::source::{FileId, SourceMap, Span};
use crate::token::{Token, TokenKind};

/// A token plus the layout facts the preprocessor needs: directives are recognised by a `#`
/// that starts a line, and stringification (`#x`) keeps single spaces between tokens.
#[derive(Clone, Debug, PartialEq)]
pub struct PpToken {
    pub tok: Token,
    /// First token on its (logical, i.e. spliced) line.
    pub line_start: bool,
    /// Whitespace or a comment precedes it on the same line.
    pub space_before: bool,
}

/// All C punctuators, longest first so that the first match is the longest one. Digraphs
/// (`<:` …) come with the spelling they stand for.
const PUNCTUATORS: &[(&str, &str)] = &[
    ("%:%:", "##"),
    ("...", "..."),
    ("<<=", "<<="),
    (">>=", ">>="),
    ("->", "->"),
    ("++", "++"),
    ("--", "--"),
    ("<<", "<<"),
    (">>", ">>"),
    ("<=", "<="),
    (">=", ">="),
    ("==", "=="),
    ("!=", "!="),
    ("&&", "&&"),
    ("||", "||"),
    ("+=", "+="),
    ("-=", "-="),
    ("*=", "*="),
    ("/=", "/="),
    ("%=", "%="),
    ("&=", "&="),
    ("^=", "^="),
    ("|=", "|="),
    ("##", "##"),
    ("<:", "["),
    (":>", "]"),
    ("<%", "{"),
    ("%>", "}"),
    ("%:", "#"),
    ("[", "["),
    ("]", "]"),
    ("(", "("),
    (")", ")"),
    ("{", "{"),
    ("}", "}"),
    (".", "."),
    ("&", "&"),
    ("*", "*"),
    ("+", "+"),
    ("-", "-"),
    ("~", "~"),
    ("!", "!"),
    ("/", "/"),
    ("%", "%"),
    ("<", "<"),
    (">", ">"),
    ("^", "^"),
    ("|", "|"),
    ("?", "?"),
    (":", ":"),
    (";", ";"),
    ("=", "="),
    (",", ","),
    ("#", "#"),
];

/// Lexes one file of the source map.
pub fn lex(sm: &SourceMap, file: FileId) -> Result<Vec<PpToken>> {
    let src = sm.get(file).ok_or_else(|| Diagnostic::bug(None, format!("no source file with id {}", file.0)))?;
    lex_text(&src.text, file)
}

/// Lexes `text` as if it were the contents of `file` (the preprocessor re-lexes pasted tokens).
pub(crate) fn lex_text(text: &str, file: FileId) -> Result<Vec<PpToken>> {
    Lexer::new(text, file).run()
}

/// For a token the lexer could only keep as a stray character: why it is not valid C.
pub(crate) fn stray_message(tok: &Token) -> Option<String> {
    let TokenKind::Punct(p) = &tok.kind else { return None };
    if PUNCTUATORS.iter().any(|(_, canon)| canon == p) {
        return None;
    }
    Some(match p.as_str() {
        "\"" | "'" => format!("missing terminating {p} character"),
        _ => format!("stray `{p}` in program"),
    })
}

struct Lexer {
    /// Length of the physical text.
    len: usize,
    /// The text with splices removed.
    bytes: Vec<u8>,
    /// Physical byte offset of each byte of `bytes`.
    offsets: Vec<usize>,
    pos: usize,
    file: FileId,
}

impl Lexer {
    fn new(text: &str, file: FileId) -> Lexer {
        let raw = text.as_bytes();
        let mut bytes = Vec::with_capacity(raw.len());
        let mut offsets = Vec::with_capacity(raw.len());
        // Editors on Windows may start a UTF-8 file with a byte-order mark; it is not text.
        let mut i = if raw.starts_with(b"\xef\xbb\xbf") { 3 } else { 0 };
        while i < raw.len() {
            if raw[i] == b'\\' {
                match (raw.get(i + 1), raw.get(i + 2)) {
                    (Some(b'\n'), _) => {
                        i += 2;
                        continue;
                    }
                    (Some(b'\r'), Some(b'\n')) => {
                        i += 3;
                        continue;
                    }
                    _ => {}
                }
            }
            bytes.push(raw[i]);
            offsets.push(i);
            i += 1;
        }
        Lexer { len: text.len(), bytes, offsets, pos: 0, file }
    }

    fn peek(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.pos + ahead).copied()
    }

    /// Span of the logical bytes `lo..hi` (non-empty).
    fn span(&self, lo: usize, hi: usize) -> Span {
        let start = self.offsets.get(lo).copied().unwrap_or(self.len);
        let end = self.offsets.get(hi.saturating_sub(1)).map_or(self.len, |&o| o + 1);
        Span::new(self.file, start, end.max(start))
    }

    fn run(mut self) -> Result<Vec<PpToken>> {
        let mut out = Vec::new();
        let mut line_start = true;
        let mut space_before = false;
        while let Some(c) = self.peek(0) {
            match c {
                b'\n' => {
                    line_start = true;
                    space_before = false;
                    self.pos += 1;
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                    space_before = true;
                    self.pos += 1;
                }
                b'/' if self.peek(1) == Some(b'/') => {
                    while self.peek(0).is_some_and(|c| c != b'\n') {
                        self.pos += 1;
                    }
                    space_before = true;
                }
                b'/' if self.peek(1) == Some(b'*') => {
                    let start = self.pos;
                    match self.bytes[start + 2..].windows(2).position(|w| w == b"*/") {
                        Some(k) => self.pos = start + 2 + k + 2,
                        None => {
                            return Err(Diagnostic::new(self.span(start, start + 2), "unterminated comment")
                                .with_help("a block comment started here is never closed with `*/`"))
                        }
                    }
                    space_before = true;
                }
                _ => {
                    let tok = self.token()?;
                    out.push(PpToken { tok, line_start, space_before });
                    line_start = false;
                    space_before = false;
                }
            }
        }
        Ok(out)
    }

    /// The logical text `lo..hi` (splices removed).
    fn slice(&self, lo: usize, hi: usize) -> String {
        String::from_utf8_lossy(&self.bytes[lo..hi]).into_owned()
    }

    fn token(&mut self) -> Result<Token> {
        let start = self.pos;
        let c = self.bytes[start];
        let kind = if c.is_ascii_alphabetic() || c == b'_' {
            while self.peek(0).is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') {
                self.pos += 1;
            }
            let prefix = &self.bytes[start..self.pos];
            match self.peek(0) {
                Some(q @ (b'"' | b'\'')) if matches!(prefix, b"L" | b"u" | b"U" | b"u8") => match self.quoted(start, q) {
                    Some(kind) => kind,
                    // A prefix whose quote never closes: keep the prefix as an identifier and
                    // let the quote become a stray token of its own.
                    None => TokenKind::Ident(self.slice(start, self.pos)),
                },
                _ => TokenKind::Ident(self.slice(start, self.pos)),
            }
        } else if c.is_ascii_digit() || (c == b'.' && self.peek(1).is_some_and(|d| d.is_ascii_digit())) {
            self.pp_number();
            let text = self.slice(start, self.pos);
            classify_number(&text).map_err(|msg| Diagnostic::new(self.span(start, self.pos), msg))?
        } else if c == b'"' || c == b'\'' {
            match self.quoted(start, c) {
                Some(kind) => kind,
                None => {
                    self.pos = start + 1;
                    TokenKind::Punct((c as char).to_string())
                }
            }
        } else if let Some((spelling, canon)) = PUNCTUATORS.iter().find(|(p, _)| self.bytes[start..].starts_with(p.as_bytes())) {
            self.pos += spelling.len();
            TokenKind::Punct(canon.to_string())
        } else {
            // A character that starts no token: take the whole (possibly multi-byte) character.
            let len = match c {
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf7 => 4,
                _ => 1,
            };
            self.pos = (start + len).min(self.bytes.len());
            TokenKind::Punct(self.slice(start, self.pos))
        };
        if let TokenKind::Char(text) = &kind {
            if text.find('\'').is_some_and(|q| text.len() == q + 2) {
                return Err(Diagnostic::new(self.span(start, self.pos), "empty character constant"));
            }
        }
        Ok(Token { kind, span: self.span(start, self.pos) })
    }

    /// Consumes a C99 pp-number: a digit (or `.` digit) followed by letters, digits, `_`, `.`
    /// and signed exponents. Validation happens afterwards, on the whole spelling.
    fn pp_number(&mut self) {
        self.pos += 1;
        while let Some(c) = self.peek(0) {
            if matches!(c, b'e' | b'E' | b'p' | b'P') && matches!(self.peek(1), Some(b'+' | b'-')) {
                self.pos += 2;
            } else if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// Consumes a string or character literal that began at `start` (with its encoding
    /// prefix, if any) and whose opening quote is at `self.pos`. `None`, with the position
    /// unchanged, if the literal is not closed on its line.
    fn quoted(&mut self, start: usize, quote: u8) -> Option<TokenKind> {
        let mut i = self.pos + 1;
        loop {
            match *self.bytes.get(i)? {
                b'\\' => i += 2,
                b'\n' => return None,
                c if c == quote => break,
                _ => i += 1,
            }
        }
        let text = self.slice(start, i + 1);
        self.pos = i + 1;
        Some(if quote == b'"' { TokenKind::Str(text) } else { TokenKind::Char(text) })
    }
}

/// Checks the spelling of a pp-number and says whether it is an integer or a floating literal.
/// The error is a sentence about what is wrong with it.
fn classify_number(text: &str) -> std::result::Result<TokenKind, String> {
    let bytes = text.as_bytes();
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        let digits = hex.bytes().take_while(u8::is_ascii_hexdigit).count();
        let suffix = &hex[digits..];
        if suffix.starts_with(['.', 'p', 'P']) {
            return Err(format!("hexadecimal floating constant `{text}` is not supported"));
        }
        if digits == 0 {
            return Err(format!("invalid hexadecimal constant `{text}`: no digits after `0x`"));
        }
        return check_int_suffix(text, suffix);
    }
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    let rest = &text[digits..];
    if rest.starts_with(['.', 'e', 'E']) {
        return check_float(text, digits);
    }
    if bytes[0] == b'0' {
        if let Some(bad) = text[..digits].chars().find(|c| !('0'..='7').contains(c)) {
            return Err(format!("invalid digit `{bad}` in octal constant `{text}`"));
        }
    }
    check_int_suffix(text, rest)
}

fn check_int_suffix(text: &str, suffix: &str) -> std::result::Result<TokenKind, String> {
    // `ll` must not mix cases; `u` may go before or after the length suffix.
    let valid = ["", "u", "l", "ll", "ul", "lu", "ull", "llu"].contains(&suffix.to_ascii_lowercase().as_str())
        && !suffix.contains("lL")
        && !suffix.contains("Ll");
    if valid {
        Ok(TokenKind::Int(text.to_string()))
    } else {
        Err(format!("invalid suffix `{suffix}` on integer constant `{text}`"))
    }
}

/// `text` starts with `int_digits` decimal digits followed by `.` or an exponent.
fn check_float(text: &str, int_digits: usize) -> std::result::Result<TokenKind, String> {
    let bytes = text.as_bytes();
    let mut i = int_digits;
    let mut mantissa_digits = int_digits;
    if bytes.get(i) == Some(&b'.') {
        i += 1;
        let frac = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        i += frac;
        mantissa_digits += frac;
    }
    if mantissa_digits == 0 {
        return Err(format!("invalid floating constant `{text}`"));
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        if exp == 0 {
            return Err(format!("exponent has no digits in floating constant `{text}`"));
        }
        i += exp;
    }
    match &text[i..] {
        "" | "f" | "F" | "l" | "L" => Ok(TokenKind::Float(text.to_string())),
        suffix => Err(format!("invalid suffix `{suffix}` on floating constant `{text}`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex_str(text: &str) -> Result<Vec<PpToken>> {
        let mut sm = SourceMap::new();
        let file = sm.add("t.c", text);
        lex(&sm, file)
    }

    fn kinds(text: &str) -> Vec<TokenKind> {
        lex_str(text).expect("lexes").into_iter().map(|t| t.tok.kind).collect()
    }

    fn texts(text: &str) -> Vec<String> {
        lex_str(text).expect("lexes").into_iter().map(|t| t.tok.text()).collect()
    }

    fn err(text: &str) -> Diagnostic {
        lex_str(text).expect_err("should fail")
    }

    use TokenKind::*;

    #[test]
    fn identifiers_and_keywords() {
        assert_eq!(kinds("int _a1 b_2"), vec![Ident("int".into()), Ident("_a1".into()), Ident("b_2".into())]);
    }

    #[test]
    fn integer_literals() {
        let ks = kinds("0 42 0x1F 0XabU 017 10u 10UL 10ll 10LLU 7lu");
        let expect = ["0", "42", "0x1F", "0XabU", "017", "10u", "10UL", "10ll", "10LLU", "7lu"];
        assert_eq!(ks, expect.iter().map(|s| Int(s.to_string())).collect::<Vec<_>>());
    }

    #[test]
    fn floating_literals() {
        let ks = kinds("1.0 .5 1e-3 1.5f 2.0L 3. 1E+10 6.02e23f");
        let expect = ["1.0", ".5", "1e-3", "1.5f", "2.0L", "3.", "1E+10", "6.02e23f"];
        assert_eq!(ks, expect.iter().map(|s| Float(s.to_string())).collect::<Vec<_>>());
    }

    #[test]
    fn bad_numbers_are_errors_at_the_number() {
        for (src, needle) in [
            ("x = 08;", "octal"),
            ("x = 12abc;", "suffix"),
            ("x = 1lL;", "suffix"),
            ("x = 1e;", "exponent"),
            ("x = 0x;", "hexadecimal"),
            ("x = 0x1p3;", "hexadecimal floating"),
            ("x = 1.5q;", "suffix"),
        ] {
            let e = err(src);
            assert!(e.message.contains(needle), "{src}: {}", e.message);
            let span = e.span.expect("has span");
            assert_eq!(span.lo, 4, "{src}");
            assert_eq!(&src[span.lo as usize..span.hi as usize], src[4..].trim_end_matches(';'));
        }
    }

    #[test]
    fn strings_and_chars_with_escapes() {
        let ks = kinds(r#""a\"b\\" 'x' '\'' '\n' L"w" u8"s" L'c' "" "%0.2lf ""#);
        assert_eq!(
            ks,
            vec![
                Str(r#""a\"b\\""#.into()),
                Char("'x'".into()),
                Char(r"'\''".into()),
                Char(r"'\n'".into()),
                Str(r#"L"w""#.into()),
                Str(r#"u8"s""#.into()),
                Char("L'c'".into()),
                Str(r#""""#.into()),
                Str(r#""%0.2lf ""#.into()),
            ]
        );
    }

    #[test]
    fn empty_char_constant_is_an_error() {
        let e = err("c = '';");
        assert!(e.message.contains("empty character constant"));
        assert_eq!(e.span.map(|s| (s.lo, s.hi)), Some((4, 6)));
    }

    #[test]
    fn unterminated_quotes_become_stray_tokens() {
        let toks = lex_str("don't\n\"open").expect("lexes");
        let got: Vec<_> = toks.iter().map(|t| t.tok.text()).collect();
        assert_eq!(got, vec!["don", "'", "t", "\"", "open"]);
        assert_eq!(stray_message(&toks[1].tok).as_deref(), Some("missing terminating ' character"));
        assert_eq!(stray_message(&toks[3].tok).as_deref(), Some("missing terminating \" character"));
        assert_eq!(stray_message(&toks[0].tok), None);
    }

    #[test]
    fn stray_characters() {
        let toks = lex_str("a @ é $").expect("lexes");
        let got: Vec<_> = toks.iter().map(|t| t.tok.text()).collect();
        assert_eq!(got, vec!["a", "@", "é", "$"]);
        assert_eq!(stray_message(&toks[2].tok).as_deref(), Some("stray `é` in program"));
        assert_eq!((toks[2].tok.span.lo, toks[2].tok.span.hi), (4, 6));
        assert_eq!(stray_message(&Token { kind: Punct("<<=".into()), span: Span::default() }), None);
    }

    #[test]
    fn punctuators_longest_match() {
        assert_eq!(
            texts("a...b<<=c>>=d->e++--<<>><=>===!=&&||+=-=*=/=%=&=^=|=##:#.."),
            vec![
                "a", "...", "b", "<<=", "c", ">>=", "d", "->", "e", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=",
                "*=", "/=", "%=", "&=", "^=", "|=", "##", ":", "#", ".", "."
            ]
        );
        assert_eq!(texts("x+++y"), vec!["x", "++", "+", "y"]);
        assert_eq!(texts("[](){}&*+-~!/%<>^|?:;=,"), "[ ] ( ) { } & * + - ~ ! / % < > ^ | ? : ; = ,".split(' ').collect::<Vec<_>>());
    }

    #[test]
    fn digraphs_are_spelled_as_what_they_stand_for() {
        assert_eq!(texts("<: :> <% %> %: %:%:"), vec!["[", "]", "{", "}", "#", "##"]);
    }

    #[test]
    fn comments_are_whitespace() {
        let toks = lex_str("a/* x\n y */b // c\nd").expect("lexes");
        let got: Vec<_> = toks.iter().map(|t| t.tok.text()).collect();
        assert_eq!(got, vec!["a", "b", "d"]);
        // The block comment is one space: `b` continues the first line.
        assert!(toks[1].space_before && !toks[1].line_start);
        assert!(toks[2].line_start);
        assert_eq!(texts("a/**/b"), vec!["a", "b"]);
        assert_eq!(texts("a / b"), vec!["a", "/", "b"]);
    }

    #[test]
    fn unterminated_block_comment_points_at_its_start() {
        let e = err("int x; /* never\nclosed");
        assert!(e.message.contains("unterminated comment"));
        assert_eq!(e.span.map(|s| (s.lo, s.hi)), Some((7, 9)));
    }

    #[test]
    fn line_start_and_space_before() {
        let toks = lex_str("# define X 1\n  #x\ny(z)").expect("lexes");
        let flags: Vec<_> = toks.iter().map(|t| (t.tok.text(), t.line_start, t.space_before)).collect();
        assert_eq!(
            flags,
            vec![
                ("#".into(), true, false),
                ("define".into(), false, true),
                ("X".into(), false, true),
                ("1".into(), false, true),
                ("#".into(), true, true),
                ("x".into(), false, false),
                ("y".into(), true, false),
                ("(".into(), false, false),
                ("z".into(), false, false),
                (")".into(), false, false),
            ]
        );
    }

    #[test]
    fn line_continuation_splices_tokens_but_spans_stay_physical() {
        let src = "#define A 1 + \\\n 2\nin\\\nt x;";
        let toks = lex_str(src).expect("lexes");
        let got: Vec<_> = toks.iter().map(|t| t.tok.text()).collect();
        assert_eq!(got, vec!["#", "define", "A", "1", "+", "2", "int", "x", ";"]);
        assert!(!toks[5].line_start, "a spliced newline does not start a line");
        assert!(toks[6].line_start);
        let int = &toks[6].tok.span;
        assert_eq!(&src[int.lo as usize..int.hi as usize], "in\\\nt");
        let two = &toks[5].tok.span;
        assert_eq!(&src[two.lo as usize..two.hi as usize], "2");
        // Splices inside comments and with CRLF line ends.
        assert_eq!(texts("// comment \\\n still comment\nx"), vec!["x"]);
        assert_eq!(texts("a\\\r\nb"), vec!["ab"]);
    }

    #[test]
    fn byte_order_mark_is_skipped() {
        let toks = lex_str("\u{feff}#define X").expect("lexes");
        assert!(toks[0].tok.is_punct("#") && toks[0].line_start);
        assert_eq!(toks[0].tok.span.lo, 3);
    }

    #[test]
    fn spans_are_byte_offsets() {
        let src = "int  abc = 0x10;";
        let toks = lex_str(src).expect("lexes");
        let spans: Vec<_> = toks.iter().map(|t| &src[t.tok.span.lo as usize..t.tok.span.hi as usize]).collect();
        assert_eq!(spans, vec!["int", "abc", "=", "0x10", ";"]);
        assert!(toks.iter().all(|t| t.tok.span.file == FileId(0)));
    }

    #[test]
    fn unknown_file_id_is_an_error_not_a_panic() {
        let sm = SourceMap::new();
        assert!(lex(&sm, FileId(3)).is_err());
    }
}
