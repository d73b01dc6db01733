//! [`Item`]: a declared value together with the info that declared it and where, which every diagnostic names.

use crate::origin::Origin;

/// A value recorded together with the info that declared it and where.
#[derive(Clone, Debug, PartialEq)]
pub struct Item<T> {
    pub value: T,
    /// Name of the info (or interface) that declared the item; survives `additional_info` resolution.
    pub declared_in: String,
    pub origin: Origin,
}
