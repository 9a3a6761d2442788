//! Parc objects (`parc cc -c`): one source file's path, text and module
//! before optimization, as parir text, for linking later as source files
//! are linked.

use crate::{CompileError, Options, lowered};
use parc_ir::Module;

/// A parc object, read back ([`read_parc_object`]), as an input of
/// [`crate::compile_linked`].
pub struct Premade {
    pub module: Module,
    /// See [`ParcObject::struct_decls`].
    pub struct_decls: Vec<String>,
    /// A member of an archive: linked only if the program needs it.
    pub archive_member: bool,
}

/// A parc object read back ([`read_parc_object`]).
pub struct ParcObject {
    pub path: String,
    pub source: String,
    pub module: Module,
    /// Functions the file declares (without defining) that take or return
    /// a struct by value: the text form does not keep C signatures, and
    /// the linked program must still refuse them when no file defines
    /// them.
    pub struct_decls: Vec<String>,
}

/// The first line of a parc object ([`parc_object`]).
pub const PARC_OBJECT_MAGIC: &str = "parc object 1";

/// One source file through the front end (every diagnostic reported now,
/// as a C compiler's `-c` reports them), to a *parc object*: the file's
/// path and text and its module before optimization, as parir text. A
/// program's objects are linked as its source files are
/// ([`compile_linked`](crate::compile_linked)): the optimizer and the AD then see the whole
/// program, as clang's `-flto` objects let the linker's optimizer see it.
/// Returns the object's text and the rendered warnings.
pub fn parc_object(
    path: &str,
    source: &str,
    options: &Options,
) -> Result<(String, String), CompileError> {
    let (module, warnings) = lowered(
        path,
        source,
        true,
        false,
        options,
        &mut crate::StageTimes::default(),
    )?;
    let ir = parc_ir::print::print_module(&module);
    let struct_decls: Vec<&str> = module
        .funcs
        .values()
        .filter(|f| f.is_declaration() && passes_struct(f))
        .map(|f| f.name.as_str())
        .collect();
    let object = format!(
        "{PARC_OBJECT_MAGIC}\n{path}\n{}\n{}\n{source}{ir}",
        struct_decls.join(" "),
        source.len()
    );
    Ok((object, warnings))
}

/// Takes or returns a struct by value in C.
pub(crate) fn passes_struct(f: &parc_ir::Function) -> bool {
    f.c_sig
        .as_ref()
        .is_some_and(|c| c.params.iter().any(Option::is_some) || c.ret.is_some())
}

/// Reads what [`parc_object`] wrote: the source's path and text, and the
/// module.
pub fn read_parc_object(text: &str) -> Result<ParcObject, String> {
    let rest = text
        .strip_prefix(PARC_OBJECT_MAGIC)
        .and_then(|r| r.strip_prefix('\n'))
        .ok_or("not a parc object")?;
    let (path, rest) = rest.split_once('\n').ok_or("no source path")?;
    let (decls, rest) = rest.split_once('\n').ok_or("no declarations")?;
    let (len, rest) = rest.split_once('\n').ok_or("no source length")?;
    let len: usize = len.parse().map_err(|_| "a bad source length")?;
    let (source, ir) = (rest.get(..len), rest.get(len..));
    let (Some(source), Some(ir)) = (source, ir) else {
        return Err("the source is cut short".into());
    };
    let module = parc_ir::read::read_module(ir).map_err(|e| format!("its parir: {e}"))?;
    Ok(ParcObject {
        path: path.to_string(),
        source: source.to_string(),
        module,
        struct_decls: decls.split_whitespace().map(str::to_string).collect(),
    })
}
