//! The C signatures of the program's functions (see `parc_ir::cabi`):
//! the System V classification of struct parameters and results, and the
//! C text a library's header declares them with.

use super::{Layout, program_local};
use crate::hir::{self, CType};
use parc_ir::Type;
use parc_ir::cabi::{ByValue, CSignature, Eightbyte, StructPassing};

/// The C signature of `f`, or `None` where C has no declaration for it
/// (a `dim3` parameter or result: CUDA's type, not C's).
pub(super) fn c_signature(layout: &Layout<'_>, f: &hir::Func) -> Option<CSignature> {
    let params: Vec<&hir::Local> = f.params.iter().map(|&p| program_local(f, p)).collect();
    // A variadic function takes parc's hidden argument pointer (see
    // `hir::VA_SLOT`): C cannot call it as declared.
    if f.variadic {
        return None;
    }
    if params.iter().any(|l| mentions_dim3(&l.ty)) || mentions_dim3(&f.ret) {
        return None;
    }
    let by_value = |ty: &CType| matches!(ty, CType::Struct(_)).then(|| classify(layout, ty));
    let ret = by_value(&f.ret);
    let mut abi_params: Vec<Option<ByValue>> = Vec::new();
    if ret.is_some() {
        abi_params.push(None);
    }
    abi_params.extend(params.iter().map(|l| by_value(&l.ty)));
    let decls: Vec<String> = params
        .iter()
        .map(|l| declarator(layout, &l.ty, &l.name))
        .collect();
    let args = if decls.is_empty() {
        "void".to_string()
    } else {
        decls.join(", ")
    };
    Some(CSignature {
        prototype: declarator(layout, &f.ret, &format!("{}({args})", f.name)),
        params: abi_params,
        ret,
    })
}

/// Every struct of the program in C: forward declarations, then the
/// definitions, each after the structs it holds by value (as C requires;
/// a struct defined inside another's members has the larger id).
pub(super) fn c_structs(layout: &Layout<'_>) -> String {
    let mut out = String::new();
    for id in 0..layout.structs.len() {
        out.push_str(&format!("{};\n", c_tag(layout, id)));
    }
    let mut defined = vec![false; layout.structs.len()];
    for id in 0..layout.structs.len() {
        define_struct(layout, id, &mut defined, &mut out);
    }
    out
}

/// Appends the definition of struct `id` to `out`, after those of the
/// structs its members hold by value; each once.
fn define_struct(layout: &Layout<'_>, id: usize, defined: &mut [bool], out: &mut String) {
    if defined[id] {
        return;
    }
    // Marked first: a struct cannot hold itself by value (the checker
    // refuses it), so this only guards against looping.
    defined[id] = true;
    let s = &layout.structs[id];
    for field in &s.fields {
        let mut t = &field.ty;
        while let CType::Array(e, _) = t {
            t = e;
        }
        if let CType::Struct(inner) = t
            && (inner.0 as usize) < defined.len()
        {
            define_struct(layout, inner.0 as usize, defined, out);
        }
    }
    out.push_str(&format!("{} {{\n", c_tag(layout, id)));
    // `at`: the bit after the last member written; a member C would place
    // earlier than parc did (after unnamed bit-fields, which have no
    // `FieldLayout`) gets padding before it.
    let mut at: u64 = 0;
    for field in &s.fields {
        match &field.bits {
            Some(bits) => {
                let pos = field.offset * 8 + u64::from(bits.shift);
                if !s.is_union {
                    pad_bits(out, at, pos);
                }
                out.push_str(&format!(
                    "    {} : {};\n",
                    declarator(layout, &bits.declared, &field.name),
                    bits.width
                ));
                at = pos + u64::from(bits.width);
            }
            None => {
                let natural = at
                    .div_ceil(8)
                    .next_multiple_of(layout.align_of(&field.ty).max(1));
                if !s.is_union && field.offset > natural {
                    pad_bits(out, at, field.offset * 8);
                }
                out.push_str(&format!(
                    "    {};\n",
                    declarator(layout, &field.ty, &field.name)
                ));
                at = (field.offset + layout.size_of(&field.ty)) * 8;
            }
        }
    }
    // Padding a trailing `T : 0;` left.
    if !s.is_union && s.size > at.div_ceil(8).next_multiple_of(s.align.max(1)) {
        pad_bits(out, at, s.size * 8);
    }
    out.push_str("};\n");
}

/// Unnamed bit-fields that fill bits `from..to` exactly: none straddles a
/// 64-bit unit (so gcc puts each at the next bit), and none gives the
/// struct an alignment.
fn pad_bits(out: &mut String, mut from: u64, to: u64) {
    while from < to {
        let k = (to - from).min(64 - from % 64);
        out.push_str(&format!("    unsigned long long : {k};\n"));
        from += k;
    }
}

/// `struct NAME` or `union NAME` for struct `id` in C: anonymous ones get
/// a name, and a tag that block scopes reuse gets its id appended.
fn c_tag(layout: &Layout<'_>, id: usize) -> String {
    let s = &layout.structs[id];
    let word = if s.is_union { "union" } else { "struct" };
    let reused = layout.structs[..id].iter().any(|t| t.name == s.name);
    if s.name.starts_with('<') {
        format!("{word} parc_anon_{id}")
    } else if reused {
        format!("{word} {}_{id}", s.name)
    } else {
        format!("{word} {}", s.name)
    }
}

fn mentions_dim3(ty: &CType) -> bool {
    match ty {
        CType::Dim3 => true,
        CType::Ptr(t) | CType::Array(t, _) | CType::VarArray(t, _) => mentions_dim3(t),
        CType::Func(f) => mentions_dim3(&f.ret) || f.params.iter().any(mentions_dim3),
        _ => false,
    }
}

/// The System V class of a struct: in registers if it is at most 16
/// bytes, an eightbyte holding any integer or pointer being `Integer`
/// and one of only floating fields `Sse`; in memory otherwise.
fn classify(layout: &Layout<'_>, ty: &CType) -> ByValue {
    let size = layout.size_of(ty);
    let passing = if size == 0 || size > 16 {
        StructPassing::Memory
    } else {
        let mut leaves = Vec::new();
        layout.leaves(ty, 0, &mut leaves);
        let classes = (0..size.div_ceil(8))
            .map(|k| {
                let in_eightbyte = |&&(offset, _): &&(u64, Type)| offset / 8 == k;
                if leaves
                    .iter()
                    .filter(in_eightbyte)
                    .all(|(_, t)| matches!(t, Type::F32 | Type::F64))
                {
                    Eightbyte::Sse
                } else {
                    Eightbyte::Integer
                }
            })
            .collect();
        StructPassing::Registers(classes)
    };
    ByValue {
        size: size as u32,
        align: layout.align_of(ty) as u32,
        passing,
    }
}

/// `ty name` in C declarator syntax (`name` may be empty, or a function
/// declarator such as `f(int x)`): `double *p`, `int a[4]`, `struct S s`.
fn declarator(layout: &Layout<'_>, ty: &CType, name: &str) -> String {
    let join = |base: &str| {
        if name.is_empty() {
            base.to_string()
        } else {
            format!("{base} {name}")
        }
    };
    match ty {
        CType::Ptr(t) => match **t {
            CType::Array(..) | CType::VarArray(..) | CType::Func(_) => {
                declarator(layout, t, &format!("(*{name})"))
            }
            _ => declarator(layout, t, &format!("*{name}")),
        },
        CType::Array(t, n) => declarator(layout, t, &format!("{name}[{n}]")),
        // C99's spelling of a variable length in a prototype.
        CType::VarArray(t, _) => declarator(layout, t, &format!("{name}[*]")),
        CType::Func(f) => {
            let ps: Vec<String> = f.params.iter().map(|p| declarator(layout, p, "")).collect();
            let ps = hir::c_param_list(ps, f.variadic);
            declarator(layout, &f.ret, &format!("{name}{ps}"))
        }
        CType::Void => join("void"),
        CType::Bool => join("_Bool"),
        CType::Char => join("char"),
        CType::UChar => join("unsigned char"),
        CType::Short => join("short"),
        CType::UShort => join("unsigned short"),
        CType::Int => join("int"),
        CType::UInt => join("unsigned"),
        CType::Long => join("long"),
        CType::ULong => join("unsigned long"),
        CType::Float => join("float"),
        CType::Double => join("double"),
        CType::Struct(id) if (id.0 as usize) < layout.structs.len() => {
            join(&c_tag(layout, id.0 as usize))
        }
        CType::Struct(_) => join("void"),
        // CUDA's `dim3` (only a struct field gets here).
        CType::Dim3 => join("struct { unsigned x, y, z; }"),
    }
}
