//! Dispatch: from a called tool name to the route that serves it, in one
//! lookup.
//!
//! rmcp's `ToolRouter::call` hashes the name with SipHash into a map of its
//! routes. Here every compiled tool name of a server type's registry gets a
//! number once, in name order ([`ToolIds`]); a snapshot keeps its routes in
//! the same order and one bit per number it serves ([`Members`]). A call is
//! then one cheap hash of the name into a fixed table, one string
//! comparison, a bit test and a popcount.
//!
//! The table is built once from names the program declares and never
//! changes, so a client cannot grow a collision chain: the longest probe
//! any name can cost is fixed at start (and short, the table being at most
//! half full). A name outside the table (a runtime tool, a presented name,
//! an unknown one) is simply not found here and takes the slower paths.

use rmcp::ErrorData;
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock, ErrorCode};

/// The message prefix of rmcp's answer to arguments that do not deserialize
/// into a tool's parameters (rmcp 3.11's `Parameters` extractor).
pub(crate) const BAD_ARGUMENTS_PREFIX: &str = "failed to deserialize parameters:";

/// Whether `error` is rmcp's answer to arguments that do not deserialize,
/// which [`as_router_answers`] turns into the tool's error result.
#[inline]
pub(crate) fn is_bad_arguments(error: &ErrorData) -> bool {
    error.code == ErrorCode::INVALID_PARAMS && error.message.starts_with(BAD_ARGUMENTS_PREFIX)
}

/// What rmcp's `ToolRouter::call` makes of a handler's answer, for routes
/// called directly: arguments that did not deserialize become the tool's
/// error result (the model can correct them), not a JSON-RPC error. rmcp's
/// own function is private; `tests/tests/integration/serving.rs` checks the
/// two agree.
#[inline]
pub(crate) fn as_router_answers(
    answer: Result<CallToolResponse, ErrorData>,
) -> Result<CallToolResponse, ErrorData> {
    match answer {
        Err(error) if is_bad_arguments(&error) => {
            Ok(CallToolResult::error(vec![ContentBlock::text(error.message)]).into())
        }
        answer => answer,
    }
}

/// Every compiled tool name of one server type, numbered in name order,
/// and a fixed open-addressing table from name to number.
pub(crate) struct ToolIds {
    /// Slots of `(name, number)`, a power of two long, at most half full.
    slots: Box<[Option<(&'static str, u32)>]>,
    /// `64 - log2(slots.len())`: the hash's top bits pick the slot.
    shift: u32,
    /// How many names are numbered.
    len: usize,
}

impl ToolIds {
    /// Numbers `names` (any order, repeats allowed) by their sorted order.
    pub fn new(names: impl IntoIterator<Item = &'static str>) -> Self {
        let mut names: Vec<&'static str> = names.into_iter().collect();
        names.sort_unstable();
        names.dedup();
        let size = (names.len() * 2).next_power_of_two().max(2);
        let shift = 64 - size.trailing_zeros();
        let mut slots = vec![None; size].into_boxed_slice();
        for (number, &name) in names.iter().enumerate() {
            let mut slot = (hash(name) >> shift) as usize;
            while slots[slot].is_some() {
                slot = (slot + 1) & (size - 1);
            }
            slots[slot] = Some((name, number as u32));
        }
        ToolIds {
            slots,
            shift,
            len: names.len(),
        }
    }

    /// How many names are numbered.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The number of `name`, if it is one of the server type's tools.
    #[inline]
    pub fn get(&self, name: &str) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut slot = (hash(name) >> self.shift) as usize;
        // Ends: the table always has an empty slot.
        loop {
            match self.slots[slot] {
                None => return None,
                Some((found, number)) if found == name => return Some(number),
                Some(_) => slot = (slot + 1) & mask,
            }
        }
    }
}

/// A multiplicative hash over eight bytes at a time (the constant is
/// rustc-hash's): fast for short names, and good enough in its top bits
/// for a table that is at most half full of names fixed at start.
#[inline]
fn hash(name: &str) -> u64 {
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let bytes = name.as_bytes();
    let mut hash = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        hash = (hash.rotate_left(5) ^ word).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut word = [0; 8];
        word[..rest.len()].copy_from_slice(rest);
        hash = (hash.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
    }
    hash
}

/// Which numbered tools one snapshot serves, and where each is among its
/// sorted routes: a bit per number and, per 64 of them, how many bits
/// come before.
pub(crate) struct Members {
    words: Box<[u64]>,
    before: Box<[u32]>,
}

impl Members {
    /// The members `numbers` (ascending) out of `len` numbered tools.
    pub fn new(len: usize, numbers: impl IntoIterator<Item = u32>) -> Self {
        let mut words = vec![0u64; len.div_ceil(64)].into_boxed_slice();
        for number in numbers {
            words[number as usize / 64] |= 1 << (number % 64);
        }
        let mut count = 0;
        let before = words
            .iter()
            .map(|word| {
                let here = count;
                count += word.count_ones();
                here
            })
            .collect();
        Members { words, before }
    }

    /// Where tool `number` is among the members, if it is one.
    #[inline]
    pub fn position(&self, number: u32) -> Option<usize> {
        let index = number as usize / 64;
        let bit = 1u64 << (number % 64);
        let word = self.words[index];
        (word & bit != 0).then(|| (self.before[index] + (word & (bit - 1)).count_ones()) as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::{Members, ToolIds};

    #[test]
    fn every_name_is_found_by_its_sorted_number_and_no_other_name_is() {
        let names: Vec<&'static str> = (0..1000)
            .map(|i| &*Box::leak(format!("tool_{i}_kandev").into_boxed_str()))
            .collect();
        let ids = ToolIds::new(names.iter().copied().chain(names.iter().copied().take(10)));
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(ids.len(), 1000);
        for (number, name) in sorted.iter().enumerate() {
            assert_eq!(ids.get(name), Some(number as u32), "{name}");
        }
        for unknown in [
            "",
            "tool_",
            "tool_1000_kandev",
            "tool_1_kandeV",
            "tool_1_kandev ",
        ] {
            assert_eq!(ids.get(unknown), None, "{unknown:?}");
        }
        assert_eq!(ToolIds::new([]).get("anything"), None);
    }

    #[test]
    fn a_member_s_position_counts_the_members_before_it() {
        let numbers = [0, 3, 63, 64, 65, 130, 199];
        let members = Members::new(200, numbers);
        for (position, &number) in numbers.iter().enumerate() {
            assert_eq!(members.position(number), Some(position));
        }
        for outside in [1, 2, 62, 66, 129, 131, 198] {
            assert_eq!(members.position(outside), None);
        }
    }
}
