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

/// "Did you mean": shared with the runtime, which checks names decoded at run time.
pub(crate) use mcp_profiles_rules::closest;

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
}
