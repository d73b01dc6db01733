//! The static pass's expansion of an info's variants checked against each variant validated and generated alone.

use gpu::flow::{Expansion, Flow};

/// Compares `variants` (what [`Flow::expand_generated`] gave for info `name`) with each variant validated and
/// generated alone: the number of stage texts compared, or the first difference.
pub fn matches_each_variant_alone(
    flow: &Flow,
    name: &str,
    variants: &[Expansion],
) -> Result<usize, String> {
    let mut texts = 0;
    for (i, v) in variants.iter().enumerate() {
        let alone = flow.validated_key(&format!("{name}#v{i}"));
        let expanded = v.as_ref().map(|(v, _)| v);
        if expanded != alone.as_ref() {
            return Err(format!(
                "variant {i} as expanded is not the variant validated alone:\n{expanded:?}\n{alone:?}"
            ));
        }
        let (Ok((_, stages)), Ok(alone)) = (v, &alone) else {
            continue;
        };
        if stages.len() != alone.stages().len() {
            return Err(format!(
                "variant {i} expanded with {} stages, not its {}",
                stages.len(),
                alone.stages().len()
            ));
        }
        for (stage, text) in alone.stages().into_iter().zip(stages) {
            let Some(text) = text else { continue };
            let generated = flow.generate(alone, stage);
            if generated.as_ref() != Ok(text) {
                return Err(format!(
                    "variant {i} {stage} as expanded is not its text generated alone:\n{}\n{generated:?}",
                    text.source
                ));
            }
            texts += 1;
        }
    }
    Ok(texts)
}
