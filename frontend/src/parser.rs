//! Parser for the C subset. The translation unit is scanned tolerantly (we never need to
//! understand `main`, `printf` or libc declarations); only the kernel function is parsed in
//! full, plus the integer arguments of the call that `main` makes to it.

use crate::ast::*;
use crate::callsite::find_call;
use crate::diag::{Diagnostic, Result};
use crate::source::Span;
use crate::token::{Token, TokenKind};
use std::collections::HashMap;

/// What the rest of the frontend needs from a translation unit.
#[derive(Debug)]
pub struct Unit {
    pub kernel: Function,
    /// The first call to the kernel found in another function, if any.
    pub call: Option<CallSite>,
}

/// A function definition found by the top-level scan: name and token ranges.
struct FnDef {
    name: String,
    name_at: usize,
    /// Index of the `{` opening the body; the body ends at `body_end` (the matching `}`).
    body: usize,
    body_end: usize,
}

/// Finds the kernel function (the one holding `#pragma scop`, or the one named `kernel`) and
/// parses it.
pub fn parse_unit(tokens: &[Token], kernel: Option<&str>) -> Result<Unit> {
    let end_span = tokens.last().map(|t| Span { lo: t.span.hi, ..t.span }).unwrap_or_default();
    let (fns, typedefs) = scan_top_level(tokens)?;
    let chosen = match kernel {
        Some(name) => fns.iter().find(|f| f.name == name).ok_or_else(|| {
            let names: Vec<&str> = fns.iter().map(|f| f.name.as_str()).collect();
            Diagnostic::global(format!("no function named `{name}` in the input"))
                .with_help(format!("functions defined here: {}", if names.is_empty() { "none".into() } else { names.join(", ") }))
        })?,
        None => {
            let with_scop: Vec<&FnDef> = fns
                .iter()
                .filter(|f| tokens[f.body..f.body_end].iter().any(|t| matches!(&t.kind, TokenKind::Pragma(p) if p == "scop")))
                .collect();
            match with_scop.as_slice() {
                [f] => *f,
                [] => {
                    return Err(Diagnostic::global("no `#pragma scop` region found")
                        .with_help("mark the kernel with `#pragma scop` … `#pragma endscop`, or name its function with --kernel NAME"))
                }
                [_, second, ..] => {
                    return Err(Diagnostic::new(tokens[second.name_at].span, "more than one function holds a `#pragma scop` region")
                        .with_help("choose one with --kernel NAME"))
                }
            }
        }
    };
    let mut p = Parser { depth: 0, toks: tokens, pos: chosen.name_at, end: chosen.body_end + 1, typedefs: &typedefs, end_span };
    let kernel = p.function()?;
    let call = fns.iter().filter(|f| f.name != kernel.name).find_map(|f| find_call(&tokens[f.body..f.body_end], &kernel.name, &typedefs));
    Ok(Unit { kernel, call })
}

/// Splits the token stream into top-level declarations and function definitions, and
/// records `typedef`s of scalar types (PolyBench's nussinov uses `typedef char base;`).
/// Scalar typedefs by name (an unsupported one keeps its error for when it is used).
pub(crate) type Typedefs = HashMap<String, Result<ScalarType>>;

fn scan_top_level(toks: &[Token]) -> Result<(Vec<FnDef>, Typedefs)> {
    let mut fns = Vec::new();
    let mut typedefs = HashMap::new();
    let mut i = 0;
    let mut decl_start = 0;
    while i < toks.len() {
        let t = &toks[i];
        if t.is_punct(";") {
            if toks[decl_start].is_ident("typedef") {
                if let Some((name, ty)) = typedef_of(&toks[decl_start + 1..i], &typedefs) {
                    typedefs.insert(name, ty);
                }
            }
            decl_start = i + 1;
        } else if t.is_punct("(") || t.is_punct("[") {
            i = matching(toks, i)?;
        } else if t.is_punct("{") {
            // Only braces delimit bodies: a stray `(` inside is the parser's to report, where
            // it happens.
            let close = matching_brace(toks, i)?;
            if i > 0 && toks[i - 1].is_punct(")") {
                let open = opening_paren(toks, i - 1);
                if let Some(name_at) = open.and_then(|o| o.checked_sub(1)) {
                    if let TokenKind::Ident(name) = &toks[name_at].kind {
                        fns.push(FnDef { name: name.clone(), name_at, body: i, body_end: close });
                        decl_start = close + 1;
                    }
                }
            }
            i = close;
        } else if matches!(t.kind, TokenKind::Pragma(_)) && decl_start == i {
            decl_start = i + 1;
        }
        i += 1;
    }
    Ok((fns, typedefs))
}

fn typedef_of(toks: &[Token], typedefs: &Typedefs) -> Option<(String, Result<ScalarType>)> {
    let (last, spec) = toks.split_last()?;
    let TokenKind::Ident(name) = &last.kind else { return None };
    let mut p = Parser { depth: 0, toks: spec, pos: 0, end: spec.len(), typedefs, end_span: last.span };
    Some((name.clone(), p.type_specifiers()))
}

/// Index of the `}` closing the `{` at `open`, counting braces only.
fn matching_brace(toks: &[Token], open: usize) -> Result<usize> {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate().skip(open) {
        if t.is_punct("{") {
            depth += 1;
        } else if t.is_punct("}") {
            depth -= 1;
            if depth == 0 {
                return Ok(k);
            }
        }
    }
    Err(Diagnostic::new(toks[open].span, "this `{` is never closed"))
}

/// Index of the bracket closing the one at `open`.
pub(crate) fn matching(toks: &[Token], open: usize) -> Result<usize> {
    let mut stack = Vec::new();
    for (k, t) in toks.iter().enumerate().skip(open) {
        if let TokenKind::Punct(p) = &t.kind {
            match p.as_str() {
                "(" | "[" | "{" => stack.push((p.as_str(), k)),
                ")" | "]" | "}" => {
                    let want = match p.as_str() {
                        ")" => "(",
                        "]" => "[",
                        _ => "{",
                    };
                    match stack.pop() {
                        Some((o, _)) if o == want => {}
                        Some((o, at)) => return Err(Diagnostic::new(toks[at].span, format!("this `{o}` is not closed before a `{p}`"))),
                        None => return Err(Diagnostic::new(t.span, format!("unbalanced `{p}`"))),
                    }
                    if stack.is_empty() {
                        return Ok(k);
                    }
                }
                _ => {}
            }
        }
    }
    Err(Diagnostic::new(toks[open].span, format!("`{}` is never closed", toks[open].text())))
}

fn opening_paren(toks: &[Token], close: usize) -> Option<usize> {
    let mut depth = 0i32;
    for k in (0..=close).rev() {
        if toks[k].is_punct(")") {
            depth += 1;
        } else if toks[k].is_punct("(") {
            depth -= 1;
            if depth == 0 {
                return Some(k);
            }
        }
    }
    None
}

/// Evaluates an integer constant expression; `var` gives values of known names.
pub fn const_int(e: &Expr, var: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
    Some(match &e.kind {
        ExprKind::Lit(Literal::Int(v, _)) => *v,
        ExprKind::Var(n) => var(n)?,
        ExprKind::Unary(UnOp::Neg, a) => const_int(a, var)?.checked_neg()?,
        ExprKind::Unary(UnOp::Plus, a) => const_int(a, var)?,
        ExprKind::Cast(t, a) if !t.is_float() => const_int(a, var)?,
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (const_int(a, var)?, const_int(b, var)?);
            match op {
                BinOp::Add => a.checked_add(b)?,
                BinOp::Sub => a.checked_sub(b)?,
                BinOp::Mul => a.checked_mul(b)?,
                BinOp::Div => a.checked_div(b)?,
                BinOp::Rem => a.checked_rem(b)?,
                BinOp::Shl => a.checked_shl(u32::try_from(b).ok()?)?,
                BinOp::Shr => a.checked_shr(u32::try_from(b).ok()?)?,
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// Deepest nesting of statements or expressions accepted (keeps recursion off the stack limit).
const MAX_DEPTH: usize = 1000;

pub(crate) struct Parser<'a> {
    depth: usize,
    toks: &'a [Token],
    pos: usize,
    end: usize,
    typedefs: &'a Typedefs,
    end_span: Span,
}

pub(crate) const TYPE_WORDS: &[&str] = &[
    "void",
    "char",
    "short",
    "int",
    "long",
    "float",
    "double",
    "signed",
    "unsigned",
    "const",
    "volatile",
    "static",
    "register",
    "restrict",
    "__restrict",
    "inline",
    "extern",
    "struct",
    "union",
    "enum",
    "_Bool",
    "auto",
];

impl<'a> Parser<'a> {
    /// A parser of the expression `toks` (`None` when it is empty).
    pub(crate) fn over(toks: &'a [Token], typedefs: &'a Typedefs) -> Option<Parser<'a>> {
        Some(Parser { depth: 0, toks, pos: 0, end: toks.len(), typedefs, end_span: toks.last()?.span })
    }
    pub(crate) fn at_end(&self) -> bool {
        self.pos == self.end
    }
    fn peek(&self) -> Option<&'a Token> {
        if self.pos < self.end {
            self.toks.get(self.pos)
        } else {
            None
        }
    }
    fn peek_at(&self, k: usize) -> Option<&'a Token> {
        if self.pos + k < self.end {
            self.toks.get(self.pos + k)
        } else {
            None
        }
    }
    fn span(&self) -> Span {
        self.peek().map_or(self.end_span, |t| t.span)
    }
    fn prev_span(&self) -> Span {
        self.pos.checked_sub(1).and_then(|p| self.toks.get(p)).map_or(self.end_span, |t| t.span)
    }
    fn bump(&mut self) -> Option<&'a Token> {
        let t = self.peek()?;
        self.pos += 1;
        Some(t)
    }
    fn at(&self, p: &str) -> bool {
        self.peek().is_some_and(|t| t.is_punct(p))
    }
    fn eat(&mut self, p: &str) -> bool {
        if self.at(p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, p: &str, what: &str) -> Result<Span> {
        if self.at(p) {
            self.pos += 1;
            Ok(self.prev_span())
        } else {
            let found = self.peek().map_or("end of input".to_string(), |t| format!("`{}`", t.text()));
            Err(Diagnostic::new(self.span(), format!("expected `{p}` {what}, found {found}")))
        }
    }
    fn ident(&mut self, what: &str) -> Result<(String, Span)> {
        match self.peek() {
            Some(Token { kind: TokenKind::Ident(n), span }) if !TYPE_WORDS.contains(&n.as_str()) => {
                self.pos += 1;
                Ok((n.clone(), *span))
            }
            t => Err(Diagnostic::new(
                self.span(),
                format!("expected {what}, found {}", t.map_or("end of input".into(), |t| format!("`{}`", t.text()))),
            )),
        }
    }

    /// Whether the next token starts a type name.
    fn at_type(&self) -> bool {
        match self.peek() {
            Some(Token { kind: TokenKind::Ident(n), .. }) => TYPE_WORDS.contains(&n.as_str()) || self.typedefs.contains_key(n),
            _ => false,
        }
    }

    /// Parses declaration specifiers into the scalar type they denote.
    fn type_specifiers(&mut self) -> Result<ScalarType> {
        let start = self.span();
        let mut words: Vec<(String, Span)> = Vec::new();
        let mut named: Option<ScalarType> = None;
        while let Some(Token { kind: TokenKind::Ident(n), span }) = self.peek() {
            if let Some(t) = self.typedefs.get(n) {
                if named.is_some()
                    || words.iter().any(|(w, _)| !matches!(w.as_str(), "const" | "volatile" | "static" | "register" | "extern" | "inline"))
                {
                    break;
                }
                named = Some(t.clone().map_err(|d| Diagnostic { span: Some(*span), ..d })?);
            } else if TYPE_WORDS.contains(&n.as_str()) {
                words.push((n.clone(), *span));
            } else {
                break;
            }
            self.pos += 1;
        }
        if let Some(t) = named {
            return Ok(t);
        }
        let has = |w: &str| words.iter().find(|(x, _)| x == w).map(|(_, s)| *s);
        for bad in ["struct", "union", "enum"] {
            if let Some(s) = has(bad) {
                return Err(
                    Diagnostic::new(s, format!("`{bad}` types are not supported")).with_help("use arrays of int, long, float or double")
                );
            }
        }
        for bad in ["unsigned", "short", "_Bool"] {
            if let Some(s) = has(bad) {
                return Err(
                    Diagnostic::new(s, format!("`{bad}` types are not supported")).with_help("use char, int, long, float or double")
                );
            }
        }
        let longs = words.iter().filter(|(w, _)| w == "long").count();
        Ok(if has("double").is_some() {
            if longs > 0 {
                return Err(Diagnostic::new(start, "`long double` is not supported").with_help("use float or double"));
            }
            ScalarType::Double
        } else if has("float").is_some() {
            ScalarType::Float
        } else if has("char").is_some() {
            ScalarType::Char
        } else if longs > 0 {
            ScalarType::Long
        } else if has("int").is_some() || has("signed").is_some() {
            ScalarType::Int
        } else if let Some(s) = has("void") {
            return Err(Diagnostic::new(s, "`void` is not a value type here"));
        } else {
            return Err(Diagnostic::new(start, "expected a type"));
        })
    }

    /// `T name(params) { body }` starting at the function's name (return type already skipped).
    fn function(&mut self) -> Result<Function> {
        let (name, span) = self.ident("function name")?;
        self.expect("(", "after the function name")?;
        let mut params = Vec::new();
        if !(self.at(")") || (self.peek().is_some_and(|t| t.is_ident("void")) && self.peek_at(1).is_some_and(|t| t.is_punct(")")))) {
            loop {
                params.push(self.param()?);
                if !self.eat(",") {
                    break;
                }
            }
        } else if !self.at(")") {
            self.pos += 1;
        }
        self.expect(")", "to close the parameter list")?;
        self.expect("{", "to open the function body")?;
        let mut body = Vec::new();
        while !self.at("}") {
            if self.peek().is_none() {
                return Err(Diagnostic::new(span, format!("body of `{name}` is never closed")));
            }
            body.push(self.stmt()?);
        }
        self.pos += 1;
        Ok(Function { name, params, body, span })
    }

    fn param(&mut self) -> Result<Param> {
        let ty = self.type_specifiers()?;
        let mut pointer = false;
        while self.eat("*") {
            pointer = true;
            while self.peek().is_some_and(|t| t.is_ident("const") || t.is_ident("restrict") || t.is_ident("__restrict")) {
                self.pos += 1;
            }
        }
        let (name, span) = self.ident("parameter name")?;
        let mut dims = Vec::new();
        while self.eat("[") {
            if self.eat("]") {
                pointer = true;
                continue;
            }
            dims.push(self.assign_expr()?);
            self.expect("]", "to close the array dimension")?;
        }
        Ok(Param { decl: VarDecl { name, ty, dims, init: None, span }, pointer })
    }

    fn block_until_close(&mut self, open: Span) -> Result<Vec<Stmt>> {
        let mut body = Vec::new();
        while !self.at("}") {
            if self.peek().is_none() {
                return Err(Diagnostic::new(open, "this `{` is never closed"));
            }
            body.push(self.stmt()?);
        }
        self.pos += 1;
        Ok(body)
    }

    fn stmt(&mut self) -> Result<Stmt> {
        self.enter()?;
        let r = self.stmt_inner();
        self.depth -= 1;
        r
    }

    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            return Err(Diagnostic::new(self.span(), format!("nesting is deeper than {MAX_DEPTH} levels"))
                .with_help("simplify the expression or statement"));
        }
        Ok(())
    }

    fn stmt_inner(&mut self) -> Result<Stmt> {
        let start = self.span();
        let t = self.peek().ok_or_else(|| Diagnostic::new(self.end_span, "expected a statement, found end of input"))?;
        let kind = match &t.kind {
            TokenKind::Pragma(p) => {
                self.pos += 1;
                StmtKind::Pragma(p.clone())
            }
            TokenKind::Punct(p) if p == "{" => {
                self.pos += 1;
                StmtKind::Block(self.block_until_close(start)?)
            }
            TokenKind::Punct(p) if p == ";" => {
                self.pos += 1;
                StmtKind::Empty
            }
            TokenKind::Ident(w) => match w.as_str() {
                "for" => {
                    self.pos += 1;
                    self.expect("(", "after `for`")?;
                    let init = if self.eat(";") {
                        None
                    } else if self.at_type() {
                        Some(Box::new(self.decl_stmt()?))
                    } else {
                        let e = self.expr()?;
                        let s = Stmt { span: e.span, kind: StmtKind::Expr(e) };
                        self.expect(";", "after the loop initialisation")?;
                        Some(Box::new(s))
                    };
                    let cond = if self.at(";") { None } else { Some(self.expr()?) };
                    self.expect(";", "after the loop condition")?;
                    let step = if self.at(")") { None } else { Some(self.expr()?) };
                    self.expect(")", "to close the `for` header")?;
                    let body = Box::new(self.stmt()?);
                    StmtKind::For { init, cond, step, body }
                }
                "if" => {
                    self.pos += 1;
                    self.expect("(", "after `if`")?;
                    let c = self.expr()?;
                    self.expect(")", "to close the `if` condition")?;
                    let then = Box::new(self.stmt()?);
                    let els = if self.peek().is_some_and(|t| t.is_ident("else")) {
                        self.pos += 1;
                        Some(Box::new(self.stmt()?))
                    } else {
                        None
                    };
                    StmtKind::If(c, then, els)
                }
                "while" => {
                    self.pos += 1;
                    self.expect("(", "after `while`")?;
                    self.expr()?;
                    self.expect(")", "to close the condition")?;
                    self.stmt()?;
                    StmtKind::Unsupported("`while` loops")
                }
                "switch" => {
                    // The body (labels and all) is skipped: it is rejected as a whole.
                    self.pos += 1;
                    self.expect("(", "after `switch`")?;
                    self.expr()?;
                    self.expect(")", "to close the condition")?;
                    if self.at("{") {
                        self.pos = matching_brace(&self.toks[..self.end], self.pos)? + 1;
                    } else {
                        self.stmt()?;
                    }
                    StmtKind::Unsupported("`switch` statements")
                }
                "do" => {
                    self.pos += 1;
                    self.stmt()?;
                    if !self.peek().is_some_and(|t| t.is_ident("while")) {
                        return Err(Diagnostic::new(self.span(), "expected `while` after the body of `do`"));
                    }
                    self.pos += 1;
                    self.expect("(", "after `while`")?;
                    self.expr()?;
                    self.expect(")", "to close the condition")?;
                    self.expect(";", "after `do … while (…)`")?;
                    StmtKind::Unsupported("`do … while` loops")
                }
                "return" | "break" | "continue" | "goto" => {
                    let what = match w.as_str() {
                        "return" => "`return` statements",
                        "break" => "`break` statements",
                        "continue" => "`continue` statements",
                        _ => "`goto` statements",
                    };
                    self.pos += 1;
                    if !self.at(";") {
                        self.expr()?;
                    }
                    self.expect(";", "after the statement")?;
                    StmtKind::Unsupported(what)
                }
                "else" => return Err(Diagnostic::new(start, "`else` without a matching `if`")),
                "case" | "default" => return Err(Diagnostic::new(start, "`case` labels are not supported")),
                _ if self.at_type() && !self.peek_at(1).is_some_and(|t| t.is_punct("(")) => return self.decl_stmt(),
                _ if self.peek_at(1).is_some_and(|t| t.is_punct(":")) => {
                    self.pos += 2;
                    self.stmt()?;
                    StmtKind::Unsupported("labels")
                }
                _ => self.expr_stmt()?,
            },
            _ => self.expr_stmt()?,
        };
        Ok(Stmt { kind, span: start.to(self.prev_span()) })
    }

    fn expr_stmt(&mut self) -> Result<StmtKind> {
        let e = self.expr()?;
        self.expect(";", "after the expression")?;
        Ok(StmtKind::Expr(e))
    }

    fn decl_stmt(&mut self) -> Result<Stmt> {
        let start = self.span();
        let ty = self.type_specifiers()?;
        let mut decls = Vec::new();
        loop {
            if self.at("*") {
                return Err(Diagnostic::new(self.span(), "pointer variables are not supported")
                    .with_help("declare an array with constant dimensions"));
            }
            let (name, span) = self.ident("a variable name")?;
            let mut dims = Vec::new();
            while self.eat("[") {
                dims.push(self.assign_expr()?);
                self.expect("]", "to close the array dimension")?;
            }
            let init = if self.eat("=") {
                if self.at("{") {
                    return Err(Diagnostic::new(self.span(), "array initialisers are not supported"));
                }
                Some(self.assign_expr()?)
            } else {
                None
            };
            decls.push(VarDecl { name, ty, dims, init, span });
            if !self.eat(",") {
                break;
            }
        }
        self.expect(";", "after the declaration")?;
        Ok(Stmt { kind: StmtKind::Decl(decls), span: start.to(self.prev_span()) })
    }

    /// Full expression; the comma operator is recognised only to reject it.
    pub(crate) fn expr(&mut self) -> Result<Expr> {
        let e = self.assign_expr()?;
        if self.at(",") {
            let span = self.span();
            self.pos += 1;
            let rhs = self.expr()?;
            return Ok(Expr { kind: ExprKind::Unsupported("comma operators"), span: span.to(rhs.span) });
        }
        Ok(e)
    }

    fn assign_expr(&mut self) -> Result<Expr> {
        let lhs = self.ternary()?;
        let op = match self.peek() {
            Some(Token { kind: TokenKind::Punct(p), .. }) => match p.as_str() {
                "=" => Some(None),
                "+=" => Some(Some(BinOp::Add)),
                "-=" => Some(Some(BinOp::Sub)),
                "*=" => Some(Some(BinOp::Mul)),
                "/=" => Some(Some(BinOp::Div)),
                "%=" => Some(Some(BinOp::Rem)),
                "&=" => Some(Some(BinOp::BitAnd)),
                "|=" => Some(Some(BinOp::BitOr)),
                "^=" => Some(Some(BinOp::BitXor)),
                "<<=" => Some(Some(BinOp::Shl)),
                ">>=" => Some(Some(BinOp::Shr)),
                _ => None,
            },
            _ => None,
        };
        match op {
            Some(op) => {
                self.pos += 1;
                let rhs = self.assign_expr()?;
                let span = lhs.span.to(rhs.span);
                Ok(Expr { kind: ExprKind::Assign(op, Box::new(lhs), Box::new(rhs)), span })
            }
            None => Ok(lhs),
        }
    }

    fn ternary(&mut self) -> Result<Expr> {
        let c = self.binary(0)?;
        if self.eat("?") {
            let a = self.expr()?;
            self.expect(":", "in the conditional expression")?;
            let b = self.ternary()?;
            let span = c.span.to(b.span);
            return Ok(Expr { kind: ExprKind::Ternary(Box::new(c), Box::new(a), Box::new(b)), span });
        }
        Ok(c)
    }

    fn binary(&mut self, min_prec: u8) -> Result<Expr> {
        let lhs = self.unary()?;
        // Every operator makes the (left-leaning) tree one level deeper.
        let entered = self.depth;
        let r = self.binary_rest(min_prec, lhs);
        self.depth = entered;
        r
    }

    fn binary_rest(&mut self, min_prec: u8, mut lhs: Expr) -> Result<Expr> {
        while let Some(Token { kind: TokenKind::Punct(p), .. }) = self.peek() {
            let (op, prec) = match p.as_str() {
                "||" => (BinOp::Or, 1),
                "&&" => (BinOp::And, 2),
                "|" => (BinOp::BitOr, 3),
                "^" => (BinOp::BitXor, 4),
                "&" => (BinOp::BitAnd, 5),
                "==" => (BinOp::Eq, 6),
                "!=" => (BinOp::Ne, 6),
                "<" => (BinOp::Lt, 7),
                "<=" => (BinOp::Le, 7),
                ">" => (BinOp::Gt, 7),
                ">=" => (BinOp::Ge, 7),
                "<<" => (BinOp::Shl, 8),
                ">>" => (BinOp::Shr, 8),
                "+" => (BinOp::Add, 9),
                "-" => (BinOp::Sub, 9),
                "*" => (BinOp::Mul, 10),
                "/" => (BinOp::Div, 10),
                "%" => (BinOp::Rem, 10),
                _ => break,
            };
            if prec < min_prec.max(1) {
                break;
            }
            self.pos += 1;
            self.enter()?;
            let rhs = self.binary(prec + 1)?;
            let span = lhs.span.to(rhs.span);
            lhs = Expr { kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), span };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Expr> {
        self.enter()?;
        let r = self.unary_inner();
        self.depth -= 1;
        r
    }

    fn unary_inner(&mut self) -> Result<Expr> {
        let start = self.span();
        let Some(t) = self.peek() else {
            return Err(Diagnostic::new(self.end_span, "expected an expression, found end of input"));
        };
        let un = |op, s: &mut Self| -> Result<Expr> {
            s.pos += 1;
            let e = s.unary()?;
            Ok(Expr { span: start.to(e.span), kind: ExprKind::Unary(op, Box::new(e)) })
        };
        match &t.kind {
            TokenKind::Punct(p) => match p.as_str() {
                "-" => un(UnOp::Neg, self),
                "+" => un(UnOp::Plus, self),
                "!" => un(UnOp::Not, self),
                "~" => un(UnOp::BitNot, self),
                "++" | "--" => {
                    let delta = if p == "++" { 1 } else { -1 };
                    self.pos += 1;
                    let e = self.unary()?;
                    Ok(Expr { span: start.to(e.span), kind: ExprKind::IncDec { delta, prefix: true, target: Box::new(e) } })
                }
                "*" | "&" => {
                    self.pos += 1;
                    let e = self.unary()?;
                    let what = if p == "*" { "pointer dereferences" } else { "address-of operators" };
                    Ok(Expr { span: start.to(e.span), kind: ExprKind::Unsupported(what) })
                }
                "(" if self.peek_at(1).is_some_and(
                    |t| matches!(&t.kind, TokenKind::Ident(n) if TYPE_WORDS.contains(&n.as_str()) || self.typedefs.contains_key(n)),
                ) =>
                {
                    self.pos += 1;
                    let ty = self.type_specifiers()?;
                    if self.at("*") {
                        return Err(Diagnostic::new(self.span(), "pointer casts are not supported"));
                    }
                    self.expect(")", "to close the cast")?;
                    let e = self.unary()?;
                    Ok(Expr { span: start.to(e.span), kind: ExprKind::Cast(ty, Box::new(e)) })
                }
                _ => self.postfix(),
            },
            TokenKind::Ident(n) if n == "sizeof" => {
                self.pos += 1;
                let e = self.unary()?;
                Ok(Expr { span: start.to(e.span), kind: ExprKind::Unsupported("`sizeof` expressions") })
            }
            _ => self.postfix(),
        }
    }

    fn postfix(&mut self) -> Result<Expr> {
        let mut e = self.primary()?;
        loop {
            if self.eat("[") {
                let idx = self.expr()?;
                let close = self.expect("]", "to close the subscript")?;
                let span = e.span.to(close);
                e = match e.kind {
                    ExprKind::Var(name) => Expr { kind: ExprKind::Index(name, vec![idx]), span },
                    ExprKind::Index(name, mut v) => {
                        v.push(idx);
                        Expr { kind: ExprKind::Index(name, v), span }
                    }
                    _ => Expr { kind: ExprKind::Unsupported("subscripting something that is not a named array"), span },
                };
            } else if self.at("(") {
                let open = self.span();
                self.pos += 1;
                let mut args = Vec::new();
                if !self.at(")") {
                    loop {
                        args.push(self.assign_expr()?);
                        if !self.eat(",") {
                            break;
                        }
                    }
                }
                let close = self.expect(")", "to close the argument list")?;
                let span = e.span.to(close);
                e = match e.kind {
                    ExprKind::Var(name) => Expr { kind: ExprKind::Call(name, args), span },
                    _ => Expr { kind: ExprKind::Unsupported("calling through an expression"), span: open },
                };
            } else if self.at("++") || self.at("--") {
                let delta = if self.at("++") { 1 } else { -1 };
                self.pos += 1;
                let span = e.span.to(self.prev_span());
                e = Expr { kind: ExprKind::IncDec { delta, prefix: false, target: Box::new(e) }, span };
            } else if self.at(".") || self.at("->") {
                let span = self.span();
                self.pos += 1;
                self.ident("a member name")?;
                e = Expr { kind: ExprKind::Unsupported("struct members"), span: e.span.to(span) };
            } else {
                break;
            }
        }
        Ok(e)
    }

    fn primary(&mut self) -> Result<Expr> {
        let span = self.span();
        let Some(t) = self.bump() else {
            return Err(Diagnostic::new(self.end_span, "expected an expression, found end of input"));
        };
        let kind = match &t.kind {
            TokenKind::Ident(n) if !TYPE_WORDS.contains(&n.as_str()) => ExprKind::Var(n.clone()),
            TokenKind::Int(text) => ExprKind::Lit(int_literal(text, span)?),
            TokenKind::Float(text) => ExprKind::Lit(float_literal(text, span)?),
            TokenKind::Char(text) => ExprKind::Lit(Literal::Int(char_value(text), ScalarType::Int)),
            TokenKind::Str(_) => {
                while matches!(self.peek().map(|t| &t.kind), Some(TokenKind::Str(_))) {
                    self.pos += 1;
                }
                ExprKind::Unsupported("string literals")
            }
            TokenKind::Punct(p) if p == "(" => {
                let e = self.expr()?;
                let close = self.expect(")", "to close the parenthesis")?;
                return Ok(Expr { span: span.to(close), ..e });
            }
            _ => return Err(Diagnostic::new(span, format!("expected an expression, found `{}`", t.text()))),
        };
        Ok(Expr { kind, span })
    }
}

fn int_literal(text: &str, span: Span) -> Result<Literal> {
    let lower = text.to_ascii_lowercase();
    let digits = lower.trim_end_matches(['u', 'l']);
    let suffix = &lower[digits.len()..];
    let parsed = if let Some(h) = digits.strip_prefix("0x") {
        i64::from_str_radix(h, 16)
    } else if digits.len() > 1 && digits.starts_with('0') {
        i64::from_str_radix(&digits[1..], 8)
    } else {
        digits.parse::<i64>()
    };
    let v = parsed.map_err(|_| Diagnostic::new(span, format!("integer literal `{text}` is malformed or does not fit in 64 bits")))?;
    let ty = if suffix.contains('l') || i32::try_from(v).is_err() { ScalarType::Long } else { ScalarType::Int };
    Ok(Literal::Int(v, ty))
}

fn float_literal(text: &str, span: Span) -> Result<Literal> {
    let bad = || Diagnostic::new(span, format!("floating literal `{text}` is malformed"));
    if let Some(t) = text.strip_suffix(['f', 'F']) {
        match t.parse::<f32>() {
            Ok(v) if v.is_finite() => Ok(Literal::Float(v)),
            Ok(_) => Err(Diagnostic::new(span, format!("floating literal `{text}` is out of range for float"))),
            Err(_) => Err(bad()),
        }
    } else if text.ends_with(['l', 'L']) {
        Err(Diagnostic::new(span, "`long double` literals are not supported").with_help("drop the `L` suffix"))
    } else {
        match text.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Literal::Double(v)),
            Ok(_) => Err(Diagnostic::new(span, format!("floating literal `{text}` is out of range"))),
            Err(_) => Err(bad()),
        }
    }
}

fn char_value(text: &str) -> i64 {
    let inner = text.trim_start_matches('\'').trim_end_matches('\'');
    let mut c = inner.chars();
    match (c.next(), c.next()) {
        (Some('\\'), Some(e)) => match e {
            'n' => 10,
            't' => 9,
            '0' => 0,
            'r' => 13,
            other => other as i64,
        },
        (Some(ch), _) => ch as i64,
        _ => 0,
    }
}
