//! Kandev's exposed names for plugin tools: `kandev_<slug>_<local_name>`,
//! at most 64 characters.

use sha2::{Digest, Sha256};

/// The longest exposed name Kandev produces.
pub const MAX_EXPOSED_NAME: usize = 64;

const PREFIX: &str = "kandev_";

/// The plugin id lower-cased, every character outside `[a-z0-9_]` replaced
/// by `_`, leading and trailing `_` trimmed.
pub fn slug(plugin_id: &str) -> String {
    let replaced: String = plugin_id
        .chars()
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            'a'..='z' | '0'..='9' | '_' => c,
            _ => '_',
        })
        .collect();
    replaced.trim_matches('_').to_owned()
}

/// The first 8 hex digits of SHA-256(`plugin_id`): what keeps two plugins
/// apart once their slugs are cut short.
fn short_hash(plugin_id: &str) -> String {
    Sha256::digest(plugin_id.as_bytes())[..4]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The name Kandev exposes `local_name` of `plugin_id` under, or `None`
/// when `local_name` alone leaves no room within 64 characters.
///
/// `kandev_<slug>_<local_name>` when that fits in 64 characters; otherwise
/// the slug is cut so that `kandev_<cut slug>_<hash>_<local_name>` is 64
/// characters long (its trailing `_` trimmed, and left out when empty),
/// where `<hash>` is the first 8 hex digits of SHA-256(plugin id).
///
/// ```
/// use kandev_mcp::plugins::exposed_name;
///
/// assert_eq!(exposed_name("Acme.Jira", "create_issue").unwrap(), "kandev_acme_jira_create_issue");
/// let long = exposed_name(&"very-long-plugin-".repeat(4), "create_issue").unwrap();
/// assert_eq!(long.len(), 64);
/// assert!(long.starts_with("kandev_very_long_plugin_very_long_plugin_v"));
/// assert!(long.ends_with("_create_issue"));
/// ```
pub fn exposed_name(plugin_id: &str, local_name: &str) -> Option<String> {
    let slug = slug(plugin_id);
    let full = format!("{PREFIX}{slug}_{local_name}");
    if full.len() <= MAX_EXPOSED_NAME {
        return Some(full);
    }
    let hash = short_hash(plugin_id);
    // kandev_ + hash + _ + local_name, then the slug and its `_` if room.
    let fixed = PREFIX.len() + hash.len() + 1 + local_name.len();
    if fixed > MAX_EXPOSED_NAME {
        return None;
    }
    // The slug is ASCII, so any byte index is a character boundary.
    let room = (MAX_EXPOSED_NAME - fixed).saturating_sub(1);
    let cut = slug[..room.min(slug.len())].trim_end_matches('_');
    Some(if cut.is_empty() {
        format!("{PREFIX}{hash}_{local_name}")
    } else {
        format!("{PREFIX}{cut}_{hash}_{local_name}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_follow_kandevs_rule() {
        assert_eq!(slug("Acme.Jira"), "acme_jira");
        assert_eq!(slug("--My Plugin!--"), "my_plugin");
        assert_eq!(slug("__x__"), "x");
        assert_eq!(slug("ÄÖ"), "");
        assert_eq!(slug("a-Ä-b"), "a___b");
        assert_eq!(slug("..."), "");
    }

    #[test]
    fn long_names_are_cut_to_64_with_the_hash() {
        let id = "a".repeat(80);
        let name = exposed_name(&id, "run").unwrap();
        assert_eq!(name.len(), MAX_EXPOSED_NAME);
        assert_eq!(
            name,
            format!("kandev_{}_{}_run", "a".repeat(44), short_hash(&id))
        );
        // Two plugins sharing a long prefix stay apart.
        let other = exposed_name(&format!("{id}b"), "run").unwrap();
        assert_ne!(name, other);
    }

    #[test]
    fn a_local_name_that_cannot_fit_has_no_exposed_name() {
        assert!(exposed_name("p", &"x".repeat(48)).is_some());
        assert!(exposed_name(&"p".repeat(60), &"x".repeat(48)).is_some());
        assert!(exposed_name(&"p".repeat(60), &"x".repeat(49)).is_none());
    }
}
