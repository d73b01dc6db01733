//! What the binding map says of the resources a module uses, for every check's comparisons and messages.

use crate::cross::Portable;
use shader_info::TargetBinding;

/// The bindings the module uses (after the translator dropped what its entry point does not use).
pub(crate) fn used_bindings(p: &Portable) -> Vec<&TargetBinding> {
    p.module()
        .global_variables
        .iter()
        .filter_map(|(_, g)| g.binding.as_ref())
        .filter_map(|rb| p.plan.targets.at(rb.group, rb.binding))
        .collect()
}

pub(crate) fn describe(b: &TargetBinding) -> String {
    format!(
        "`{}`{} (set {}, binding {})",
        b.name,
        crate::cross::part_name(b.part),
        b.set,
        b.binding
    )
}
