//! C99 preprocessor: `#include`, macros, conditionals and `#pragma`, enough for PolyBench/C
//! 4.2.1 unmodified.
//!
//! Macro expansion follows the hide-set formulation of the standard's rules (Prosser's
//! algorithm): every token carries the set of macros whose expansion produced it, and a macro
//! name whose own macro is in its set is never expanded again ("painted blue"), not even when
//! it is later rescanned inside another macro's arguments.
//!
//! The text between two directives is expanded as one unit, so a macro's argument list cannot
//! contain a directive (C allows it; PolyBench never does it) and reports an unterminated
//! argument list instead.

use crate::diag::{Diagnostic, Result};
use crate::lexer::{self, PpToken};
use crate::source::{FileId, SourceMap, Span};
use crate::token::{Token, TokenKind};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Command-line settings of the preprocessor.
#[derive(Clone, Debug, Default)]
pub struct PpOptions {
    /// `-I` directories, searched in order.
    pub include_dirs: Vec<PathBuf>,
    /// `-D NAME[=VALUE]`; `None` means `1`.
    pub defines: Vec<(String, Option<String>)>,
}

/// Nested `#include`s beyond this many are an error (a header including itself without a
/// guard would otherwise recurse forever).
const MAX_INCLUDE_DEPTH: usize = 64;

/// Most tokens that one macro invocation in the source may produce, counting every
/// intermediate expansion: a guard against exponential macro definitions.
const MAX_EXPANSION_TOKENS: usize = 1_000_000;

/// Deepest nesting of macro arguments and of `#if` sub-expressions: the expander and the
/// evaluator recurse on nesting, so hostile input must not exhaust the stack.
const MAX_NESTING: usize = 256;

/// Macros every C99 compiler predefines (`__FILE__` and `__LINE__` are built into expansion).
const PREDEFINED: &str = "#define __STDC__ 1\n#define __STDC_VERSION__ 199901L\n#define __STDC_HOSTED__ 1\n";

/// Preprocesses the translation unit whose main file is `main`: returns its tokens with
/// directives executed and removed, macros expanded, and each surviving `#pragma` as one
/// [`TokenKind::Pragma`] token. Included files are loaded into `sm`.
pub fn preprocess(sm: &mut SourceMap, main: FileId, opts: &PpOptions) -> Result<Vec<Token>> {
    let mut cmdline = String::from(PREDEFINED);
    for (name, value) in &opts.defines {
        // As in GCC, a definition ends at an embedded newline.
        let value = value.as_deref().unwrap_or("1").split('\n').next().unwrap_or_default();
        cmdline.push_str(&format!("#define {name} {value}\n"));
    }
    let cmdline = sm.add("<command line>", cmdline);
    let mut pp = Preprocessor {
        sm,
        include_dirs: &opts.include_dirs,
        macros: HashMap::new(),
        once: HashSet::new(),
        depth: 0,
        produced: 0,
        arg_depth: 0,
        out: Vec::new(),
    };
    pp.process_file(cmdline)?;
    pp.process_file(main)?;
    Ok(pp.out)
}

/// The set of macros a token's expansion history forbids it to invoke again.
#[derive(Clone, Debug, Default)]
struct HideSet(Option<Rc<[Rc<str>]>>);

impl HideSet {
    fn names(&self) -> &[Rc<str>] {
        self.0.as_deref().unwrap_or(&[])
    }
    fn from_names(names: Vec<Rc<str>>) -> HideSet {
        HideSet(if names.is_empty() { None } else { Some(names.into()) })
    }
    fn contains(&self, name: &str) -> bool {
        self.names().iter().any(|n| &**n == name)
    }
    fn is_subset_of(&self, other: &HideSet) -> bool {
        self.names().iter().all(|n| other.contains(n))
    }
    fn union(&self, other: &HideSet) -> HideSet {
        if other.is_subset_of(self) {
            return self.clone();
        }
        if self.is_subset_of(other) {
            return other.clone();
        }
        let mut names = self.names().to_vec();
        names.extend(other.names().iter().filter(|n| !self.contains(n)).cloned());
        HideSet::from_names(names)
    }
    fn intersection(&self, other: &HideSet) -> HideSet {
        HideSet::from_names(self.names().iter().filter(|n| other.contains(n)).cloned().collect())
    }
    fn with(&self, name: &Rc<str>) -> HideSet {
        self.union(&HideSet::from_names(vec![name.clone()]))
    }
}

/// A token during expansion.
#[derive(Clone, Debug)]
struct PTok {
    tok: Token,
    /// Whitespace before it: kept for stringification and header names.
    space: bool,
    hide: HideSet,
}

impl PTok {
    fn new(kind: TokenKind, span: Span, space: bool) -> PTok {
        PTok { tok: Token { kind, span }, space, hide: HideSet::default() }
    }
    fn ident(&self) -> Option<&str> {
        match &self.tok.kind {
            TokenKind::Ident(s) => Some(s),
            _ => None,
        }
    }
}

impl From<&PpToken> for PTok {
    fn from(t: &PpToken) -> PTok {
        PTok { tok: t.tok.clone(), space: t.space_before, hide: HideSet::default() }
    }
}

/// One element of a macro's replacement list.
#[derive(Clone, Debug)]
enum Item {
    Tok(PTok),
    /// A parameter of a function-like macro, by index (`__VA_ARGS__` is the last one).
    Param {
        index: usize,
        space: bool,
    },
}

impl Item {
    fn is_punct(&self, p: &str) -> bool {
        matches!(self, Item::Tok(t) if t.tok.is_punct(p))
    }
}

#[derive(Debug)]
struct Macro {
    name: Rc<str>,
    /// `None` for an object-like macro; the parameter count otherwise.
    params: Option<usize>,
    variadic: bool,
    body: Vec<Item>,
}

/// A result of substitution: `##` with an empty argument yields a placemarker.
enum Piece {
    Tok(PTok),
    Placemarker,
}

/// One open `#if` … `#endif`.
struct Cond {
    /// The opening directive, for "unterminated" errors.
    span: Span,
    /// The current group is being processed.
    active: bool,
    /// Some group of this conditional was (or, in a skipped enclosing group, must not be)
    /// taken, so later `#elif`/`#else` groups are skipped.
    done: bool,
    seen_else: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Text,
    /// A `#if`/`#elif` expression: `defined` is an operator.
    Condition,
}

struct Preprocessor<'a> {
    sm: &'a mut SourceMap,
    include_dirs: &'a [PathBuf],
    macros: HashMap<String, Rc<Macro>>,
    /// Files that said `#pragma once`.
    once: HashSet<FileId>,
    /// Current `#include` nesting.
    depth: usize,
    /// Tokens produced so far by the current top-level macro invocation.
    produced: usize,
    /// Macro arguments being expanded inside one another.
    arg_depth: usize,
    out: Vec<Token>,
}

impl Preprocessor<'_> {
    fn process_file(&mut self, file: FileId) -> Result<()> {
        let toks = lexer::lex(self.sm, file)?;
        let is_directive = |t: &PpToken| t.line_start && t.tok.is_punct("#");
        let mut conds: Vec<Cond> = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            let line_end = i + 1 + toks[i + 1..].iter().position(|t| t.line_start).unwrap_or(toks.len() - i - 1);
            if is_directive(&toks[i]) {
                self.directive(file, &toks[i..line_end], &mut conds)?;
                i = line_end;
            } else if !in_active_group(&conds) {
                i = line_end;
            } else {
                let end = line_end + toks[line_end..].iter().position(is_directive).unwrap_or(toks.len() - line_end);
                let run = toks[i..end].iter().map(PTok::from).collect();
                for t in self.expand(run, Mode::Text, false)? {
                    if let Some(msg) = lexer::stray_message(&t.tok) {
                        return Err(Diagnostic::new(t.tok.span, msg));
                    }
                    self.out.push(t.tok);
                }
                i = end;
            }
        }
        match conds.last() {
            Some(c) => Err(Diagnostic::new(c.span, "unterminated conditional directive")
                .with_help("add the matching `#endif` before the end of the file")),
            None => Ok(()),
        }
    }

    /// Executes the directive `line` (`#` and the rest of its line).
    fn directive(&mut self, file: FileId, line: &[PpToken], conds: &mut Vec<Cond>) -> Result<()> {
        let hash = &line[0];
        let span = line.iter().fold(hash.tok.span, |s, t| s.to(t.tok.span));
        let active = in_active_group(conds);
        let Some(name_tok) = line.get(1) else { return Ok(()) };
        let args = &line[2..];
        let name = match &name_tok.tok.kind {
            TokenKind::Ident(name) => name.as_str(),
            // `# 33 "file.c"`: a line marker, as #line.
            TokenKind::Int(_) => "line",
            _ if active => {
                return Err(Diagnostic::new(name_tok.tok.span, format!("invalid preprocessing directive `#{}`", name_tok.tok.text())))
            }
            _ => return Ok(()),
        };
        match name {
            "if" | "ifdef" | "ifndef" => {
                let taken = active
                    && match name {
                        "if" => self.condition(span, args)?,
                        _ => {
                            let defined = self.is_defined(macro_name(name_tok, args.first())?);
                            defined == (name == "ifdef")
                        }
                    };
                conds.push(Cond { span, active: taken, done: taken || !active, seen_else: false });
            }
            "elif" => {
                let cond = conds.last_mut().ok_or_else(|| Diagnostic::new(span, "`#elif` without `#if`"))?;
                if cond.seen_else {
                    return Err(Diagnostic::new(span, "`#elif` after `#else`"));
                }
                cond.active = !cond.done && self.condition(span, args)?;
                cond.done |= cond.active;
            }
            "else" => {
                let cond = conds.last_mut().ok_or_else(|| Diagnostic::new(span, "`#else` without `#if`"))?;
                if cond.seen_else {
                    return Err(Diagnostic::new(span, "`#else` after `#else`"));
                }
                cond.seen_else = true;
                cond.active = !cond.done;
                cond.done = true;
            }
            "endif" => {
                conds.pop().ok_or_else(|| Diagnostic::new(span, "`#endif` without `#if`"))?;
            }
            _ if !active => {}
            "define" => self.define(name_tok, args)?,
            "undef" => {
                let name = macro_name(name_tok, args.first())?;
                self.macros.remove(name);
            }
            "include" => self.include(file, span, args)?,
            "pragma" => {
                let text = join_tokens(args.iter().map(|t| (t.tok.text(), t.space_before)));
                if text == "once" {
                    self.once.insert(file);
                } else if !text.is_empty() {
                    self.out.push(Token { kind: TokenKind::Pragma(text), span });
                }
            }
            "error" => {
                let text = join_tokens(args.iter().map(|t| (t.tok.text(), t.space_before)));
                return Err(Diagnostic::new(span, format!("#error {text}").trim_end().to_string()));
            }
            "warning" | "line" => {}
            _ => return Err(Diagnostic::new(name_tok.tok.span, format!("unknown preprocessing directive `#{name}`"))),
        }
        Ok(())
    }

    fn is_defined(&self, name: &str) -> bool {
        self.macros.contains_key(name) || matches!(name, "__FILE__" | "__LINE__")
    }

    fn define(&mut self, directive: &PpToken, args: &[PpToken]) -> Result<()> {
        let name = macro_name(directive, args.first())?;
        if name == "defined" {
            return Err(Diagnostic::new(args[0].tok.span, "`defined` cannot be used as a macro name"));
        }
        let mut rest = &args[1..];
        let mut params: Option<Vec<String>> = None;
        let mut variadic = false;
        // Function-like only if `(` touches the name: `#define F (x)` is object-like.
        if rest.first().is_some_and(|t| t.tok.is_punct("(") && !t.space_before) {
            let missing = || Diagnostic::new(args[0].tok.span, format!("missing `)` in the parameter list of macro `{name}`"));
            let mut names = Vec::new();
            let mut k = 1;
            loop {
                let t = rest.get(k).ok_or_else(missing)?;
                match &t.tok.kind {
                    TokenKind::Punct(p) if p == ")" && names.is_empty() => break,
                    TokenKind::Punct(p) if p == "..." => {
                        variadic = true;
                        names.push("__VA_ARGS__".to_string());
                        k += 1;
                        if !rest.get(k).is_some_and(|t| t.tok.is_punct(")")) {
                            return Err(Diagnostic::new(t.tok.span, "`...` must be the last macro parameter"));
                        }
                        break;
                    }
                    TokenKind::Ident(p) if p != "__VA_ARGS__" => {
                        if names.contains(p) {
                            return Err(Diagnostic::new(t.tok.span, format!("duplicate macro parameter `{p}`")));
                        }
                        names.push(p.clone());
                        k += 1;
                        match rest.get(k) {
                            Some(t) if t.tok.is_punct(",") => k += 1,
                            Some(t) if t.tok.is_punct(")") => break,
                            Some(t) => {
                                return Err(Diagnostic::new(
                                    t.tok.span,
                                    format!("expected `,` or `)` in the parameter list of macro `{name}`"),
                                ))
                            }
                            None => return Err(missing()),
                        }
                    }
                    _ => {
                        return Err(Diagnostic::new(
                            t.tok.span,
                            format!("expected a parameter name in the parameter list of macro `{name}`"),
                        ))
                    }
                }
            }
            rest = &rest[k + 1..];
            params = Some(names);
        }
        let mut body = Vec::with_capacity(rest.len());
        for (k, t) in rest.iter().enumerate() {
            let space = k > 0 && t.space_before;
            if t.tok.is_ident("__VA_ARGS__") && !variadic {
                return Err(Diagnostic::new(t.tok.span, "`__VA_ARGS__` can only appear in the expansion of a variadic macro"));
            }
            let index = match (&params, &t.tok.kind) {
                (Some(names), TokenKind::Ident(id)) => names.iter().position(|n| n == id),
                _ => None,
            };
            body.push(match index {
                Some(index) => Item::Param { index, space },
                None => Item::Tok(PTok { tok: t.tok.clone(), space, hide: HideSet::default() }),
            });
        }
        for end in [body.first(), body.last()] {
            if let Some(Item::Tok(t)) = end.filter(|i| i.is_punct("##")) {
                return Err(Diagnostic::new(t.tok.span, "`##` cannot appear at either end of a macro expansion"));
            }
        }
        if params.is_some() {
            for (k, item) in body.iter().enumerate() {
                if let Item::Tok(t) = item {
                    if t.tok.is_punct("#") && !matches!(body.get(k + 1), Some(Item::Param { .. })) {
                        return Err(Diagnostic::new(t.tok.span, "`#` is not followed by a macro parameter"));
                    }
                }
            }
        }
        let name: Rc<str> = name.into();
        let m = Macro { name: name.clone(), params: params.map(|p| p.len()), variadic, body };
        self.macros.insert(name.to_string(), Rc::new(m));
        Ok(())
    }

    fn include(&mut self, file: FileId, span: Span, args: &[PpToken]) -> Result<()> {
        let mut toks: Vec<PTok> = args.iter().map(PTok::from).collect();
        let literal = toks.first().is_some_and(|t| t.tok.is_punct("<") || matches!(&t.tok.kind, TokenKind::Str(s) if s.starts_with('"')));
        if !literal {
            toks = self.expand(toks, Mode::Text, false)?;
        }
        let expected = || Diagnostic::new(span, "`#include` expects \"FILENAME\" or <FILENAME>");
        let (name, quoted) = match toks.first().map(|t| &t.tok.kind) {
            Some(TokenKind::Str(s)) if s.starts_with('"') && s.len() >= 2 => (s[1..s.len() - 1].to_string(), true),
            Some(TokenKind::Punct(p)) if p == "<" => {
                let close = toks
                    .iter()
                    .position(|t| t.tok.is_punct(">"))
                    .ok_or_else(|| Diagnostic::new(span, "missing `>` after the `#include <` file name"))?;
                (join_tokens(toks[1..close].iter().map(|t| (t.tok.text(), t.space))), false)
            }
            _ => return Err(expected()),
        };
        if name.is_empty() {
            return Err(Diagnostic::new(span, "empty file name in `#include`"));
        }
        let current_dir = self.sm.get(file).and_then(|f| f.path.parent()).map(Path::to_path_buf);
        let dirs = current_dir.filter(|_| quoted).into_iter().chain(self.include_dirs.iter().cloned());
        let Some(path) = dirs.map(|d| d.join(&name)).find(|p| p.is_file()) else {
            if quoted {
                return Err(Diagnostic::new(span, format!("cannot find include file \"{name}\""))
                    .with_help("it is searched in the directory of the including file, then in the -I directories"));
            }
            // A system header (<stdio.h>, …): declarations only, which the kernel never needs.
            return Ok(());
        };
        if self.depth >= MAX_INCLUDE_DEPTH {
            return Err(Diagnostic::new(span, format!("`#include` nested more than {MAX_INCLUDE_DEPTH} levels deep"))
                .with_help("does a header include itself without an include guard?"));
        }
        let id = self.sm.load(&path).map_err(|e| Diagnostic::new(span, format!("cannot read include file `{}`: {e}", path.display())))?;
        if self.once.contains(&id) {
            return Ok(());
        }
        self.depth += 1;
        self.process_file(id)?;
        self.depth -= 1;
        Ok(())
    }

    /// Evaluates the expression of `#if`/`#elif` (the tokens after the directive name).
    fn condition(&mut self, span: Span, args: &[PpToken]) -> Result<bool> {
        if args.is_empty() {
            return Err(Diagnostic::new(span, "`#if` with no expression"));
        }
        let toks = self.expand(args.iter().map(PTok::from).collect(), Mode::Condition, false)?;
        let mut eval = Eval { toks: &toks, pos: 0, directive: span, depth: 0 };
        let value = eval.conditional(true)?;
        if let Some(t) = toks.get(eval.pos) {
            return Err(Diagnostic::new(
                t.tok.span,
                format!("missing binary operator before `{}` in preprocessor expression", t.tok.text()),
            ));
        }
        Ok(value != 0)
    }

    /// Fully macro-expands `input`. `nested` is set while expanding a macro argument, which
    /// belongs to the invocation being expanded and so shares its expansion budget.
    fn expand(&mut self, input: Vec<PTok>, mode: Mode, nested: bool) -> Result<Vec<PTok>> {
        let mut stack: Vec<PTok> = input.into_iter().rev().collect();
        let mut out = Vec::new();
        // Stack height below which tokens come from the input rather than from an expansion.
        let mut input_height = stack.len();
        while let Some(t) = stack.pop() {
            let from_input = stack.len() < input_height;
            input_height = input_height.min(stack.len());
            let Some(name) = t.ident() else {
                out.push(t);
                continue;
            };
            if t.hide.contains(name) {
                out.push(t);
                continue;
            }
            if mode == Mode::Condition && name == "defined" {
                let value = self.defined_operator(&t, &mut stack)?;
                out.push(PTok::new(TokenKind::Int(value.to_string()), t.tok.span, t.space));
                continue;
            }
            let Some(m) = self.macros.get(name).cloned() else {
                out.push(self.builtin(&t).unwrap_or(t));
                continue;
            };
            let (args, hide) = match m.params {
                None => (Vec::new(), t.hide.with(&m.name)),
                Some(_) if !stack.last().is_some_and(|n| n.tok.is_punct("(")) => {
                    out.push(t);
                    continue;
                }
                Some(count) => {
                    let (args, rparen) = collect_args(&t, &m, count, &mut stack)?;
                    (args, t.hide.intersection(&rparen.hide).with(&m.name))
                }
            };
            input_height = input_height.min(stack.len());
            if from_input && !nested {
                self.produced = 0;
            }
            let mut expansion = self.substitute(&m, &t, args, mode)?;
            self.produced += expansion.len();
            if self.produced > MAX_EXPANSION_TOKENS {
                return Err(Diagnostic::new(
                    t.tok.span,
                    format!("expanding macro `{}` produces more than {MAX_EXPANSION_TOKENS} tokens", m.name),
                ));
            }
            for (k, e) in expansion.iter_mut().enumerate() {
                e.tok.span = t.tok.span;
                e.hide = e.hide.union(&hide);
                if k == 0 {
                    e.space = t.space;
                }
            }
            stack.extend(expansion.into_iter().rev());
        }
        Ok(out)
    }

    /// `__LINE__` and `__FILE__`, where the invocation is.
    fn builtin(&self, t: &PTok) -> Option<PTok> {
        let file = self.sm.get(t.tok.span.file)?;
        let kind = match t.ident()? {
            "__LINE__" => TokenKind::Int(file.line_col(t.tok.span.lo as usize).0.to_string()),
            "__FILE__" => TokenKind::Str(format!("\"{}\"", escape(&file.path.display().to_string()))),
            _ => return None,
        };
        Some(PTok { tok: Token { kind, span: t.tok.span }, space: t.space, hide: t.hide.clone() })
    }

    /// `defined X` or `defined ( X )`, with `defined` already taken from the stack.
    fn defined_operator(&self, t: &PTok, stack: &mut Vec<PTok>) -> Result<i64> {
        let missing = || Diagnostic::new(t.tok.span, "`defined` must be followed by a macro name");
        let mut next = stack.pop().ok_or_else(missing)?;
        let paren = next.tok.is_punct("(");
        if paren {
            next = stack.pop().ok_or_else(missing)?;
        }
        let name = next.ident().ok_or_else(|| Diagnostic::new(next.tok.span, "`defined` must be followed by a macro name"))?;
        let value = self.is_defined(name) as i64;
        if paren && !stack.pop().is_some_and(|c| c.tok.is_punct(")")) {
            return Err(Diagnostic::new(next.tok.span, "missing `)` after `defined(NAME`"));
        }
        Ok(value)
    }

    /// The replacement list of `m` with its parameters replaced and `#`/`##` applied. Spans
    /// and hide sets are the caller's business.
    fn substitute(&mut self, m: &Macro, invocation: &PTok, args: Vec<Vec<PTok>>, mode: Mode) -> Result<Vec<PTok>> {
        let span = invocation.tok.span;
        let mut expanded: Vec<Option<Vec<PTok>>> = vec![None; args.len()];
        let mut out: Vec<Piece> = Vec::with_capacity(m.body.len());
        let mut i = 0;
        while i < m.body.len() {
            let paste = m.body[i].is_punct("##");
            if paste {
                i += 1;
            }
            // `#define` rejects a trailing `##`, so an operand always follows.
            let Some(item) = m.body.get(i) else { break };
            let (mut pieces, used): (Vec<Piece>, usize) = match item {
                Item::Tok(t) if m.params.is_some() && t.tok.is_punct("#") => match m.body.get(i + 1) {
                    Some(Item::Param { index, .. }) => {
                        let text = stringify(args.get(*index).map_or(&[][..], Vec::as_slice));
                        (vec![Piece::Tok(PTok::new(TokenKind::Str(text), span, t.space))], 2)
                    }
                    _ => (vec![Piece::Tok(t.clone())], 1),
                },
                Item::Tok(t) => (vec![Piece::Tok(t.clone())], 1),
                &Item::Param { index, space } => {
                    let raw = args.get(index).map_or(&[][..], Vec::as_slice);
                    let operand_of_paste = paste || m.body.get(i + 1).is_some_and(|n| n.is_punct("##"));
                    let mut toks = if operand_of_paste {
                        raw.to_vec()
                    } else {
                        if expanded[index].is_none() {
                            if self.arg_depth >= MAX_NESTING {
                                return Err(Diagnostic::new(span, format!("macro arguments nested more than {MAX_NESTING} levels deep")));
                            }
                            self.arg_depth += 1;
                            let result = self.expand(raw.to_vec(), mode, true);
                            self.arg_depth -= 1;
                            expanded[index] = Some(result?);
                        }
                        expanded[index].clone().unwrap_or_default()
                    };
                    if let Some(first) = toks.first_mut() {
                        first.space = space;
                    }
                    if toks.is_empty() && operand_of_paste {
                        (vec![Piece::Placemarker], 1)
                    } else {
                        (toks.into_iter().map(Piece::Tok).collect(), 1)
                    }
                }
            };
            if paste {
                let is_va_args = matches!(item, Item::Param { index, .. } if m.variadic && index + 1 == args.len());
                match out.pop() {
                    // GNU `, ## __VA_ARGS__`: the comma disappears with an empty argument
                    // and is otherwise left alone.
                    Some(Piece::Tok(comma))
                        if is_va_args && comma.tok.is_punct(",") && matches!(pieces.first(), Some(Piece::Placemarker)) =>
                    {
                        drop(comma)
                    }
                    Some(Piece::Tok(comma)) if is_va_args && comma.tok.is_punct(",") => out.push(Piece::Tok(comma)),
                    Some(lhs) => {
                        let rhs = if pieces.is_empty() { Piece::Placemarker } else { pieces.remove(0) };
                        out.push(paste_pieces(lhs, rhs, span)?);
                    }
                    None => {}
                }
            }
            out.append(&mut pieces);
            i += used;
        }
        Ok(out
            .into_iter()
            .filter_map(|p| match p {
                Piece::Tok(t) => Some(t),
                Piece::Placemarker => None,
            })
            .collect())
    }
}

/// Whether the innermost open conditional (and so every enclosing one) is taking its group.
fn in_active_group(conds: &[Cond]) -> bool {
    match conds.last() {
        Some(c) => c.active,
        None => true,
    }
}

/// The identifier after `#ifdef`/`#ifndef`/`#undef`/`#define` (`directive` is the directive
/// name, for the error when there is none).
fn macro_name<'t>(directive: &PpToken, tok: Option<&'t PpToken>) -> Result<&'t str> {
    match tok {
        Some(PpToken { tok: Token { kind: TokenKind::Ident(name), .. }, .. }) => Ok(name),
        Some(t) => Err(Diagnostic::new(t.tok.span, format!("macro names must be identifiers, found `{}`", t.tok.text()))),
        None => Err(Diagnostic::new(directive.tok.span, format!("macro name missing after `#{}`", directive.tok.text()))),
    }
}

/// Reads the parenthesised arguments of an invocation of `m` (the `(` is on top of the stack).
/// Returns them unexpanded, and the closing parenthesis.
fn collect_args(name: &PTok, m: &Macro, count: usize, stack: &mut Vec<PTok>) -> Result<(Vec<Vec<PTok>>, PTok)> {
    stack.pop();
    let mut args: Vec<Vec<PTok>> = vec![Vec::new()];
    let mut depth = 0usize;
    let rparen = loop {
        let t = stack.pop().ok_or_else(|| {
            Diagnostic::new(name.tok.span, format!("unterminated argument list invoking macro `{}`", m.name))
                .with_help("the closing `)` is missing (a macro's arguments cannot contain a preprocessing directive)")
        })?;
        if depth == 0 && t.tok.is_punct(")") {
            break t;
        }
        // The variadic parameter takes all remaining arguments, commas included.
        if depth == 0 && t.tok.is_punct(",") && !(m.variadic && args.len() == count) {
            args.push(Vec::new());
            continue;
        }
        if t.tok.is_punct("(") {
            depth += 1;
        } else if t.tok.is_punct(")") {
            depth -= 1;
        }
        if let Some(arg) = args.last_mut() {
            arg.push(t);
        }
    };
    if count == 0 && args.len() == 1 && args[0].is_empty() {
        args.clear();
    }
    // `F(a)` for `F(x, ...)`: the variadic argument is empty.
    if m.variadic && args.len() + 1 == count {
        args.push(Vec::new());
    }
    if args.len() != count {
        let takes = if m.variadic { format!("at least {}", count - 1) } else { count.to_string() };
        return Err(Diagnostic::new(name.tok.span, format!("macro `{}` takes {takes} argument(s), but {} were given", m.name, args.len())));
    }
    Ok((args, rparen))
}

/// `#x`: the argument's spelling as a string literal, with one space wherever it had
/// whitespace and `"`/`\` escaped inside string and character literals (only there, as C
/// says: `#x` of `\n` is `"\n"`).
fn stringify(arg: &[PTok]) -> String {
    let text = join_tokens(arg.iter().map(|t| match &t.tok.kind {
        TokenKind::Str(s) | TokenKind::Char(s) => (escape(s), t.space),
        _ => (t.tok.text(), t.space),
    }));
    format!("\"{text}\"")
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Token spellings separated by one space where the source had whitespace.
fn join_tokens(toks: impl Iterator<Item = (String, bool)>) -> String {
    let mut s = String::new();
    for (text, space) in toks {
        if space && !s.is_empty() {
            s.push(' ');
        }
        s.push_str(&text);
    }
    s
}

/// `lhs ## rhs`: the spellings glued and lexed again, which must give exactly one token.
fn paste_pieces(lhs: Piece, rhs: Piece, span: Span) -> Result<Piece> {
    let (lhs, rhs) = match (lhs, rhs) {
        (Piece::Placemarker, other) | (other, Piece::Placemarker) => return Ok(other),
        (Piece::Tok(l), Piece::Tok(r)) => (l, r),
    };
    let text = format!("{}{}", lhs.tok.text(), rhs.tok.text());
    let invalid = || {
        Diagnostic::new(span, format!("pasting `{}` and `{}` does not give a valid preprocessing token", lhs.tok.text(), rhs.tok.text()))
    };
    let mut toks = lexer::lex_text(&text, span.file).map_err(|_| invalid())?;
    match (toks.pop(), toks.is_empty()) {
        (Some(t), true) if t.tok.span.hi as usize == text.len() && !t.space_before => {
            Ok(Piece::Tok(PTok::new(t.tok.kind, span, lhs.space)))
        }
        _ => Err(invalid()),
    }
}

/// Recursive-descent evaluation of a `#if` expression in `i64`. Operands of `&&`, `||` and
/// `?:` that C does not evaluate are parsed with `live` false, so that `0 && 1/0` is fine.
struct Eval<'t> {
    toks: &'t [PTok],
    pos: usize,
    directive: Span,
    /// Current nesting of sub-expressions.
    depth: usize,
}

impl Eval<'_> {
    fn peek_punct(&self) -> Option<&str> {
        match &self.toks.get(self.pos)?.tok.kind {
            TokenKind::Punct(p) => Some(p),
            _ => None,
        }
    }

    fn expect(&mut self, p: &str) -> Result<()> {
        if self.peek_punct() == Some(p) {
            self.pos += 1;
            return Ok(());
        }
        Err(match self.toks.get(self.pos) {
            Some(t) => Diagnostic::new(t.tok.span, format!("expected `{p}` in preprocessor expression, found `{}`", t.tok.text())),
            None => Diagnostic::new(self.directive, format!("expected `{p}` at the end of the preprocessor expression")),
        })
    }

    /// Runs `f` one level of nesting deeper.
    fn nested(&mut self, f: impl FnOnce(&mut Self) -> Result<i64>) -> Result<i64> {
        if self.depth >= MAX_NESTING {
            return Err(Diagnostic::new(self.directive, format!("preprocessor expression nested more than {MAX_NESTING} levels deep")));
        }
        self.depth += 1;
        let result = f(self);
        self.depth -= 1;
        result
    }

    fn conditional(&mut self, live: bool) -> Result<i64> {
        let cond = self.binary(1, live)?;
        if self.peek_punct() != Some("?") {
            return Ok(cond);
        }
        self.pos += 1;
        let then = self.nested(|e| e.conditional(live && cond != 0))?;
        self.expect(":")?;
        let otherwise = self.nested(|e| e.conditional(live && cond == 0))?;
        Ok(if cond != 0 { then } else { otherwise })
    }

    fn precedence(op: &str) -> Option<u8> {
        Some(match op {
            "||" => 1,
            "&&" => 2,
            "|" => 3,
            "^" => 4,
            "&" => 5,
            "==" | "!=" => 6,
            "<" | "<=" | ">" | ">=" => 7,
            "<<" | ">>" => 8,
            "+" | "-" => 9,
            "*" | "/" | "%" => 10,
            _ => return None,
        })
    }

    /// Precedence climbing over the left-associative binary operators.
    fn binary(&mut self, min: u8, live: bool) -> Result<i64> {
        let mut lhs = self.unary(live)?;
        while let Some(op) = self.peek_punct().map(str::to_string) {
            let Some(prec) = Self::precedence(&op).filter(|&p| p >= min) else { break };
            self.pos += 1;
            let rhs_live = match op.as_str() {
                "&&" => live && lhs != 0,
                "||" => live && lhs == 0,
                _ => live,
            };
            let rhs = self.binary(prec + 1, rhs_live)?;
            lhs = match op.as_str() {
                "||" => (lhs != 0 || rhs != 0) as i64,
                "&&" => (lhs != 0 && rhs != 0) as i64,
                "|" => lhs | rhs,
                "^" => lhs ^ rhs,
                "&" => lhs & rhs,
                "==" => (lhs == rhs) as i64,
                "!=" => (lhs != rhs) as i64,
                "<" => (lhs < rhs) as i64,
                "<=" => (lhs <= rhs) as i64,
                ">" => (lhs > rhs) as i64,
                ">=" => (lhs >= rhs) as i64,
                "<<" => shift_left(lhs, rhs),
                ">>" => shift_left(lhs, rhs.checked_neg().unwrap_or(i64::MAX)),
                "+" => lhs.wrapping_add(rhs),
                "-" => lhs.wrapping_sub(rhs),
                "*" => lhs.wrapping_mul(rhs),
                _ if rhs == 0 && live => {
                    return Err(Diagnostic::new(self.directive, "division by zero in preprocessor expression")
                        .with_help(format!("the right operand of `{op}` is 0")))
                }
                _ if rhs == 0 => 0,
                "/" => lhs.wrapping_div(rhs),
                _ => lhs.wrapping_rem(rhs),
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self, live: bool) -> Result<i64> {
        let Some(t) = self.toks.get(self.pos) else {
            return Err(Diagnostic::new(self.directive, "preprocessor expression ends where an operand was expected"));
        };
        self.pos += 1;
        let invalid = || Diagnostic::new(t.tok.span, format!("token `{}` is not valid in preprocessor expressions", t.tok.text()));
        match &t.tok.kind {
            TokenKind::Punct(p) => match p.as_str() {
                "(" => {
                    let v = self.nested(|e| e.conditional(live))?;
                    self.expect(")")?;
                    Ok(v)
                }
                "+" => self.nested(|e| e.unary(live)),
                "-" => Ok(self.nested(|e| e.unary(live))?.wrapping_neg()),
                "~" => Ok(!self.nested(|e| e.unary(live))?),
                "!" => Ok((self.nested(|e| e.unary(live))? == 0) as i64),
                _ => Err(lexer::stray_message(&t.tok).map_or_else(invalid, |m| Diagnostic::new(t.tok.span, m))),
            },
            TokenKind::Int(text) => {
                int_value(text).ok_or_else(|| Diagnostic::new(t.tok.span, format!("integer constant `{text}` is too large")))
            }
            TokenKind::Char(text) => {
                char_value(text).ok_or_else(|| Diagnostic::new(t.tok.span, format!("invalid character constant {text}")))
            }
            // An identifier that is not a macro: 0, as C says.
            TokenKind::Ident(_) => Ok(0),
            TokenKind::Float(_) => Err(Diagnostic::new(t.tok.span, "floating constant in preprocessor expression")),
            TokenKind::Str(_) | TokenKind::Pragma(_) => Err(invalid()),
        }
    }
}

/// `lhs << amount`, shifting right for a negative amount; shifts of 64 or more give 0 (or -1
/// for a negative value shifted right) instead of C's undefined behaviour.
fn shift_left(lhs: i64, amount: i64) -> i64 {
    match amount {
        0..=63 => lhs.wrapping_shl(amount as u32),
        -63..=-1 => lhs >> -amount,
        a if a > 0 => 0,
        _ => lhs >> 63,
    }
}

/// The value of an integer literal the lexer accepted (suffixes ignored: everything is `i64`).
fn int_value(text: &str) -> Option<i64> {
    let digits = text.trim_end_matches(['u', 'U', 'l', 'L']);
    let value = if let Some(hex) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16)
    } else if digits.len() > 1 && digits.starts_with('0') {
        u64::from_str_radix(&digits[1..], 8)
    } else {
        digits.parse::<u64>()
    };
    // Values above i64::MAX are unsigned in C; they wrap here.
    value.ok().map(|v| v as i64)
}

/// The value of a character literal, as GCC computes it: a plain one-character constant is a
/// (signed) `char`, multi-character constants pack their bytes, wide ones take the code point.
fn char_value(text: &str) -> Option<i64> {
    let quote = text.find('\'')?;
    let wide = quote > 0;
    let body = text.get(quote + 1..text.len().checked_sub(1)?)?;
    let mut values = Vec::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            if wide {
                values.push(c as i64);
            } else {
                let mut buf = [0u8; 4];
                values.extend(c.encode_utf8(&mut buf).bytes().map(i64::from));
            }
            continue;
        }
        let e = chars.next()?;
        let v = match e {
            'n' => 10,
            't' => 9,
            'r' => 13,
            'a' => 7,
            'b' => 8,
            'f' => 12,
            'v' => 11,
            'e' | 'E' => 27,
            '0'..='7' => {
                let mut v = e.to_digit(8)? as i64;
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d as i64;
                            chars.next();
                        }
                        None => break,
                    }
                }
                v
            }
            'x' => {
                let mut v: i64 = 0;
                let mut any = false;
                while let Some(d) = chars.peek().and_then(|d| d.to_digit(16)) {
                    v = v.checked_mul(16)?.checked_add(d as i64)?;
                    chars.next();
                    any = true;
                }
                if !any {
                    return None;
                }
                v
            }
            other => other as i64,
        };
        values.push(v);
    }
    match values.as_slice() {
        [] => None,
        [v] if wide => Some(*v),
        [v] => Some(*v as u8 as i8 as i64),
        _ if wide => values.last().copied(),
        _ => Some(values.iter().fold(0i64, |acc, v| ((acc << 8) | (v & 0xff)) as i32 as i64)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn run(src: &str, opts: &PpOptions) -> (SourceMap, Result<Vec<Token>>) {
        let mut sm = SourceMap::new();
        let main = sm.add("main.c", src);
        let result = preprocess(&mut sm, main, opts);
        (sm, result)
    }

    /// The output as token spellings separated by single spaces.
    fn pp(src: &str) -> String {
        let (_, toks) = run(src, &PpOptions::default());
        spell(&toks.unwrap_or_else(|e| panic!("preprocessing failed: {e}")))
    }

    fn spell(toks: &[Token]) -> String {
        toks.iter().map(Token::text).collect::<Vec<_>>().join(" ")
    }

    /// `expected` respelled the way [`pp`] spells its output.
    fn normalize(expected: &str) -> String {
        let mut sm = SourceMap::new();
        let file = sm.add("expected.c", expected);
        spell(&lexer::lex(&sm, file).expect("expected text lexes").into_iter().map(|t| t.tok).collect::<Vec<_>>())
    }

    /// Preprocessing fails: the diagnostic and the text its span covers.
    fn pp_err(src: &str) -> (Diagnostic, String) {
        let (sm, result) = run(src, &PpOptions::default());
        let e = result.expect_err("preprocessing should fail");
        let text = e.span.map(|s| sm.snippet(s).to_string()).unwrap_or_default();
        (e, text)
    }

    /// A fresh directory under the system temp dir, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> TempDir {
            let dir = std::env::temp_dir().join(format!("dpnc-pp-{tag}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).expect("create temp dir");
            TempDir(dir)
        }
        fn write(&self, name: &str, text: &str) -> PathBuf {
            let path = self.0.join(name);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent).expect("create dir");
            }
            fs::write(&path, text).expect("write file");
            path
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn pp_file(path: &Path, opts: &PpOptions) -> (SourceMap, Result<Vec<Token>>) {
        let mut sm = SourceMap::new();
        let main = sm.load(path).expect("load main file");
        let result = preprocess(&mut sm, main, opts);
        (sm, result)
    }

    #[test]
    fn object_like_macros() {
        assert_eq!(pp("#define N 10\n#define M (N + 2)\nint a[N][M];"), "int a [ 10 ] [ ( 10 + 2 ) ] ;");
        assert_eq!(pp("#define EMPTY\nint EMPTY x;"), "int x ;");
        assert_eq!(pp("#define N 1\n#undef N\nN"), "N");
    }

    #[test]
    fn function_like_macros() {
        assert_eq!(pp("#define MAX(a,b) ((a)>(b)?(a):(b))\nMAX(x, y+1)"), normalize("((x)>(y+1)?(x):(y+1))"));
        // Parentheses nest inside arguments; arguments may span lines.
        assert_eq!(pp("#define F(a, b) [a|b]\nF((1, 2), g(3,\n 4))"), "[ ( 1 , 2 ) | g ( 3 , 4 ) ]");
        assert_eq!(pp("#define Z() 0\n#define ONE(x) <x>\nZ() ONE() ONE( )"), "0 < > < >");
        // Without `(` the name is an ordinary identifier, even across a newline check.
        assert_eq!(pp("#define f(x) x\nint f; f\n(1)"), "int f ; 1");
        // A space before `(` in the definition makes an object-like macro.
        assert_eq!(pp("#define G (x) x\nG"), "( x ) x");
    }

    #[test]
    fn arguments_are_expanded_before_substitution_and_result_rescanned() {
        assert_eq!(pp("#define N 4\n#define SQ(x) x*x\nSQ(N)"), "4 * 4");
        assert_eq!(pp("#define f(x) x(1)\n#define g(y) [y]\nf(g)"), "[ 1 ]");
        assert_eq!(pp("#define f(x) (x)\n#define id f\nid(2)"), "( 2 )");
    }

    #[test]
    fn painted_blue_macros_are_not_reexpanded() {
        assert_eq!(pp("#define foo foo bar\nfoo"), "foo bar");
        assert_eq!(pp("#define a b\n#define b a\na b"), "a b");
        assert_eq!(pp("#define f(x) f(x + 1)\nf(f(0))"), "f ( f ( 0 + 1 ) + 1 )");
    }

    /// C99 6.10.3.5, example 3.
    #[test]
    fn standard_example_3() {
        let src = "#define x 3\n#define f(a) f(x * (a))\n#undef x\n#define x 2\n#define g f\n#define z z[0]\n#define h g(~\n#define m(a) a(w)\n#define w 0,1\n#define t(a) a\n#define p() int\n#define q(x) x\n#define r(x,y) x ## y\n#define str(x) # x\n\
f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);\n\
g(x+(3,4)-w) | h 5) & m\n(f)^m(m);\n\
p() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };\n\
char c[2][6] = { str(hello), str() };\n";
        let expected = "f(2 * (y+1)) + f(2 * (f(2 * (z[0])))) % f(2 * (0)) + t(1);\n\
f(2 * (2+(3,4)-0,1)) | f(2 * (~ 5)) & f(2 * (0,1))^m(0,1);\n\
int i[] = { 1, 23, 4, 5, };\n\
char c[2][6] = { \"hello\", \"\" };";
        assert_eq!(pp(src), normalize(expected));
    }

    /// C99 6.10.3.5, example 4: `#` and `##`.
    #[test]
    fn standard_example_4_stringify_and_paste() {
        let src = r#"#define str(s) # s
#define xstr(s) str(s)
#define debug(s, t) printf("x" # s "= %d, x" # t "= %s", \
 x ## s, x ## t)
#define INCFILE(n) vers ## n
#define glue(a, b) a ## b
#define xglue(a, b) glue(a, b)
#define HIGHLOW "hello"
#define LOW LOW ", world"
debug(1, 2);
fputs(str(strncmp("abc\0d", "abc", '\4') // this goes away
 == 0) str(: @\n), s);
xstr(INCFILE(2).h)
glue(HIGH, LOW);
xglue(HIGH, LOW)
"#;
        let (_, toks) = run(src, &PpOptions::default());
        let toks = toks.expect("preprocesses");
        let strings: Vec<String> = toks.iter().filter(|t| matches!(t.kind, TokenKind::Str(_))).map(Token::text).collect();
        assert_eq!(
            strings,
            vec![
                r#""x""#,
                r#""1""#,
                r#""= %d, x""#,
                r#""2""#,
                r#""= %s""#,
                r#""strncmp(\"abc\\0d\", \"abc\", '\\4') == 0""#,
                r#"": @\n""#,
                r#""vers2.h""#,
                r#""hello""#,
                r#""hello""#,
                r#"", world""#,
            ]
        );
        assert!(spell(&toks).starts_with(r#"printf ( "x" "1" "= %d, x" "2" "= %s" , x1 , x2 ) ;"#));
    }

    /// C99 6.10.3.5, example 5: placemarkers.
    #[test]
    fn standard_example_5_empty_arguments_and_paste() {
        let src = "#define t(x,y,z) x ## y ## z\nint j[] = { t(1,2,3), t(,4,5), t(6,,7), t(8,9,),\n t(10,,), t(,11,), t(,,12), t(,,) };";
        assert_eq!(pp(src), normalize("int j[] = { 123, 45, 67, 89, 10, 11, 12, };"));
    }

    /// C99 6.10.3.5, example 7: variadic macros.
    #[test]
    fn standard_example_7_variadic() {
        let src = r#"#define debug(...) fprintf(stderr, __VA_ARGS__)
#define showlist(...) puts(#__VA_ARGS__)
#define report(test, ...) ((test)?puts(#test): printf(__VA_ARGS__))
debug("Flag");
debug("X = %d\n", x);
showlist(The first, second, and third items.);
report(x>y, "x is %d but y is %d", x, y);
"#;
        let expected = r#"fprintf(stderr, "Flag" );
fprintf(stderr, "X = %d\n", x );
puts( "The first, second, and third items." );
((x>y)?puts("x>y"): printf("x is %d but y is %d", x, y));"#;
        assert_eq!(pp(src), normalize(expected));
    }

    #[test]
    fn hash_hash_built_by_pasting_is_an_ordinary_token() {
        let src = "#define hash_hash # ## #\n#define mkstr(a) # a\n#define in_between(a) mkstr(a)\n#define join(c, d) in_between(c hash_hash d)\nchar p[] = join(x, y);";
        assert_eq!(pp(src), normalize("char p[] = \"x ## y\";"));
    }

    #[test]
    fn paste_builds_numbers_and_identifiers() {
        // PolyBench's SCALAR_VAL for float data.
        assert_eq!(pp("#define SCALAR_VAL(x) x##f\nSCALAR_VAL(1.5) SCALAR_VAL(0.0)"), "1.5f 0.0f");
        let (_, toks) = run("#define SCALAR_VAL(x) x##f\nSCALAR_VAL(1.5)", &PpOptions::default());
        assert_eq!(toks.expect("ok")[0].kind, TokenKind::Float("1.5f".into()));
        assert_eq!(pp("#define CAT(a, b) a ## b\n#define N 3\nCAT(x, N) CAT(<, <=)"), "xN <<=");
    }

    #[test]
    fn gnu_comma_paste_with_empty_va_args() {
        let src = "#define P(fmt, ...) printf(fmt, ## __VA_ARGS__)\nP(\"a\"); P(\"b\", 1, 2);";
        assert_eq!(pp(src), normalize("printf(\"a\"); printf(\"b\", 1, 2);"));
    }

    #[test]
    fn conditionals_select_groups() {
        let src = "#define A 2\n#if A == 2\none\n#if 0\nnot\n#elif A\ntwo\n#else\nnot\n#endif\n#elif 1\nnot\n#else\nnot\n#endif\n#ifdef A\nthree\n#endif\n#ifndef A\nnot\n#else\nfour\n#endif\n#ifdef B\nnot\n#elif defined B || defined(A)\nfive\n#endif";
        assert_eq!(pp(src), "one two three four five");
    }

    #[test]
    fn skipped_groups_tolerate_anything() {
        let src = "#if 0\n#unknown directive\n#if 1/0\n#error no\n#endif\ndon't \"open @\n#include \"missing.h\"\n#else\nyes\n#endif";
        assert_eq!(pp(src), "yes");
    }

    #[test]
    fn if_expression_arithmetic() {
        let cases = [
            ("1 + 2 * 3 == 7", true),
            ("(1 + 2) * 3 == 9", true),
            ("10 / 3 == 3 && 10 % 3 == 1", true),
            ("-1 < 0 && ~0 == -1 && !0 == 1", true),
            ("1 << 4 == 16 && 256 >> 4 == 16", true),
            ("(6 & 3) == 2 && (6 | 3) == 7 && (6 ^ 3) == 5", true),
            ("1 ? 2 : 0", true),
            ("0 ? 1 : 0", false),
            ("0 || 0", false),
            ("3 >= 3 && 3 <= 3 && 2 > 1 && 2 != 1", true),
            ("0x10 == 16 && 010 == 8 && 10UL == 10 && 5ll == 5", true),
            ("'a' == 97 && '\\n' == 10 && '\\0' == 0 && '\\x41' == 65", true),
            ("UNDEFINED_NAME == 0", true),
            ("defined(X) || defined Y", false),
            ("!(0 && 1 / 0)", true),
            ("1 || 1 % 0", true),
            ("0 ? 1 / 0 : 1", true),
            ("-9223372036854775807 - 1 < 0", true),
        ];
        for (expr, expected) in cases {
            let got = pp(&format!("#if {expr}\ny\n#else\nn\n#endif"));
            assert_eq!(got, if expected { "y" } else { "n" }, "#if {expr}");
        }
    }

    #[test]
    fn if_expressions_expand_macros_and_defined() {
        let src = "#define N 8\n#define IS(x) ((x) > 4)\n#define D defined(N)\n#if IS(N) && D && !defined UNDEF\nyes\n#endif\n#if defined N && N / 2 == 4\nyes2\n#endif";
        assert_eq!(pp(src), "yes yes2");
        // The operand of `defined` is not expanded.
        assert_eq!(pp("#define A B\n#if defined(A) && !defined(B)\nok\n#endif"), "ok");
    }

    #[test]
    fn division_by_zero_is_an_error_at_the_directive() {
        let (e, text) = pp_err("int x;\n#if 1 / (2 - 2)\n#endif\n");
        assert!(e.message.contains("division by zero"), "{}", e.message);
        assert_eq!(text, "#if 1 / (2 - 2)");
        let (e, _) = pp_err("#if 1 % 0\n#endif\n");
        assert!(e.message.contains("division by zero"));
    }

    #[test]
    fn malformed_if_expressions() {
        for (src, needle) in [
            ("#if\n#endif", "no expression"),
            ("#if 1 +\n#endif", "operand"),
            ("#if (1\n#endif", "`)`"),
            ("#if 1 2\n#endif", "missing binary operator"),
            ("#if 1.5\n#endif", "floating"),
            ("#if \"s\"\n#endif", "not valid"),
            ("#if defined\n#endif", "macro name"),
        ] {
            let (e, _) = pp_err(src);
            assert!(e.message.contains(needle), "{src:?}: {}", e.message);
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let parens = format!("#if {}1{}\n#endif", "(".repeat(5000), ")".repeat(5000));
        assert!(pp_err(&parens).0.message.contains("nested"));
        let nots = format!("#if {}1\n#endif", "!".repeat(5000));
        assert!(pp_err(&nots).0.message.contains("nested"));
        let calls = format!("#define f(x) x\n{}1{}", "f(".repeat(1000), ")".repeat(1000));
        assert!(pp_err(&calls).0.message.contains("nested"));
        // Moderate nesting is fine.
        assert_eq!(pp(&format!("#define f(x) x\n{}1{}", "f(".repeat(100), ")".repeat(100))), "1");
    }

    #[test]
    fn conditional_structure_errors() {
        let (e, text) = pp_err("int a;\n#if 1\nint b;\n");
        assert!(e.message.contains("unterminated"), "{}", e.message);
        assert_eq!(text, "#if 1");
        let (_, text) = pp_err("#ifdef X\n#if 0\n#endif\n");
        assert_eq!(text, "#ifdef X");
        for (src, needle) in [
            ("#endif\n", "`#endif` without `#if`"),
            ("#else\n", "`#else` without `#if`"),
            ("#elif 1\n", "`#elif` without `#if`"),
            ("#if 1\n#else\n#else\n#endif", "`#else` after `#else`"),
            ("#if 0\n#else\n#elif 1\n#endif", "`#elif` after `#else`"),
        ] {
            let (e, text) = pp_err(src);
            assert!(e.message.contains(needle), "{src:?}: {}", e.message);
            assert!(text.starts_with('#'), "{src:?}: span {text:?}");
        }
    }

    #[test]
    fn error_directive() {
        let (e, text) = pp_err("#ifndef N\n#error N must be defined, don't forget\n#endif\n");
        assert_eq!(e.message, "#error N must be defined, don't forget");
        assert_eq!(text, "#error N must be defined, don't forget");
        assert_eq!(pp("#if 0\n#error hidden\n#endif\nok"), "ok");
    }

    #[test]
    fn ignored_and_unknown_directives() {
        assert_eq!(pp("#\n#warning careful\n#line 10 \"x.c\"\n# 1 \"y.c\"\nok"), "ok");
        let (e, text) = pp_err("#frobnicate 1\n");
        assert!(e.message.contains("unknown preprocessing directive `#frobnicate`"));
        assert_eq!(text, "frobnicate");
    }

    #[test]
    fn pragmas_become_single_tokens() {
        let src = "void f() {\n#pragma scop\n  x = 1;\n#  pragma   omp parallel  for /* c */ private(i)\n#pragma endscop\n}\n";
        let (sm, toks) = run(src, &PpOptions::default());
        let toks = toks.expect("ok");
        let pragmas: Vec<_> = toks
            .iter()
            .filter_map(|t| if let TokenKind::Pragma(p) = &t.kind { Some((p.as_str(), sm.snippet(t.span))) } else { None })
            .collect();
        assert_eq!(
            pragmas,
            vec![
                ("scop", "#pragma scop"),
                ("omp parallel for private(i)", "#  pragma   omp parallel  for /* c */ private(i)"),
                ("endscop", "#pragma endscop")
            ]
        );
        assert_eq!(spell(&toks), "void f ( ) { #pragma scop x = 1 ; #pragma omp parallel for private(i) #pragma endscop }");
        // Macros in pragmas are not expanded; pragmas in skipped groups vanish.
        assert_eq!(pp("#define scop X\n#pragma scop\n#if 0\n#pragma hidden\n#endif"), "#pragma scop");
    }

    #[test]
    fn file_tokens_keep_their_spans_and_expanded_tokens_point_at_the_invocation() {
        let src = "#define N 10\n#define ARR(v, n) v[n]\n#define OUTER ARR(b, N)\nint a[N]; ARR(x, N); OUTER;\n";
        let (sm, toks) = run(src, &PpOptions::default());
        let toks = toks.expect("ok");
        let view: Vec<(String, &str)> = toks.iter().map(|t| (t.text(), sm.snippet(t.span))).collect();
        let expect = [
            ("int", "int"),
            ("a", "a"),
            ("[", "["),
            ("10", "N"),
            ("]", "]"),
            (";", ";"),
            ("x", "ARR"),
            ("[", "ARR"),
            ("10", "ARR"),
            ("]", "ARR"),
            (";", ";"),
            ("b", "OUTER"),
            ("[", "OUTER"),
            ("10", "OUTER"),
            ("]", "OUTER"),
            (";", ";"),
        ];
        assert_eq!(view, expect.iter().map(|(a, b)| (a.to_string(), *b)).collect::<Vec<_>>());
        // The invocation's span is the one in the main file, not in the macro definition.
        let line_of = |t: &Token| sm.file(t.span.file).line_col(t.span.lo as usize).0;
        assert!(toks.iter().all(|t| line_of(t) == 4));
    }

    #[test]
    fn builtin_line_and_file() {
        assert_eq!(pp("a\nb __LINE__\n#define L __LINE__\nL"), "a b 2 4");
        assert_eq!(pp("__FILE__"), "\"main.c\"");
        assert_eq!(pp("#if defined(__LINE__) && __STDC_VERSION__ >= 199901L && __STDC__\nc99\n#endif"), "c99");
    }

    #[test]
    fn command_line_defines() {
        let opts = PpOptions {
            include_dirs: vec![],
            defines: vec![
                ("SMALL_DATASET".into(), None),
                ("N".into(), Some("42".into())),
                ("SQ(x)".into(), Some("((x)*(x))".into())),
                ("EMPTY".into(), Some(String::new())),
            ],
        };
        let (_, toks) = run("#ifdef SMALL_DATASET\nSMALL_DATASET N SQ(2) [EMPTY]\n#endif", &opts);
        assert_eq!(spell(&toks.expect("ok")), "1 42 ( ( 2 ) * ( 2 ) ) [ ]");
        // A file can still override them.
        let (_, toks) = run("#undef N\n#define N 7\nN", &opts);
        assert_eq!(spell(&toks.expect("ok")), "7");
    }

    #[test]
    fn define_errors_point_at_the_culprit() {
        for (src, needle, culprit) in [
            ("#define\n", "macro name missing", "define"),
            ("#define 3 x\n", "must be identifiers", "3"),
            ("#define defined 1\n", "`defined`", "defined"),
            ("#define F(a, a) a\n", "duplicate macro parameter", "a"),
            ("#define F(a b) a\n", "expected `,` or `)`", "b"),
            ("#define F(1) a\n", "parameter name", "1"),
            ("#define F(a\n", "missing `)`", "F"),
            ("#define F(..., a) a\n", "`...` must be the last", "..."),
            ("#define F(a) # b\n", "`#` is not followed by a macro parameter", "#"),
            ("#define F(a) ## a\n", "`##` cannot appear", "##"),
            ("#define F a ##\n", "`##` cannot appear", "##"),
            ("#define F(a) __VA_ARGS__\n", "variadic", "__VA_ARGS__"),
        ] {
            let (e, text) = pp_err(src);
            assert!(e.message.contains(needle), "{src:?}: {}", e.message);
            assert_eq!(text, culprit, "{src:?}");
        }
    }

    #[test]
    fn invocation_errors_point_at_the_macro_name() {
        for (src, needle) in [
            ("#define F(a, b) a\nint x = F(1);\n", "takes 2 argument(s), but 1 were given"),
            ("#define F(a) a\nint x = F(1, 2);\n", "takes 1 argument(s), but 2 were given"),
            ("#define F(a, b, ...) a\nint x = F(1);\n", "at least 2"),
            ("#define F(a) a\nint x = F(1;\n", "unterminated argument list"),
            ("#define F(a) a\nint x = F(1,\n#define G\n2);\n", "unterminated argument list"),
            ("#define F(a, b) a ## b\nint x = F(+, /);\n", "pasting `+` and `/`"),
            ("#define F(a, b) a ## b\nint x = F(/, /);\n", "pasting `/` and `/`"),
        ] {
            let (e, text) = pp_err(src);
            assert!(e.message.contains(needle), "{src:?}: {}", e.message);
            assert_eq!(text, "F", "{src:?}");
        }
    }

    #[test]
    fn stray_characters_in_active_code_are_errors() {
        let (e, text) = pp_err("int x = 'a;\n");
        assert_eq!(e.message, "missing terminating ' character");
        assert_eq!(text, "'");
        let (e, text) = pp_err("int @x;\n");
        assert!(e.message.contains("stray `@`"));
        assert_eq!(text, "@");
        // Stringified, they are just text.
        assert_eq!(pp("#define S(x) #x\nS(@ $)"), "\"@ $\"");
    }

    #[test]
    fn runaway_expansion_is_stopped() {
        let mut src = String::from("#define a0 x\n");
        for k in 1..=24 {
            src.push_str(&format!("#define a{k} a{} a{}\n", k - 1, k - 1));
        }
        src.push_str("int v; a24");
        let (e, text) = pp_err(&src);
        assert!(e.message.contains("more than 1000000 tokens"), "{}", e.message);
        assert_eq!(text, "a24");
        // Several big invocations in one run are fine: the budget is per invocation (each of
        // these produces about 200,000 tokens, counting intermediate ones).
        let mut src = String::from("#define a0 x\n");
        for k in 1..=16 {
            src.push_str(&format!("#define a{k} a{} a{}\n", k - 1, k - 1));
        }
        src.push_str(&"a16 ".repeat(6));
        let (_, toks) = run(&src, &PpOptions::default());
        assert_eq!(toks.expect("within budget").len(), 6 << 16);
    }

    #[test]
    fn includes_search_current_dir_then_include_dirs() {
        let tmp = TempDir::new("search");
        tmp.write("inc1/common.h", "from_inc1");
        tmp.write("inc2/common.h", "from_inc2");
        tmp.write("inc2/only2.h", "only2 <only2.h>");
        tmp.write("src/common.h", "from_src");
        tmp.write("src/sub/deep.h", "#include \"near.h\"\n");
        tmp.write("src/sub/near.h", "near");
        let main = tmp.write("src/main.c", "#include \"common.h\"\n#include <common.h>\n#include \"only2.h\"\n#include <stdio.h>\n#include <math.h>\n#include \"sub/deep.h\"\nend\n");
        let opts = PpOptions { include_dirs: vec![tmp.0.join("inc1"), tmp.0.join("inc2")], defines: vec![] };
        let (sm, toks) = pp_file(&main, &opts);
        let toks = toks.expect("ok");
        assert_eq!(spell(&toks), "from_src from_inc1 only2 < only2 . h > near end");
        // Tokens from a header carry spans into the header.
        assert_eq!(sm.file(toks[0].span.file).path, tmp.0.join("src").join("common.h"));
    }

    #[test]
    fn include_guards_and_pragma_once() {
        let tmp = TempDir::new("guards");
        tmp.write("g.h", "#ifndef G_H\n#define G_H\nguarded\n#endif\n");
        tmp.write("o.h", "#pragma once\nonce\n");
        let main = tmp
            .write("main.c", "#include \"g.h\"\n#include \"g.h\"\n#include \"o.h\"\n#include \"o.h\"\n#define HDR \"g.h\"\n#include HDR\n");
        let (_, toks) = pp_file(&main, &PpOptions::default());
        assert_eq!(spell(&toks.expect("ok")), "guarded once");
    }

    #[test]
    fn include_errors() {
        let tmp = TempDir::new("errors");
        let main = tmp.write("main.c", "int x;\n#include \"nowhere.h\"\n");
        let (sm, result) = pp_file(&main, &PpOptions::default());
        let e = result.expect_err("missing include");
        assert!(e.message.contains("cannot find include file \"nowhere.h\""), "{}", e.message);
        assert_eq!(e.span.map(|s| sm.snippet(s)), Some("#include \"nowhere.h\""));

        let main = tmp.write("self.c", "#include \"self.c\"\n");
        let (sm, result) = pp_file(&main, &PpOptions::default());
        let e = result.expect_err("recursive include");
        assert!(e.message.contains("nested more than 64 levels"), "{}", e.message);
        assert_eq!(e.span.map(|s| sm.snippet(s)), Some("#include \"self.c\""));

        for (src, needle) in [
            ("#include\n", "expects"),
            ("#include <stdio.h\n", "missing `>`"),
            ("#include foo\n", "expects"),
            ("#include \"\"\n", "empty file name"),
        ] {
            let (e, _) = pp_err(src);
            assert!(e.message.contains(needle), "{src:?}: {}", e.message);
        }
    }

    #[test]
    fn errors_in_included_files_point_into_them() {
        let tmp = TempDir::new("nested-err");
        tmp.write("bad.h", "ok\n#if 1\n");
        let main = tmp.write("main.c", "#include \"bad.h\"\n#endif\n");
        let (sm, result) = pp_file(&main, &PpOptions::default());
        let e = result.expect_err("unterminated #if in header");
        let span = e.span.expect("span");
        assert_eq!(sm.file(span.file).path, tmp.0.join("bad.h"));
        assert_eq!(sm.snippet(span), "#if 1");
    }

    /// PolyBench/C, when another helper has put it in /work/scratch: the kernels preprocess
    /// and the scop region is plain C with every PolyBench macro gone.
    #[test]
    fn polybench_kernels_if_available() {
        let root = Path::new("/work/scratch/polybench");
        if !root.join("utilities/polybench.h").is_file() {
            eprintln!("skipping: no PolyBench in {}", root.display());
            return;
        }
        let opts = PpOptions { include_dirs: vec![root.join("utilities")], defines: vec![("SMALL_DATASET".into(), None)] };
        for kernel in ["linear-algebra/blas/gemm/gemm.c", "medley/nussinov/nussinov.c", "stencils/adi/adi.c"] {
            let path = root.join(kernel);
            if !path.is_file() {
                eprintln!("skipping {kernel}: not there");
                continue;
            }
            let (sm, result) = pp_file(&path, &opts);
            let toks = result.unwrap_or_else(|e| panic!("{kernel}: {}", e.render(&sm)));
            let scop =
                toks.iter().position(|t| t.kind == TokenKind::Pragma("scop".into())).unwrap_or_else(|| panic!("{kernel}: no #pragma scop"));
            let endscop = toks
                .iter()
                .position(|t| t.kind == TokenKind::Pragma("endscop".into()))
                .unwrap_or_else(|| panic!("{kernel}: no #pragma endscop"));
            assert!(scop < endscop, "{kernel}");
            for t in &toks[scop + 1..endscop] {
                assert!(
                    !matches!(&t.kind, TokenKind::Ident(s) if s.starts_with("_PB_") || s.starts_with("POLYBENCH") || s == "SCALAR_VAL"),
                    "{kernel}: unexpanded {}",
                    t.text()
                );
                assert_eq!(sm.file(t.span.file).path, path, "{kernel}: scop token {} points outside the kernel file", t.text());
            }
        }
    }
}
