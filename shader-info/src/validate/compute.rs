//! Compute: the work-group size and shared variables.

use super::checker::Checker;
use super::constants::named_size_problem;
use crate::diagnostic::{Code, Diagnostic};
use crate::limits::{
    GUARANTEED_SHARED_MEMORY, GUARANTEED_WORK_GROUP_INVOCATIONS, GUARANTEED_WORK_GROUP_SIZE,
    MAX_SHARED_MEMORY, MAX_WORK_GROUP_AXIS, MAX_WORK_GROUP_INVOCATIONS, MAX_WORK_GROUP_SIZE,
};
use crate::resource::{ArraySize, split_shared_name};
use crate::types::*;

/// Work-group sizes: an overflowing invocation count is an error; past the guaranteed minimums, a warning.
/// Shared variables: compute only, well named and sized, and their total within what devices give.
pub(super) fn check_shared_variables(c: &mut Checker) {
    let info = c.info;
    let stages = info.stages();
    let mut total = 0u64;
    for it in &info.shared_variables {
        let v = &it.value;
        let item = format!("shared_variable `{}`", v.name);
        if !stages.is_empty() && !stages.contains(&Stage::Compute) {
            c.err(
                Code::IncompleteInfo,
                item.clone(),
                it,
                format!(
                    "{item} is work-group memory, but `{}` has no compute stage: no stage would use it",
                    info.name
                ),
                "declare it on the compute info, or on a building block only compute infos include",
            );
        }
        match split_shared_name(&v.name) {
            Ok((base, size)) => {
                c.ident("shared_variable", base, it);
                if let ArraySize::Fixed(n) = size
                    && n > i32::MAX as u32
                {
                    c.err(
                        Code::OutOfRange,
                        item.clone(),
                        it,
                        format!("{item} has {n} elements, past {}, the largest array size GLSL can write", i32::MAX),
                        "size it for the work group (devices give 16 KiB to 64 KiB of work-group memory)",
                    );
                }
                if size == ArraySize::Runtime {
                    c.err(
                        Code::InvalidArray,
                        item.clone(),
                        it,
                        format!("{item} has no size: work-group memory is sized when the pipeline is made"),
                        "give it a size: `name[N]`, or `name[CONSTANT]` with a constant of the info",
                    );
                }
            }
            Err(e) => {
                let (message, hint) = named_size_problem(info, &v.name)
                    .unwrap_or((e, "write `name` or `name[N]`".to_string()));
                c.err(Code::InvalidArray, item.clone(), it, message, hint);
            }
        }
        total += v.bytes().unwrap_or(0);
    }
    let Some(first) = info.shared_variables.first() else {
        return;
    };
    if total > MAX_SHARED_MEMORY {
        c.err(
            Code::OutOfRange,
            "shared_variable".into(),
            first,
            format!(
                "the shared variables take {total} bytes, past {MAX_SHARED_MEMORY}, the most work-group memory any \
                 device can give (a 32-bit count)"
            ),
            "size them for the work group (devices give 16 KiB to 228 KiB of work-group memory)",
        );
    } else if total > GUARANTEED_SHARED_MEMORY {
        c.diags.push(
            Diagnostic::warning(
                Code::WorkGroupSize,
                &info.name,
                format!(
                    "the shared variables take {total} bytes, past the {GUARANTEED_SHARED_MEMORY} bytes every device guarantees"
                ),
            )
            .item("shared_variable")
            .at(&first.declared_in, first.origin)
            .hint("fine on devices that allow it (checked against the device's limit before pipeline creation); keep within the guarantee to run everywhere"),
        );
    }
}

pub(super) fn check_work_group(c: &mut Checker) {
    let info = c.info;
    let Some(it) = &info.local_group_size else {
        return;
    };
    let [x, y, z] = it.value;
    if it.value.contains(&0) {
        return; // reported as ZeroGroupSize
    }
    if let Some(big) = it.value.iter().find(|s| **s > MAX_WORK_GROUP_AXIS) {
        c.err(
            Code::WorkGroupSize,
            "local_group_size".into(),
            it,
            format!("local group size {x}×{y}×{z} has an axis of {big}, past {MAX_WORK_GROUP_AXIS}, more than any device allows"),
            format!("Vulkan guarantees {GUARANTEED_WORK_GROUP_SIZE:?} per axis; devices allow about 1024"),
        );
        return;
    }
    let invocations = u128::from(x) * u128::from(y) * u128::from(z);
    if invocations > u128::from(u32::MAX) {
        c.err(
            Code::WorkGroupSize,
            "local_group_size".into(),
            it,
            format!("local group size {x}×{y}×{z} is {invocations} invocations, past what a work group can count"),
            format!("Vulkan guarantees {GUARANTEED_WORK_GROUP_INVOCATIONS} invocations per group; devices allow about 1024"),
        );
        return;
    }
    // Past what glslang and every device refuse: an error, with the axis and the limit.
    let mut beyond = Vec::new();
    for (axis, (size, limit)) in ["x", "y", "z"]
        .iter()
        .zip(it.value.iter().zip(MAX_WORK_GROUP_SIZE))
    {
        if *size > limit {
            beyond.push(format!("{axis} = {size} is past {limit}"));
        }
    }
    if invocations > u128::from(MAX_WORK_GROUP_INVOCATIONS) {
        beyond.push(format!(
            "{invocations} invocations are past {MAX_WORK_GROUP_INVOCATIONS}"
        ));
    }
    if !beyond.is_empty() {
        c.err(
            Code::WorkGroupSize,
            "local_group_size".into(),
            it,
            format!(
                "local group size {x}×{y}×{z}: {}; no device runs it (devices allow at most {MAX_WORK_GROUP_SIZE:?} and {MAX_WORK_GROUP_INVOCATIONS} invocations, glslang refuses larger axes)",
                beyond.join("; ")
            ),
            format!(
                "keep each axis within {MAX_WORK_GROUP_SIZE:?} and x×y×z within {MAX_WORK_GROUP_INVOCATIONS}; Vulkan guarantees {GUARANTEED_WORK_GROUP_SIZE:?} and {GUARANTEED_WORK_GROUP_INVOCATIONS}"
            ),
        );
        return;
    }
    let mut past = Vec::new();
    for (axis, (size, limit)) in ["x", "y", "z"]
        .iter()
        .zip(it.value.iter().zip(GUARANTEED_WORK_GROUP_SIZE))
    {
        if *size > limit {
            past.push(format!("{axis} = {size} is past the guaranteed {limit}"));
        }
    }
    if invocations > u128::from(GUARANTEED_WORK_GROUP_INVOCATIONS) {
        past.push(format!(
            "{invocations} invocations are past the guaranteed {GUARANTEED_WORK_GROUP_INVOCATIONS}"
        ));
    }
    if !past.is_empty() {
        c.diags.push(
            Diagnostic::warning(
                Code::WorkGroupSize,
                &info.name,
                format!(
                    "local group size {x}×{y}×{z}: {} (typical devices allow {MAX_WORK_GROUP_SIZE:?} and {MAX_WORK_GROUP_INVOCATIONS} invocations)",
                    past.join("; ")
                ),
            )
            .item("local_group_size")
            .at(&it.declared_in, it.origin)
            .hint("fine on devices that allow it (checked against the device's limits before pipeline creation); keep within the guarantees to run everywhere"),
        );
    }
}
