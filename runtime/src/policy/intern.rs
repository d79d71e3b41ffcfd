//! Interned name lists: how a [`DenyList`](super::DenyList) and the
//! context's [`AllowLists`](super::AllowLists) stay `Copy`.
//!
//! A deny list is a sorted, duplicate-free list of tool and group names,
//! kept once for the life of the process and referred to by a `&'static`
//! slice, as snapshots are (`snapshot.rs`): a context that carries one is
//! still a few words, copied and compared without touching a heap.
//!
//! Deny lists and group allow lists hold only names a registry declares
//! (decoding refuses the rest). A runtime allow list names runtime tools,
//! which no registry knows, so any valid MCP tool name is interned, at
//! most the vocabulary's `max` of them per list. Contexts are the
//! backend's (no MCP request can set one), so the tables are bounded by
//! the distinct lists a backend uses, never by what an agent sends.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

/// Every interned name and every interned list.
#[derive(Default)]
struct Tables {
    names: HashSet<&'static str>,
    lists: HashSet<&'static [&'static str]>,
    /// Allow lists by group: pairs of an interned group name and list.
    pairs: HashSet<&'static [Pair]>,
}

/// A group's name and its interned list.
pub(super) type Pair = (&'static str, &'static [&'static str]);

fn tables() -> &'static Mutex<Tables> {
    static TABLES: OnceLock<Mutex<Tables>> = OnceLock::new();
    TABLES.get_or_init(Mutex::default)
}

/// The one process-lived copy of `names`, which must be sorted and
/// duplicate-free; equal lists give the same slice.
pub(super) fn intern(names: &[&str]) -> &'static [&'static str] {
    debug_assert!(names.windows(2).all(|pair| pair[0] < pair[1]));
    if names.is_empty() {
        return &[];
    }
    let mut tables = tables().lock().unwrap_or_else(|e| e.into_inner());
    // Names first: a list is looked up by its interned names.
    let owned: Vec<&'static str> = names
        .iter()
        .map(|name| match tables.names.get(*name) {
            Some(name) => *name,
            None => {
                let leaked: &'static str = Box::leak(Box::<str>::from(*name));
                tables.names.insert(leaked);
                leaked
            }
        })
        .collect();
    if let Some(list) = tables.lists.get(owned.as_slice()) {
        return list;
    }
    let list: &'static [&'static str] = Box::leak(owned.into_boxed_slice());
    tables.lists.insert(list);
    list
}

/// The one process-lived copy of `pairs`, which must be sorted by group
/// and hold each group once, with interned lists; equal sets of pairs give
/// the same slice.
pub(super) fn intern_pairs(pairs: &[Pair]) -> &'static [Pair] {
    debug_assert!(pairs.windows(2).all(|pair| pair[0].0 < pair[1].0));
    if pairs.is_empty() {
        return &[];
    }
    let mut tables = tables().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(found) = tables.pairs.get(pairs) {
        return found;
    }
    let leaked: &'static [Pair] = Box::leak(Box::<[Pair]>::from(pairs));
    tables.pairs.insert(leaked);
    leaked
}

/// Whether two interned slices hold the same items, without reading them:
/// equal non-empty slices are one slice, and empty slices (which may have
/// any address) are all equal.
pub(super) fn same<T>(a: &'static [T], b: &'static [T]) -> bool {
    a.len() == b.len() && (a.is_empty() || std::ptr::eq(a, b))
}

/// What an interned slice hashes as, consistent with [`same`]: its address,
/// or 0 for any empty slice.
pub(super) fn address<T>(list: &'static [T]) -> usize {
    if list.is_empty() {
        0
    } else {
        list.as_ptr() as usize
    }
}

#[cfg(test)]
mod tests {
    use super::{intern, intern_pairs};

    #[test]
    fn equal_pairs_share_one_copy() {
        let list = intern(&["alpha"]);
        let a = intern_pairs(&[("group", list)]);
        let b = intern_pairs(&[("group", intern(&["alpha"]))]);
        assert!(std::ptr::eq(a, b));
        assert!(!std::ptr::eq(a, intern_pairs(&[("other", list)])));
    }

    #[test]
    fn equal_lists_share_one_copy() {
        let a = intern(&["alpha", "beta"]);
        let b = intern(&[String::from("alpha").as_str(), "beta"]);
        assert!(std::ptr::eq(a, b));
        assert_eq!(a, ["alpha", "beta"]);
        let c = intern(&["alpha"]);
        assert!(std::ptr::eq(a[0], c[0]), "names are shared across lists");
        assert!(intern(&[]).is_empty());
    }
}
