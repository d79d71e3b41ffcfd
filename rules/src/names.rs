//! "Did you mean": the closest known name to a misspelt one.
//!
//! The macros use it for names in attributes, the runtime for names decoded
//! at run time (a policy's deny list), so both suggest the same names.

/// The candidate closest to `value`, if it is close enough to be a typo:
/// at most a third of the longer name's characters (and at least one) apart.
pub fn closest<'a>(value: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|candidate| (edit_distance(value, candidate), candidate))
        .filter(|(distance, candidate)| *distance <= (candidate.len().max(value.len()) / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance, counting a swap of two neighbours as one edit.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Three rows suffice: a swap looks two rows back.
    let mut before: Vec<usize> = Vec::new();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (previous[j] + 1)
                .min(row[j - 1] + 1)
                .min(previous[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            row[j] = best;
        }
        before = std::mem::replace(&mut previous, row);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_finds_typos_only() {
        let names = ["user-question", "parent-question", "task-title"];
        assert_eq!(closest("parent-quesiton", names), Some("parent-question"));
        assert_eq!(closest("task-titel", names), Some("task-title"));
        assert_eq!(closest("github", names), None);
        assert_eq!(
            closest("delete_tsak", ["delete_task", "create_task"]),
            Some("delete_task")
        );
    }

    #[test]
    fn edit_distance_counts_edits_and_swaps() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("", "ab"), 2);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("ab", "ba"), 1);
        assert_eq!(edit_distance("abcd", "acbd"), 1);
    }
}
