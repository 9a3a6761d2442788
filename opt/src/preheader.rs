//! A loop's preheader made where it has none: what `licm` (a place to
//! hoist to) and `loop-unswitch` (one per copy of a loop, for the
//! vectorizer, which takes only loops entered by a `jump`) share.

use parc_ir::{Block, BlockCall, Function, InstKind, Value};

/// A new block placed before `header` whose parameters, one per
/// header parameter, it passes on: `P(xs): jump H(xs)`. The caller points
/// the loop's entering edges at it. (With parameters, `simplify-cfg`
/// does not thread it away.)
pub fn make_preheader(func: &mut Function, header: Block) -> Block {
    let ph = func.create_block();
    let params: Vec<Value> = func
        .block_params(header)
        .to_vec()
        .into_iter()
        .map(|p| {
            let ty = func.value_type(p);
            func.append_block_param(ph, ty)
        })
        .collect();
    func.append_inst(ph, InstKind::Jump(BlockCall::new(header, params)), None);
    let pos = func
        .layout
        .iter()
        .position(|&b| b == header)
        .unwrap_or(func.layout.len());
    func.layout.insert(pos, ph);
    ph
}
