//! C types: resolving written types, sizes and layouts, printing types in
//! messages, and the conversion rules of C99 (integer promotions, the usual
//! arithmetic conversions, simple-assignment constraints).

use super::{Checker, is_err};
use crate::ast::Span;
use crate::diag::Diagnostic;
use crate::hir::{CType, StructId};

/// Objects larger than this are rejected: no ParC target can hold them, and
/// it keeps every size computation far away from `u64` overflow.
pub(super) const MAX_OBJECT_SIZE: u64 = 1 << 40;

/// Integer conversion rank in C99 6.3.1.1 (only the order matters).
fn rank(t: &CType) -> u8 {
    match t {
        CType::Bool => 0,
        CType::Char | CType::UChar => 1,
        CType::Short | CType::UShort => 2,
        CType::Int | CType::UInt => 3,
        CType::Long | CType::ULong => 4,
        _ => 0,
    }
}

/// The integer promotions (C99 6.3.1.1p2): types narrower than `int`
/// become `int` (which holds all their values).
pub(super) fn promote(t: &CType) -> CType {
    match t {
        CType::Bool | CType::Char | CType::UChar | CType::Short | CType::UShort => CType::Int,
        other => other.clone(),
    }
}

/// The usual arithmetic conversions (C99 6.3.1.8) of two arithmetic types.
pub(super) fn usual_arith(a: &CType, b: &CType) -> CType {
    if *a == CType::Double || *b == CType::Double {
        return CType::Double;
    }
    if *a == CType::Float || *b == CType::Float {
        return CType::Float;
    }
    let (a, b) = (promote(a), promote(b));
    if a == b {
        return a;
    }
    let (ua, ub) = (a.is_unsigned(), b.is_unsigned());
    if ua == ub {
        return if rank(&a) >= rank(&b) { a } else { b };
    }
    let (u, s) = if ua { (a, b) } else { (b, a) };
    if rank(&u) >= rank(&s) {
        u
    } else {
        // Here `s` is `long` and `u` is `unsigned`: long holds every unsigned.
        s
    }
}

/// Default argument promotions for variadic arguments (C99 6.5.2.2p6).
pub(super) fn default_promotion(t: &CType) -> CType {
    match t {
        CType::Float => CType::Double,
        other => promote(other),
    }
}

/// Why a simple assignment (C99 6.5.16.1) is illegal.
pub(super) enum AssignProblem {
    /// Integer to pointer or pointer to integer: legal only with a cast.
    IntPtr,
    /// Pointers to different types.
    PtrMismatch,
    /// Anything else (structs, void, floating to pointer, ...).
    Incompatible,
}

/// The problem with assigning a `from` to a `to`, or `None` when it is
/// allowed. `null_const` says the source is a null pointer constant.
pub(super) fn assign_problem(to: &CType, from: &CType, null_const: bool) -> Option<AssignProblem> {
    if is_err(to) || is_err(from) || to == from {
        return None;
    }
    match (to, from) {
        (CType::Bool, f) if f.is_scalar() => None,
        (t, f) if t.is_arithmetic() && f.is_arithmetic() => None,
        // CUDA converts an integer to `dim3(n, 1, 1)` implicitly.
        (CType::Dim3, f) if f.is_integer() => None,
        (CType::Ptr(_), _) if null_const => None,
        (CType::Ptr(a), CType::Ptr(b)) => {
            // `void *` converts to and from object pointers, not function
            // pointers (gcc allows it as an extension, and so does parc:
            // `qsort`'s comparators are often passed through `void *`).
            if **a == CType::Void || **b == CType::Void || compatible(a, b) {
                None
            } else {
                Some(AssignProblem::PtrMismatch)
            }
        }
        (CType::Ptr(_), f) if f.is_integer() => Some(AssignProblem::IntPtr),
        (t, CType::Ptr(_)) if t.is_integer() => Some(AssignProblem::IntPtr),
        _ => Some(AssignProblem::Incompatible),
    }
}

/// Pointers that may be compared or subtracted: same pointee, or one is `void*`.
pub(super) fn compatible_pointers(a: &CType, b: &CType) -> bool {
    match (a, b) {
        (CType::Ptr(x), CType::Ptr(y)) => {
            compatible(x, y) || **x == CType::Void || **y == CType::Void
        }
        _ => false,
    }
}

/// Compatible types (C99 6.2.7), as far as parc's types tell them apart:
/// equal, or arrays of compatible elements one of which has an unknown
/// length, or functions whose results and parameters are compatible.
pub(super) fn compatible(a: &CType, b: &CType) -> bool {
    match (a, b) {
        _ if a == b => true,
        (CType::Ptr(x), CType::Ptr(y)) => compatible(x, y),
        (CType::Array(x, n), CType::Array(y, m)) => {
            (n == m || *n == UNSIZED || *m == UNSIZED) && compatible(x, y)
        }
        // A variable length is known only at run time: C leaves it to
        // the programmer that the lengths agree.
        (CType::VarArray(x, _), CType::Array(y, _) | CType::VarArray(y, _))
        | (CType::Array(x, _), CType::VarArray(y, _)) => compatible(x, y),
        (CType::Func(f), CType::Func(g)) => {
            f.variadic == g.variadic
                && compatible(&f.ret, &g.ret)
                && f.params.len() == g.params.len()
                && f.params
                    .iter()
                    .zip(&g.params)
                    .all(|(p, q)| compatible(p, q))
        }
        _ => false,
    }
}

/// The length of an array type whose length is not known yet: `int a[]`
/// before its initializer, `extern int a[];`.
pub(super) const UNSIZED: u64 = u64::MAX;

/// Rounds `v` up to a multiple of `a`.
pub(super) fn align_up(v: u64, a: u64) -> u64 {
    let a = a.max(1);
    v.div_ceil(a) * a
}

impl Checker {
    /// True for a struct whose definition has been seen (so its layout is known).
    pub(super) fn is_complete(&self, t: &CType) -> bool {
        match t {
            CType::Void | CType::Func(_) => false,
            CType::Struct(id) => self.structs.get(id.0 as usize).is_none_or(|s| s.complete),
            CType::Array(_, UNSIZED) => false,
            CType::Array(e, _) | CType::VarArray(e, _) => self.is_complete(e),
            _ => true,
        }
    }

    /// Size in bytes (x86-64). Incomplete and error types count as 1 so that
    /// no caller divides by zero; they were reported where they arose.
    /// Variable-length arrays have no constant size: callers that may
    /// meet them ask [`Checker::vla_size`]; here they count as 1 too.
    pub(super) fn size_of(&self, t: &CType) -> u64 {
        match t {
            CType::Void | CType::Func(_) => 1,
            CType::Bool | CType::Char | CType::UChar => 1,
            CType::Short | CType::UShort => 2,
            CType::Int | CType::UInt | CType::Float => 4,
            CType::Long | CType::ULong | CType::Double | CType::Ptr(_) => 8,
            CType::Dim3 => 12,
            CType::Array(_, UNSIZED) | CType::VarArray(..) => 1,
            CType::Array(e, n) => self.size_of(e).saturating_mul(*n),
            CType::Struct(id) => match self.structs.get(id.0 as usize) {
                Some(s) if s.complete => s.layout.size.max(1),
                _ => 1,
            },
        }
    }

    pub(super) fn align_of(&self, t: &CType) -> u64 {
        match t {
            CType::Void | CType::Bool | CType::Char | CType::UChar | CType::Func(_) => 1,
            CType::Short | CType::UShort => 2,
            CType::Int | CType::UInt | CType::Float | CType::Dim3 => 4,
            CType::Long | CType::ULong | CType::Double | CType::Ptr(_) => 8,
            CType::Array(e, _) | CType::VarArray(e, _) => self.align_of(e),
            CType::Struct(id) => match self.structs.get(id.0 as usize) {
                Some(s) if s.complete => s.layout.align.max(1),
                _ => 1,
            },
        }
    }

    /// The type as a C programmer writes it, for messages.
    pub(super) fn ty_name(&self, t: &CType) -> String {
        match t {
            CType::Void => "void".into(),
            CType::Bool => "bool".into(),
            CType::Char => "char".into(),
            CType::UChar => "unsigned char".into(),
            CType::Short => "short".into(),
            CType::UShort => "unsigned short".into(),
            CType::Int => "int".into(),
            CType::UInt => "unsigned".into(),
            CType::Long => "long".into(),
            CType::ULong => "unsigned long".into(),
            CType::Float => "float".into(),
            CType::Double => "double".into(),
            CType::Dim3 => "dim3".into(),
            CType::Ptr(_) | CType::Array(..) | CType::VarArray(..) | CType::Func(_) => {
                self.declarator_name(t, "")
            }
            CType::Struct(id) => match self.structs.get(id.0 as usize) {
                Some(s) => format!(
                    "{} {}",
                    if s.layout.is_union { "union" } else { "struct" },
                    s.layout.name
                ),
                None => "<error>".into(),
            },
        }
    }

    /// `t` written as C declares a variable `inner` of it: `int *[3]`,
    /// `double (*)(double)`, `int (*)[4]`.
    fn declarator_name(&self, t: &CType, inner: &str) -> String {
        match t {
            CType::Ptr(p) => {
                let inner = format!("*{inner}");
                match &**p {
                    CType::Array(..) | CType::VarArray(..) | CType::Func(_) => {
                        self.declarator_name(p, &format!("({inner})"))
                    }
                    _ => self.declarator_name(p, &inner),
                }
            }
            CType::Array(e, n) => {
                let len = if *n == UNSIZED {
                    String::new()
                } else {
                    n.to_string()
                };
                self.declarator_name(e, &format!("{inner}[{len}]"))
            }
            CType::VarArray(e, len) => {
                // The hidden length local is named after a length that is
                // one identifier (`[m]`); others print as C's `[*]`.
                let len = match len.and_then(|k| self.fx.as_ref()?.locals.get(k.0 as usize)) {
                    Some(l) if !l.name.is_empty() => l.name.as_str(),
                    _ => "*",
                };
                self.declarator_name(e, &format!("{inner}[{len}]"))
            }
            CType::Func(f) => {
                let ps: Vec<String> = f.params.iter().map(|p| self.ty_name(p)).collect();
                let ps = crate::hir::c_param_list(ps, f.variadic);
                self.declarator_name(&f.ret, &format!("{inner}{ps}"))
            }
            base => {
                let b = self.ty_name(base);
                match inner.chars().next() {
                    None => b,
                    Some('*' | '[') => format!("{b}{inner}"),
                    Some(_) => format!("{b} {inner}"),
                }
            }
        }
    }

    /// Names of the fields of a struct or `dim3` with their offsets and types.
    pub(super) fn fields_of(&self, t: &CType) -> Option<Vec<(String, CType, u64)>> {
        match t {
            CType::Dim3 => Some(vec![
                ("x".into(), CType::UInt, 0),
                ("y".into(), CType::UInt, 4),
                ("z".into(), CType::UInt, 8),
            ]),
            CType::Struct(id) => self.structs.get(id.0 as usize).map(|s| {
                s.layout
                    .fields
                    .iter()
                    .map(|f| (f.name.clone(), f.ty.clone(), f.offset))
                    .collect()
            }),
            _ => None,
        }
    }

    /// Reports an object type that cannot hold a value (`void`, incomplete
    /// struct) and says whether it was fine.
    pub(super) fn require_complete(&mut self, t: &CType, span: Span, what: &str) -> bool {
        if is_err(t) {
            return false;
        }
        if *t == CType::Void {
            self.diags.push(
                Diagnostic::error(span, format!("{what} has type `void`"))
                    .with_label("declared `void`")
                    .with_help("`void` has no values; use `void*` for an untyped pointer"),
            );
            return false;
        }
        if let CType::Func(_) = t {
            let name = self.ty_name(t);
            self.diags.push(
                Diagnostic::error(span, format!("{what} has function type `{name}`"))
                    .with_label("a function type")
                    .with_help("use a pointer to the function: write `(*name)(...)`"),
            );
            return false;
        }
        if let CType::Array(_, UNSIZED) = t {
            self.diags.push(
                Diagnostic::error(span, format!("{what} is an array of unknown size"))
                    .with_label("the size is unknown")
                    .with_help("give the array a size, or an initializer list to count"),
            );
            return false;
        }
        if !self.is_complete(t) {
            let name = self.ty_name(t);
            let mut d = Diagnostic::error(span, format!("{what} has incomplete type `{name}`"))
                .with_label("used by value here");
            let mut help =
                "define the struct before using it by value, or use a pointer to it".to_string();
            if let Some(id) = strip_arrays(t)
                && let Some(info) = self.structs.get(id.0 as usize)
            {
                let tag = info.layout.name.clone();
                let later = self
                    .structs_ahead
                    .get(&tag)
                    .copied()
                    .filter(|s| s.start > span.start);
                if let Some(s) = later {
                    d = d.with_secondary(s, "the struct is defined here, after this use");
                } else if info.declared {
                    // `struct S;` or `struct S {};` before the use.
                    d = d.with_secondary(info.span, "declared here without members");
                    help = "give the struct its members (C needs at least one) before using it by value, or use a pointer to it".to_string();
                } else {
                    // Named here for the first time.
                    d = Diagnostic::error(info.span, format!("`{name}` is not defined"))
                        .with_label(format!("no `{name}` is defined before this use"));
                    let names: Vec<&str> = self.structs_ahead.keys().map(String::as_str).collect();
                    help = match super::closest(&tag, names.into_iter()) {
                        Some(s) => format!("did you mean `struct {s}`?"),
                        None => format!("define `{name}` before this use, or use a pointer to it"),
                    };
                }
            }
            self.diags.push(d.with_help(help));
            return false;
        }
        true
    }
}

fn strip_arrays(t: &CType) -> Option<StructId> {
    match t {
        CType::Struct(id) => Some(*id),
        CType::Array(e, _) | CType::VarArray(e, _) => strip_arrays(e),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_conversions() {
        use CType::*;
        assert_eq!(usual_arith(&Char, &Bool), Int);
        assert_eq!(usual_arith(&Int, &UInt), UInt);
        assert_eq!(usual_arith(&Long, &UInt), Long);
        assert_eq!(usual_arith(&Int, &ULong), ULong);
        assert_eq!(usual_arith(&Long, &ULong), ULong);
        assert_eq!(usual_arith(&Long, &Float), Float);
        assert_eq!(usual_arith(&Float, &Double), Double);
        assert_eq!(default_promotion(&Float), Double);
        assert_eq!(default_promotion(&Char), Int);
        assert_eq!(align_up(5, 4), 8);
        assert_eq!(align_up(8, 8), 8);
    }
}
