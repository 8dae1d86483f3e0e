//! The call that `main` (or another function) makes to the kernel: what its arguments tell
//! the frontend. An integer argument gives a size parameter its value only when that value is
//! certain: a constant expression, or a variable initialised with one and never written
//! again in the caller. An array argument is reduced to the variables it may point into, so
//! that arguments that may overlap are refused.
//!
//! This is a scan of the caller's tokens, not a parse: the caller may hold any C. It errs on
//! the side of "unknown" and "may overlap".

use crate::ast::{CallArg, CallSite};
use crate::parser::{matching, Parser, Typedefs, TYPE_WORDS};
use crate::source::Span;
use crate::token::{Token, TokenKind};

/// Operators that write their left operand.
const ASSIGNMENTS: &[&str] = &["=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="];

/// How many pointer copies (`double *p = A; double *q = p;`) are followed back.
const MAX_COPIES: usize = 16;

/// Finds `kernel(…)` in the body `body` of a caller and reads its arguments.
pub(crate) fn find_call(body: &[Token], kernel: &str, typedefs: &Typedefs) -> Option<CallSite> {
    let at = (0..body.len().saturating_sub(1)).find(|&k| body[k].is_ident(kernel) && body[k + 1].is_punct("("))?;
    let close = matching(body, at + 1).ok()?;
    let caller = Caller { body, typedefs };
    let args = split_args(&body[at + 2..close]).into_iter().map(|arg| caller.arg(at, arg)).collect();
    Some(CallSite { args, span: body[at].span })
}

/// The comma-separated arguments of a call (between its parentheses).
fn split_args(toks: &[Token]) -> Vec<&[Token]> {
    let mut args = Vec::new();
    let (mut start, mut depth) = (0, 0i32);
    for (k, t) in toks.iter().enumerate() {
        if t.is_punct("(") || t.is_punct("[") || t.is_punct("{") {
            depth += 1;
        } else if t.is_punct(")") || t.is_punct("]") || t.is_punct("}") {
            depth -= 1;
        } else if t.is_punct(",") && depth == 0 {
            args.push(&toks[start..k]);
            start = k + 1;
        }
    }
    if start < toks.len() {
        args.push(&toks[start..]);
    }
    args.retain(|a| !a.is_empty());
    args
}

/// One write to a variable in the caller.
struct Write {
    /// The token index of the variable.
    at: usize,
    /// For a plain `=`, the token range of its right-hand side.
    rhs: Option<std::ops::Range<usize>>,
}

struct Caller<'a> {
    body: &'a [Token],
    typedefs: &'a Typedefs,
}

impl Caller<'_> {
    fn arg(&self, call: usize, arg: &[Token]) -> CallArg {
        let span = Span { hi: arg[arg.len() - 1].span.hi, ..arg[0].span };
        let (value, rewritten) = match arg {
            [Token { kind: TokenKind::Ident(name), .. }] => self.variable_value(name, call),
            _ => (self.eval(arg), None),
        };
        let mut roots = Vec::new();
        if let Some(r) = self.root(arg) {
            self.roots_of(&r, &mut roots, 0);
        }
        CallArg { value, rewritten, roots, span }
    }

    /// The value of variable `name` at the call at token `call`: known when the caller writes
    /// it exactly once, with `=` and a constant, before the call. Otherwise the span of the
    /// write that makes it unknown, if any.
    fn variable_value(&self, name: &str, call: usize) -> (Option<i64>, Option<Span>) {
        match self.writes(name).as_slice() {
            [Write { at, rhs: Some(rhs) }] if *at < call => (self.eval(&self.body[rhs.clone()]), None),
            [] => (None, None),
            [only] => (None, Some(self.body[only.at].span)),
            [_, second, ..] => (None, Some(self.body[second.at].span)),
        }
    }

    /// Every write to `name` in the caller: assignments of any kind, `++` and `--` either
    /// side, and `&name` (a write may go through the pointer).
    fn writes(&self, name: &str) -> Vec<Write> {
        let b = self.body;
        let punct = |k: usize, ps: &[&str]| b.get(k).is_some_and(|t| ps.iter().any(|p| t.is_punct(p)));
        (0..b.len())
            .filter(|&k| b[k].is_ident(name))
            .filter_map(|k| {
                let before = k.checked_sub(1);
                let address_of = before.is_some_and(|p| b[p].is_punct("&") && !p.checked_sub(1).is_some_and(|q| ends_operand(&b[q])));
                // `double (*p)[N] = A;` declares and initialises a pointer.
                let mut next = k + 1;
                if before.is_some_and(|p| b[p].is_punct("*")) && punct(next, &[")"]) {
                    next += 1;
                    while punct(next, &["["]) {
                        next = matching(b, next).map_or(b.len(), |c| c + 1);
                    }
                }
                if punct(next, &["="]) {
                    let end = (next + 1..b.len()).find(|&e| b[e].is_punct(";") || b[e].is_punct(",")).unwrap_or(b.len());
                    Some(Write { at: k, rhs: Some(next + 1..end) })
                } else if punct(k + 1, ASSIGNMENTS)
                    || punct(k + 1, &["++", "--"])
                    || address_of
                    || before.is_some_and(|p| punct(p, &["++", "--"]))
                {
                    Some(Write { at: k, rhs: None })
                } else {
                    None
                }
            })
            .collect()
    }

    fn eval(&self, toks: &[Token]) -> Option<i64> {
        let mut p = Parser::over(toks, self.typedefs)?;
        let e = p.expr().ok()?;
        if !p.at_end() {
            return None;
        }
        crate::parser::const_int(&e, &|_| None)
    }

    /// The variable an expression points into: its first name outside subscripts that is
    /// neither a type nor a called function (`A`, `&A[1]`, `A + 1`, `(double *)A`, `*A`).
    /// `None` for a call (a fresh allocation) or an expression without a variable.
    fn root(&self, toks: &[Token]) -> Option<String> {
        let mut depth = 0i32;
        for (k, t) in toks.iter().enumerate() {
            if t.is_punct("[") {
                depth += 1;
            } else if t.is_punct("]") {
                depth -= 1;
            } else if let TokenKind::Ident(n) = &t.kind {
                if depth > 0 || TYPE_WORDS.contains(&n.as_str()) || self.typedefs.contains_key(n) {
                    continue;
                }
                if toks.get(k + 1).is_some_and(|t| t.is_punct("(")) {
                    return None;
                }
                return Some(n.clone());
            }
        }
        None
    }

    /// `name` and every variable that a pointer named `name` may have been copied from.
    fn roots_of(&self, name: &str, out: &mut Vec<String>, depth: usize) {
        if out.iter().any(|r| r == name) {
            return;
        }
        out.push(name.to_string());
        if depth == MAX_COPIES {
            return;
        }
        for w in self.writes(name) {
            if let Some(s) = w.rhs.and_then(|rhs| self.root(&self.body[rhs])) {
                self.roots_of(&s, out, depth + 1);
            }
        }
    }
}

/// Whether a token can end an operand, so that a `&` after it is the binary operator.
fn ends_operand(t: &Token) -> bool {
    matches!(&t.kind, TokenKind::Ident(_) | TokenKind::Int(_) | TokenKind::Float(_) | TokenKind::Char(_))
        || t.is_punct(")")
        || t.is_punct("]")
}

#[cfg(test)]
mod tests {
    use crate::{load_str, Options, SourceMap};

    /// The size the kernel gets from `main`, or the error message.
    fn size(main: &str) -> Result<i64, String> {
        let text = format!(
            "#define N 8\nvoid kernel_k(int n, double A[N], double B[N])\n{{\n  int i;\n#pragma scop\n  for (i = 0; i < n; i++)\n    B[i] = A[i];\n#pragma endscop\n}}\nint main(void)\n{{\n  static double A[N], B[N], R[4][N];\n{main}\n  return 0;\n}}\n"
        );
        let mut sm = SourceMap::new();
        let p = load_str(&mut sm, "k.c", &text, &Options::default()).map_err(|d| d.message)?;
        p.param_values().map(|v| v[0]).map_err(|d| d.message)
    }

    #[test]
    fn a_size_written_once_with_a_constant_is_known() {
        assert_eq!(size("  int n = 6;\n  kernel_k(n, A, B);"), Ok(6));
        assert_eq!(size("  kernel_k(N - 2, A, B);"), Ok(6));
        // Other variables change; `&` between operands is not `&n`.
        assert_eq!(size("  int n = 5, nn = n, m = n & 3;\n  nn++;\n  m += n;\n  kernel_k(n, A, B);"), Ok(5));
        // Declared first, assigned once.
        assert_eq!(size("  int n;\n  n = 7;\n  kernel_k(n, A, B);"), Ok(7));
    }

    #[test]
    fn a_size_written_again_has_no_value() {
        for main in [
            "  int n = 4;\n  n++;\n  kernel_k(n, A, B);",
            "  int n = 4;\n  kernel_k(n, A, B);\n  n = 2;",
            "  int n = 4;\n  f(&n);\n  kernel_k(n, A, B);",
        ] {
            let e = size(main).expect_err(main);
            assert!(e.contains("has no certain value"), "{main}: {e}");
        }
    }

    #[test]
    fn distinct_storage_is_accepted() {
        // Subscripts do not count: `&R[k][0]` points into `R` only; fresh allocations are
        // distinct; two rows of one array are not.
        assert_eq!(size("  int k = 1;\n  kernel_k(N, &R[k][0], B);"), Ok(8));
        assert_eq!(size("  double *p = malloc(64), *q = malloc(64);\n  kernel_k(N, p, q);"), Ok(8));
        let e = size("  kernel_k(N, R[0], R[1]);").expect_err("two rows of R");
        assert!(e.contains("may overlap: both arguments point into `R`"), "{e}");
    }
}
