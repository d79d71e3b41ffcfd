//! The enablement rules of [mcp-profiles](https://docs.rs/mcp-profiles) as
//! bit masks, and whether a rule can ever be satisfied.
//!
//! `#[tool_group]` (in `mcp-profiles-macros`) decides satisfiability at
//! compile time and `mcp-profiles`' registry and runtime catalogs decide it
//! at run time; both call [`Shape::witness`], so they refuse the same rules
//! for the same [`Unsatisfiable`] reason, each in its own words.
//!
//! Not a stable API of its own: both crates depend on this exact version.
//! Use `mcp-profiles`.

mod bitset;
mod masks;
mod names;
mod shape;
mod uri_template;

pub use bitset::BitSet;
pub use masks::{ContextBits, RuleMasks};
pub use names::closest;
pub use shape::{Shape, Unsatisfiable};
pub use uri_template::{TemplateError, UriTemplate};

/// Every bit below `count`: the mask of a kind with `count` terms.
pub fn mask_below(count: usize) -> u64 {
    if count >= 64 {
        u64::MAX
    } else {
        (1u64 << count) - 1
    }
}

/// The set bits of `mask`, each as a one-bit mask, lowest first.
pub fn each_bit(mut mask: u64) -> impl Iterator<Item = u64> {
    std::iter::from_fn(move || {
        let bit = mask & mask.wrapping_neg();
        mask &= !bit;
        (bit != 0).then_some(bit)
    })
}

/// The indices of the set bits of `mask`, lowest first.
pub fn each_index(mask: u64) -> impl Iterator<Item = usize> {
    each_bit(mask).map(|bit| bit.trailing_zeros() as usize)
}
