//! Linking: the modules of a program's files into one module, as a C
//! linker joins objects, so that the optimizer and the AD see the whole
//! program (a function of one file can be inlined into, and differentiated
//! from, another).
//!
//! Rules (C's, for one program):
//! - an `export` function is defined once over all the modules; an
//!   `import` (a declaration) of the same name becomes that definition,
//!   and must have its signature; an import nobody defines stays an
//!   import (the C library's functions);
//! - a `local` (`static`) function belongs to its module: where its name
//!   is taken already it is renamed (`f.2`, `f.3` ...), and only its own
//!   module's calls reach it;
//! - a `local` (`static`) global, and a global made by the compiler
//!   (names starting with `.`, such as string literals `.str.0`), belongs
//!   to its module likewise: renamed where its name is taken, reached only
//!   from its module; any other global is defined once over all the
//!   modules, and an imported global (`extern int n;`) is that definition,
//!   or stays an import when no module defines it (the C library's
//!   `optind`), never another module's `static` one;
//! - gradient requests keep their meaning: their primal and gradient are
//!   mapped as the calls are.
//!
//! [`Linked::origin`] says which input each function of the result came
//! from, so that messages about a function name its file.

use crate::{FuncId, GlobalId, InstKind, Linkage, Module};
use std::collections::{HashMap, HashSet};

/// The linked program.
#[derive(Debug)]
pub struct Linked {
    pub module: Module,
    /// For each function of `module`, the index of the input module that
    /// holds its body (for a declaration nobody defines, the first module
    /// that declared it).
    pub origin: HashMap<FuncId, usize>,
}

/// Why the modules do not make one program: a message naming the symbol
/// and the inputs (by the names given to [`link`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkError(pub String);

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Links `modules` (each with its file's name, for messages) into one.
/// The first module's names are kept as they are; its `source_name`
/// becomes the program's.
pub fn link(modules: Vec<(String, Module)>) -> Result<Linked, LinkError> {
    let names: Vec<String> = modules.iter().map(|(n, _)| n.clone()).collect();
    // Where each exported function is defined, and each global.
    let mut defined: HashMap<String, usize> = HashMap::new();
    let mut global_defined: HashMap<String, usize> = HashMap::new();
    for (k, (_, m)) in modules.iter().enumerate() {
        for f in m.funcs.values() {
            if f.linkage == Linkage::Export
                && let Some(first) = defined.insert(f.name.clone(), k)
            {
                return Err(LinkError(format!(
                    "function `{}` is defined in both `{}` and `{}`; define it in one file and declare it (without a body) in the others, or make both `static`",
                    f.name, names[first], names[k]
                )));
            }
        }
        for g in m.globals.values() {
            if is_private_global(g) || g.is_import {
                continue;
            }
            if let Some(first) = global_defined.insert(g.name.clone(), k) {
                return Err(LinkError(format!(
                    "global variable `{}` is defined in both `{}` and `{}`; define it in one file and declare it `extern` in the others, or make both `static`",
                    g.name, names[first], names[k]
                )));
            }
        }
    }

    let mut out = Module {
        source_name: modules.first().and_then(|(_, m)| m.source_name.clone()),
        ..Module::default()
    };
    let mut origin: HashMap<FuncId, usize> = HashMap::new();
    let mut structs: Vec<String> = Vec::new();
    // Per input: its function and global ids in `out`.
    let mut func_maps: Vec<HashMap<FuncId, FuncId>> = Vec::new();
    let mut global_maps: Vec<HashMap<GlobalId, GlobalId>> = Vec::new();
    // Exported and imported names to their function in `out`, and every
    // name that will be public (a module-private function must not take
    // one before its owner comes).
    let mut public: HashMap<String, FuncId> = HashMap::new();
    let mut public_globals: HashMap<String, GlobalId> = HashMap::new();
    let mut public_names: HashSet<String> = HashSet::new();
    let mut public_global_names: HashSet<String> = HashSet::new();
    // The names given so far to module-private functions and globals.
    let mut private_names: HashSet<String> = HashSet::new();
    let mut private_global_names: HashSet<String> = HashSet::new();
    for (_, m) in &modules {
        let grads = gradient_declarations(m);
        for (id, f) in m.funcs.iter() {
            if f.linkage != Linkage::Local && !grads.contains(&id) {
                public_names.insert(f.name.clone());
            }
        }
        for g in m.globals.values() {
            if !is_private_global(g) {
                public_global_names.insert(g.name.clone());
            }
        }
    }
    // First pass: every function gets its id in `out` (bodies are copied
    // in the second pass, once every id is known).
    for (k, (_, m)) in modules.iter().enumerate() {
        let mut funcs = HashMap::new();
        // A gradient's declaration (`f.grad`) belongs to the module whose
        // request asks for it, as a `static` function does.
        let grads = gradient_declarations(m);
        for (id, f) in m.funcs.iter() {
            let private = f.linkage == Linkage::Local || grads.contains(&id);
            let new = if private {
                let mut copy = f.clone();
                copy.name = fresh_name(&mut private_names, &public_names, &f.name);
                let new = out.funcs.push(copy);
                origin.insert(new, k);
                new
            } else if let Some(&existing) = public.get(&f.name) {
                check_signature(&out, existing, m, id, &names, &origin, k)?;
                if f.linkage == Linkage::Export {
                    out.funcs[existing] = f.clone();
                    origin.insert(existing, k);
                }
                existing
            } else {
                let new = out.funcs.push(f.clone());
                public.insert(f.name.clone(), new);
                origin.insert(new, k);
                new
            };
            funcs.insert(id, new);
        }
        let mut globals = HashMap::new();
        for (id, g) in m.globals.iter() {
            let mut copy = g.clone();
            if is_private_global(g) {
                copy.name = fresh_name(&mut private_global_names, &public_global_names, &g.name);
                globals.insert(id, out.globals.push(copy));
                continue;
            }
            // `extern int n;` is the definition another module has, if any.
            let new = match public_globals.get(&g.name) {
                Some(&existing) => {
                    if !g.is_import {
                        out.globals[existing] = copy;
                    }
                    existing
                }
                None => {
                    let new = out.globals.push(copy);
                    public_globals.insert(g.name.clone(), new);
                    new
                }
            };
            globals.insert(id, new);
        }
        if !m.c_structs.is_empty() && !structs.contains(&m.c_structs) {
            structs.push(m.c_structs.clone());
        }
        func_maps.push(funcs);
        global_maps.push(globals);
    }
    out.c_structs = structs.concat();
    // Each module's file numbers in `out` (its own file is 0 only in the
    // first module).
    let file_maps: Vec<Vec<u32>> = modules
        .iter()
        .map(|(name, m)| {
            let own = m.source_name.as_deref().unwrap_or(name);
            std::iter::once(own)
                .chain(m.files.iter().map(String::as_str))
                .map(|f| out.intern_file(f))
                .collect()
        })
        .collect();
    // Second pass: references in the copied bodies, initial images and
    // requests point at `out`'s entities.
    for (k, (_, m)) in modules.iter().enumerate() {
        let (funcs, globals) = (&func_maps[k], &global_maps[k]);
        let file = |loc: crate::SrcLoc| {
            let f = file_maps[k].get(loc.file as usize).copied().unwrap_or(0);
            loc.in_file(f)
        };
        for (id, f) in m.funcs.iter() {
            let new = funcs[&id];
            // Only the body that was kept is remapped: an import's copy is
            // replaced by the definition, whose module remaps it.
            if origin.get(&new) != Some(&k) || f.is_declaration() {
                continue;
            }
            let func = &mut out.funcs[new];
            let insts: Vec<_> = func.insts.keys().collect();
            for i in insts {
                match func.inst_mut(i) {
                    InstKind::Call { func: callee, .. } => *callee = funcs[callee],
                    InstKind::FuncAddr(callee) => *callee = funcs[callee],
                    InstKind::Launch { kernel, .. } => *kernel = funcs[kernel],
                    InstKind::GlobalAddr(g) => *g = globals[g],
                    _ => {}
                }
                if func.locs[i].is_known() {
                    func.locs[i] = file(func.locs[i]);
                }
            }
        }
        for (id, g) in m.globals.iter() {
            // The kept definition's image is remapped by its own module.
            if g.is_import {
                continue;
            }
            let g = &mut out.globals[globals[&id]];
            for reloc in &mut g.relocs {
                reloc.1 = globals[&reloc.1];
            }
            for reloc in &mut g.func_relocs {
                reloc.1 = funcs[&reloc.1];
            }
        }
        for req in &m.grad_requests {
            let mut req = req.clone();
            req.primal = funcs[&req.primal];
            req.grad = funcs[&req.grad];
            req.loc = file(req.loc);
            out.grad_requests.push(req);
        }
    }
    Ok(Linked {
        module: out,
        origin,
    })
}

/// Which of `members` (the parc objects of archives) the program made of
/// `program` needs, as a linker picks archive members: a member is linked
/// when it defines a symbol — an exported function with a body, a global
/// that is neither `static` nor an import — that the linked part refers
/// to without defining (a call, a launch or a taken address in a body, an
/// imported global's address, a gradient request's primal), counting the
/// members linked so far, until no member is added. As in lld, and unlike
/// GNU ld, where an archive stands among the inputs does not matter.
/// Members nobody needs are left out, so an archive may hold objects the
/// program cannot link (a second `main`, symbols defined twice).
pub fn needed_members(program: &[&Module], members: &[&Module]) -> Vec<bool> {
    let mut defined: HashSet<&str> = HashSet::new();
    let mut wanted: HashSet<&str> = HashSet::new();
    for m in program {
        defined.extend(definitions(m));
        wanted.extend(references(m));
    }
    let mut linked = vec![false; members.len()];
    loop {
        let mut added = false;
        for (k, m) in members.iter().enumerate() {
            if linked[k] {
                continue;
            }
            let defs = definitions(m);
            if !defs
                .iter()
                .any(|d| wanted.contains(d) && !defined.contains(d))
            {
                continue;
            }
            linked[k] = true;
            added = true;
            defined.extend(defs);
            wanted.extend(references(m));
        }
        if !added {
            return linked;
        }
    }
}

/// The public symbols `m` defines (see [`needed_members`]).
fn definitions(m: &Module) -> Vec<&str> {
    let grads = gradient_declarations(m);
    let funcs = m.funcs.iter().filter(|(id, f)| {
        f.linkage == Linkage::Export && !f.is_declaration() && !grads.contains(id)
    });
    let globals = m
        .globals
        .values()
        .filter(|g| !g.is_import && !is_private_global(g));
    funcs
        .map(|(_, f)| f.name.as_str())
        .chain(globals.map(|g| g.name.as_str()))
        .collect()
}

/// The symbols `m` uses but leaves to other modules (see
/// [`needed_members`]).
fn references(m: &Module) -> Vec<&str> {
    let grads = gradient_declarations(m);
    let import = |id: FuncId| {
        let f = &m.funcs[id];
        (f.linkage == Linkage::Import && !grads.contains(&id)).then_some(f.name.as_str())
    };
    let mut names = Vec::new();
    for f in m.funcs.values() {
        for (_, i) in f.placed_insts() {
            match f.inst(i) {
                InstKind::Call { func, .. } | InstKind::FuncAddr(func) => {
                    names.extend(import(*func));
                }
                InstKind::Launch { kernel, .. } => names.extend(import(*kernel)),
                InstKind::GlobalAddr(g) if m.globals[*g].is_import => {
                    names.push(m.globals[*g].name.as_str());
                }
                _ => {}
            }
        }
    }
    names.extend(m.grad_requests.iter().filter_map(|r| import(r.primal)));
    names
}

/// The declarations `m`'s gradient requests will define.
fn gradient_declarations(m: &Module) -> HashSet<FuncId> {
    m.grad_requests.iter().map(|r| r.grad).collect()
}

/// `base`, or `base.2`, `base.3` ...: a name neither `taken` (the
/// private names given so far, which it joins) nor `public` has. Sets, not
/// a search of `out`, so that linking n private functions costs O(n).
fn fresh_name(taken: &mut HashSet<String>, public: &HashSet<String>, base: &str) -> String {
    let name = first_free(base, |n| taken.contains(n) || public.contains(n));
    taken.insert(name.clone());
    name
}

/// A global that belongs to its module: `static`, or made by the compiler.
fn is_private_global(g: &crate::GlobalData) -> bool {
    g.is_local || g.name.starts_with('.')
}

/// `base` if it is not `taken`, else the first of `base.2`, `base.3` ... that is not.
fn first_free(base: &str, taken: impl Fn(&str) -> bool) -> String {
    if !taken(base) {
        return base.to_string();
    }
    let mut n = 2;
    while taken(&format!("{base}.{n}")) {
        n += 1;
    }
    format!("{base}.{n}")
}

/// A declaration and a definition (or two declarations) of one function
/// must agree on its signature, as C requires of one program.
fn check_signature(
    out: &Module,
    existing: FuncId,
    m: &Module,
    id: FuncId,
    names: &[String],
    origin: &HashMap<FuncId, usize>,
    k: usize,
) -> Result<(), LinkError> {
    let (a, b) = (&out.funcs[existing], &m.funcs[id]);
    if a.sig == b.sig && a.kind == b.kind {
        return Ok(());
    }
    let first = origin.get(&existing).map_or("?", |&i| names[i].as_str());
    // A C variadic declaration against a variadic function the front end
    // defined, which takes its variadic arguments through one more pointer.
    let parc_variadic = |decl: &crate::Function, def: &crate::Function| {
        decl.variadic
            && !def.is_declaration()
            && def.sig.params.split_last() == Some((&crate::Type::Ptr, decl.sig.params.as_slice()))
            && def.sig.ret == decl.sig.ret
    };
    if parc_variadic(a, b) || parc_variadic(b, a) {
        return Err(LinkError(format!(
            "variadic function `{}` is defined in one of `{first}` and `{}` and called from the other: \
             parc passes a variadic function's arguments in its own convention, which only calls \
             in the defining file use; call it from that file, or give it a fixed parameter list",
            a.name, names[k]
        )));
    }
    Err(LinkError(format!(
        "function `{}` has different types in `{first}` and `{}`; declare it the same way in every file (a shared header)",
        a.name, names[k]
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::read_module;

    fn module(text: &str) -> Module {
        read_module(text).expect("parir text")
    }

    fn linked(texts: &[&str]) -> Result<Linked, LinkError> {
        link(
            texts
                .iter()
                .enumerate()
                .map(|(k, t)| (format!("f{k}.pc"), module(t)))
                .collect(),
        )
    }

    #[test]
    fn archive_members_are_linked_only_when_needed() {
        let program = module(
            "declare @twice(i32) -> i32
declare @unused_decl(i32) -> i32
func @main() -> i32 {
block0:
    v0 = iconst.i32 2
    v1 = call @twice(v0)
    return v1
}
",
        );
        // `twice` needs `helper`, a member after it and one before it.
        let twice = module(
            "declare @helper(i32) -> i32
func @twice(i32) -> i32 {
block0(v0: i32):
    v1 = call @helper(v0)
    return v1
}
",
        );
        let helper = module(
            "func @helper(i32) -> i32 {
block0(v0: i32):
    v1 = iadd v0, v0
    return v1
}
",
        );
        // Defines only what nobody calls (a declaration is no reference),
        // and a second `main`: never linked.
        let other = module(
            "func @unused_decl(i32) -> i32 {
block0(v0: i32):
    return v0
}
func @main() -> i32 {
block0:
    v0 = iconst.i32 0
    return v0
}
",
        );
        assert_eq!(
            needed_members(&[&program], &[&helper, &other, &twice]),
            vec![true, false, true]
        );
        assert_eq!(needed_members(&[&program], &[&other]), vec![false]);
    }

    #[test]
    fn imports_become_definitions_and_statics_stay_apart() {
        let a = "declare @twice(f64) -> f64
func local @helper() -> i32 {
block0:
    v0 = iconst.i32 1
    return v0
}
func @main() -> i32 {
block0:
    v0 = fconst.f64 2.0
    v1 = call @twice(v0)
    v2 = call @helper()
    return v2
}
";
        let b = "func local @helper() -> i32 {
block0:
    v0 = iconst.i32 2
    return v0
}
func @twice(f64) -> f64 {
block0(v0: f64):
    v1 = fadd v0, v0
    v2 = call @helper()
    return v1
}
";
        let l = linked(&[a, b]).expect("links");
        let m = &l.module;
        crate::verify::verify_module(m).expect("verifies");
        let twice = m.func_by_name("twice").expect("twice");
        assert!(!m.funcs[twice].is_declaration());
        assert_eq!(l.origin[&twice], 1);
        let (h1, h2) = (
            m.func_by_name("helper").expect("a's helper"),
            m.func_by_name("helper.2").expect("b's helper, renamed"),
        );
        let calls = |f: FuncId| -> Vec<FuncId> {
            let func = &m.funcs[f];
            func.placed_insts()
                .filter_map(|(_, i)| match func.inst(i) {
                    InstKind::Call { func, .. } => Some(*func),
                    _ => None,
                })
                .collect()
        };
        let main = m.func_by_name("main").expect("main");
        assert_eq!(calls(main), vec![twice, h1]);
        assert_eq!(calls(twice), vec![h2]);
        assert_eq!(m.funcs.len(), 4);
    }

    #[test]
    fn two_definitions_and_type_mismatches_are_refused() {
        let f = "func @f() {
block0:
    return
}
";
        let err = linked(&[f, f]).expect_err("defined twice");
        assert!(
            err.0.contains("`f` is defined in both `f0.pc` and `f1.pc`"),
            "{err}"
        );
        let err = linked(&[f, "declare @f(i32)\n"]).expect_err("types differ");
        assert!(err.0.contains("`f` has different types"), "{err}");
        let parc_variadic = "func @g(i32, ptr) -> i32 {
block0(v0: i32, v1: ptr):
    return v0
}
";
        let err = linked(&[parc_variadic, "declare variadic @g(i32) -> i32\n"])
            .expect_err("conventions differ");
        assert!(
            err.0.contains("variadic function `g` is defined in one of"),
            "{err}"
        );
        let g = "global @n size 4 align 4 = zeroinit\n";
        let err = linked(&[g, g]).expect_err("global twice");
        assert!(err.0.contains("global variable `n`"), "{err}");
        assert!(err.0.contains("or make both `static`"), "{err}");
    }

    #[test]
    fn static_globals_stay_with_their_module_and_leave_the_name_to_the_public_one() {
        let user = |name: &str, linkage: &str| {
            format!(
                "{linkage}
func @{name}() -> ptr {{
block0:
    v0 = global_addr @count
    return v0
}}
"
            )
        };
        let a = user("a", "global @count local size 4 align 4 = zeroinit");
        let b = user("b", "global @count local size 8 align 8 = zeroinit");
        let c = user("c", "global @count size 2 align 2 = zeroinit");
        let d = user("d", "global @count import size 2 align 2");
        let l = linked(&[&a, &b, &c, &d]).expect("links");
        let m = &l.module;
        crate::verify::verify_module(m).expect("verifies");
        let target = |f: &str| -> GlobalId {
            let func = &m.funcs[m.func_by_name(f).expect("user")];
            func.placed_insts()
                .find_map(|(_, i)| match func.inst(i) {
                    InstKind::GlobalAddr(g) => Some(*g),
                    _ => None,
                })
                .expect("global_addr")
        };
        let public = m
            .global_by_name("count")
            .expect("the public one keeps its name");
        assert_eq!(m.globals[public].size, 2);
        assert!(!m.globals[public].is_import);
        assert_eq!((target("c"), target("d")), (public, public));
        let (ga, gb) = (target("a"), target("b"));
        assert!(ga != gb && ga != public && gb != public);
        assert_eq!((m.globals[ga].size, m.globals[gb].size), (4, 8));
        assert_eq!(m.globals.len(), 3);
    }

    #[test]
    fn source_positions_keep_their_files() {
        let a = "source \"a.pc\"
file 1 \"u.h\"
func @main() -> i32 {
block0:
    v0 = iconst.i32 0 @3:4:1
    v1 = iconst.i32 1 @9:9
    return v0
}
";
        let b = "source \"b.pc\"
file 1 \"u.h\"
func @g() -> i32 {
block0:
    v0 = iconst.i32 0 @5:6
    v1 = iconst.i32 1 @7:8:1
    return v0
}
";
        let l = linked(&[a, b]).expect("links");
        let m = &l.module;
        assert_eq!(m.files, vec!["u.h".to_string(), "b.pc".to_string()]);
        let files = |name: &str| -> Vec<Option<&str>> {
            let func = &m.funcs[m.func_by_name(name).expect("function")];
            func.placed_insts()
                .filter(|&(_, i)| func.locs[i].is_known())
                .map(|(_, i)| m.file_of(func.locs[i]))
                .collect()
        };
        assert_eq!(files("main"), vec![Some("u.h"), None]);
        assert_eq!(files("g"), vec![Some("b.pc"), Some("u.h")]);
        // The text form keeps them.
        let text = crate::print::print_module(m);
        assert!(text.contains("file 2 \"b.pc\""), "{text}");
        assert!(text.contains("@5:6:2"), "{text}");
        assert_eq!(crate::print::print_module(&module(&text)), text);
    }

    #[test]
    fn string_literals_and_gradients_stay_with_their_module() {
        let a = "global @.str.0 const size 2 align 1 = \"a\\00\"
declare @f(f64) -> f64
declare @f.grad(f64) -> f64
func @main() -> i32 {
block0:
    v0 = global_addr @.str.0
    v1 = fconst.f64 1.0
    v2 = call @f.grad(v1)
    v3 = iconst.i32 0
    return v3
}
gradient @f.grad = @f(active) local
";
        let b = "global @.str.0 const size 2 align 1 = \"b\\00\"
declare @f.grad(f64) -> f64
func @f(f64) -> f64 {
block0(v0: f64):
    v1 = fmul v0, v0
    return v1
}
func @g() -> f64 {
block0:
    v0 = fconst.f64 3.0
    v1 = call @f.grad(v0)
    return v1
}
gradient @f.grad = @f(active) local
";
        let l = linked(&[a, b]).expect("links");
        let m = &l.module;
        crate::verify::verify_module(m).expect("verifies");
        assert!(m.global_by_name(".str.0").is_some() && m.global_by_name(".str.0.2").is_some());
        let f = m.func_by_name("f").expect("f");
        let grads: Vec<_> = m.grad_requests.iter().map(|r| (r.primal, r.grad)).collect();
        let (g1, g2) = (
            m.func_by_name("f.grad").expect("a's"),
            m.func_by_name("f.grad.2").expect("b's"),
        );
        assert_eq!(grads, vec![(f, g1), (f, g2)]);
    }
}
