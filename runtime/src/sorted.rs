//! Walking two sorted lists together: how profile and runtime-tool diffs
//! are computed, and how a session's compiled and runtime tools are merged.

use std::cmp::Ordering;
use std::iter::Peekable;

/// Where one item of two merged lists stands.
pub(crate) enum Side<T> {
    /// In the first (old) list only.
    Old(T),
    /// In the second (new) list only.
    New(T),
    /// In both, as the same key.
    Both(T, T),
}

/// The items of `old` and `new`, both sorted by `order`, in one ascending
/// pass: each item once, paired with its equal in the other list.
pub(crate) fn merge<T, F>(
    old: impl IntoIterator<Item = T>,
    new: impl IntoIterator<Item = T>,
    mut order: F,
) -> impl Iterator<Item = Side<T>>
where
    F: FnMut(&T, &T) -> Ordering,
{
    let (mut old, mut new): (Peekable<_>, Peekable<_>) =
        (old.into_iter().peekable(), new.into_iter().peekable());
    std::iter::from_fn(move || {
        let ordering = match (old.peek(), new.peek()) {
            (Some(a), Some(b)) => order(a, b),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => return None,
        };
        Some(match ordering {
            Ordering::Less => Side::Old(old.next()?),
            Ordering::Greater => Side::New(new.next()?),
            Ordering::Equal => Side::Both(old.next()?, new.next()?),
        })
    })
}

/// What `new` adds to `old` and removes from it, both sorted by `order`:
/// `(added, removed)`, each in that order.
pub(crate) fn added_removed<T, F>(
    old: impl IntoIterator<Item = T>,
    new: impl IntoIterator<Item = T>,
    order: F,
) -> (Vec<T>, Vec<T>)
where
    F: FnMut(&T, &T) -> Ordering,
{
    let (mut added, mut removed) = (Vec::new(), Vec::new());
    for side in merge(old, new, order) {
        match side {
            Side::Old(item) => removed.push(item),
            Side::New(item) => added.push(item),
            Side::Both(..) => {}
        }
    }
    (added, removed)
}

#[cfg(test)]
mod tests {
    use super::{Side, added_removed, merge};

    #[test]
    fn pairs_equal_keys_and_keeps_the_rest_in_order() {
        let sides: Vec<String> = merge([1, 3, 4, 7], [2, 3, 7, 8, 9], Ord::cmp)
            .map(|side| match side {
                Side::Old(a) => format!("-{a}"),
                Side::New(b) => format!("+{b}"),
                Side::Both(a, b) => format!("{a}={b}"),
            })
            .collect();
        assert_eq!(sides, ["-1", "+2", "3=3", "-4", "7=7", "+8", "+9"]);
        assert_eq!(
            added_removed(["a", "c"], ["b", "c", "d"], Ord::cmp),
            (vec!["b", "d"], vec!["a"])
        );
        assert_eq!(added_removed::<u8, _>([], [], Ord::cmp), (vec![], vec![]));
    }
}
