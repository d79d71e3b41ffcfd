//! Naming helpers shared by the macros: kebab-case and "did you mean".

/// `KanbanTask` -> `kanban-task`, `Github` -> `github`, `V2Api` -> `v2-api`.
pub(crate) fn kebab_case(ident: &str) -> String {
    let mut out = String::with_capacity(ident.len() + 4);
    for (index, ch) in ident.chars().enumerate() {
        if ch.is_uppercase() {
            if index > 0 {
                out.push('-');
            }
            out.extend(ch.to_lowercase());
        } else if ch == '_' {
            out.push('-');
        } else {
            out.push(ch);
        }
    }
    out
}

/// Whether `name` is lowercase kebab-case: `a-z`/`0-9` words joined by `-`.
pub(crate) fn is_kebab_case(name: &str) -> bool {
    !name.is_empty()
        && name.split('-').all(|word| {
            !word.is_empty()
                && word
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// The candidate closest to `value`, if it is close enough to be a typo.
pub(crate) fn closest<'a>(
    value: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
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
    let mut rows: Vec<Vec<usize>> = (0..=a.len())
        .map(|i| {
            (0..=b.len())
                .map(|j| {
                    if i == 0 {
                        j
                    } else if j == 0 {
                        i
                    } else {
                        0
                    }
                })
                .collect()
        })
        .collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kebab_case_splits_on_capitals() {
        assert_eq!(kebab_case("KanbanTask"), "kanban-task");
        assert_eq!(kebab_case("Github"), "github");
        assert_eq!(kebab_case("UserQuestion"), "user-question");
    }

    #[test]
    fn kebab_case_check() {
        assert!(is_kebab_case("parent-question"));
        assert!(is_kebab_case("v2"));
        assert!(!is_kebab_case("Parent"));
        assert!(!is_kebab_case("a--b"));
        assert!(!is_kebab_case(""));
        assert!(!is_kebab_case("a_b"));
    }

    #[test]
    fn closest_finds_typos_only() {
        let names = ["user-question", "parent-question", "task-title"];
        assert_eq!(closest("parent-quesiton", names), Some("parent-question"));
        assert_eq!(closest("task-titel", names), Some("task-title"));
        assert_eq!(closest("github", names), None);
    }
}
