//! The table of source positions (function, code range, line, column) that
//! the runtime reports run-time errors with.
//!

use super::LineTable;
use super::{Cx, module_err};
use crate::BackendError;
use cranelift_codegen::ir::{self as cl, InstBuilder, types};
use cranelift_frontend::FunctionBuilder;
use cranelift_module::{
    DataDescription, FuncId as ClFuncId, Linkage as ClLinkage, Module as ClModule,
};
use parc_ir::FuncId;
use std::collections::HashMap;

/// Calls `set_lines` (`parc_rt_set_lines` or its `_once` form) with the
/// line table `(table, count)`.
pub(super) fn register_lines(
    m: &mut impl ClModule,
    b: &mut FunctionBuilder,
    (table, count): LineTable,
    set_lines: ClFuncId,
) {
    let gv = m.declare_data_in_func(table, b.func);
    let table = b.ins().symbol_value(types::I64, gv);
    let count = b.ins().iconst(types::I64, count as i64);
    let set = m.declare_func_in_func(set_lines, b.func);
    b.ins().call(set, &[table, count]);
}

/// Bytes of one entry of the line table (`parc_runtime::lines::LineEntry`).
pub(super) const LINE_ENTRY_BYTES: usize = 40;

/// The table of source positions of the program's code (see
/// `parc_runtime::lines`), which the main entry and the library wrappers
/// that enter the worker pool register: one entry per
/// range of instructions of one position, `{ func, start, end, name,
/// line, col, file }` (file null in the program's own file). Returns it and its number of entries.
pub(super) fn emit_line_table(
    m: &mut impl ClModule,
    cx: &mut Cx,
) -> Result<LineTable, BackendError> {
    let ranges = std::mem::take(&mut cx.line_ranges);
    let count: usize = ranges.iter().map(|(_, r)| r.len()).sum();
    let sym = cx.fresh("parc.lines");
    let table = m
        .declare_data(&sym, ClLinkage::Local, false, false)
        .map_err(|e| module_err("declaring the line table", e))?;
    let mut bytes = vec![0u8; count.max(1) * LINE_ENTRY_BYTES];
    let mut desc = DataDescription::new();
    let mut names: HashMap<FuncId, cl::GlobalValue> = HashMap::new();
    let mut files: HashMap<u32, cl::GlobalValue> = HashMap::new();
    let mut at = 0usize;
    for (func, list) in &ranges {
        let fref = desc.import_function((*func).into());
        for &(start, end, site) in list {
            let (src_func, line, col, file) = cx.line_sites[site as usize];
            let name = match names.get(&src_func) {
                Some(&gv) => gv,
                None => {
                    let data = cx.name_string(m, src_func)?;
                    let gv = desc.import_global_value(data.into());
                    names.insert(src_func, gv);
                    gv
                }
            };
            desc.write_function_addr(at as u32, fref);
            bytes[at + 8..at + 12].copy_from_slice(&start.to_le_bytes());
            bytes[at + 12..at + 16].copy_from_slice(&end.to_le_bytes());
            desc.write_data_addr((at + 16) as u32, name, 0);
            bytes[at + 24..at + 28].copy_from_slice(&line.to_le_bytes());
            bytes[at + 28..at + 32].copy_from_slice(&col.to_le_bytes());
            if let Some(data) = cx.file_string(m, file)? {
                let gv = match files.get(&file) {
                    Some(&gv) => gv,
                    None => {
                        let gv = desc.import_global_value(data.into());
                        files.insert(file, gv);
                        gv
                    }
                };
                desc.write_data_addr((at + 32) as u32, gv, 0);
            }
            at += LINE_ENTRY_BYTES;
        }
    }
    desc.define(bytes.into_boxed_slice());
    desc.set_align(8);
    m.define_data(table, &desc)
        .map_err(|e| module_err("defining the line table", e))?;
    Ok((table, count))
}
