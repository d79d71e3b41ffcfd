//! A set of small indices, such as the groups one context enables.

use crate::each_index;

/// A set of indices below a length fixed when it is built, one bit each.
///
/// Sets built for the same length are equal exactly when they hold the
/// same indices, so a set can key a cache.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BitSet(Box<[u64]>);

impl BitSet {
    /// The indices below `len` for which `member` holds.
    pub fn from_fn(len: usize, mut member: impl FnMut(usize) -> bool) -> Self {
        let mut words = vec![0u64; len.div_ceil(64)];
        for index in (0..len).filter(|&index| member(index)) {
            words[index / 64] |= 1 << (index % 64);
        }
        BitSet(words.into_boxed_slice())
    }

    /// Whether `index` is in the set.
    pub fn contains(&self, index: usize) -> bool {
        self.0
            .get(index / 64)
            .is_some_and(|word| word & (1 << (index % 64)) != 0)
    }

    /// Whether the set holds no index.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|word| *word == 0)
    }

    /// The indices in the set, ascending.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        let words = self.0.iter().enumerate();
        words.flat_map(|(word, bits)| each_index(*bits).map(move |bit| word * 64 + bit))
    }
}

#[cfg(test)]
mod tests {
    use super::BitSet;

    #[test]
    fn holds_exactly_its_indices_across_words() {
        let members = [0, 63, 64, 129];
        let set = BitSet::from_fn(130, |index| members.contains(&index));
        assert_eq!(set.iter().collect::<Vec<_>>(), members);
        assert!((0..200).all(|index| set.contains(index) == members.contains(&index)));
        assert!(!set.is_empty());
        assert!(BitSet::from_fn(130, |_| false).is_empty());
        assert_ne!(set, BitSet::from_fn(130, |index| index == 0));
    }
}
