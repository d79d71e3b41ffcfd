//! Kandev's exposed names for plugin tools, computed exactly as its
//! `plugintools.ExposedName(pluginID, localName)` does, so that a real
//! Kandev snapshot's names are the ones this server expects.

use sha2::{Digest, Sha256};

/// The length Kandev aims an exposed name at: longer plain names get a
/// cut slug and a hash suffix. A very long local name can still exceed it
/// (see [`exposed_name`]).
pub const MAX_EXPOSED_NAME: usize = 64;

const PREFIX: &str = "kandev_";

/// Hex digits of the plugin id's SHA-256 that end a cut name.
const HASH_DIGITS: usize = 8;

/// The plugin id as Kandev slugs it: each character lower-cased one to one
/// (Go's `unicode.ToLower`), each character outside `[a-z0-9_]` then
/// replaced by one `_`, and `_` trimmed at both ends.
///
/// ```
/// use kandev_mcp::plugins::slug;
///
/// assert_eq!(slug("Acme.Jira"), "acme_jira");
/// // Go's simple case mapping: `İ` is `i`, the Kelvin sign is `k`.
/// assert_eq!(slug("İ-\u{212A}"), "i_k");
/// ```
pub fn slug(plugin_id: &str) -> String {
    let replaced: String = plugin_id
        .chars()
        .map(|c| match simple_lowercase(c) {
            c @ ('a'..='z' | '0'..='9' | '_') => c,
            _ => '_',
        })
        .collect();
    replaced.trim_matches('_').to_owned()
}

/// `c` lower-cased to one character, as Go's `unicode.ToLower` does.
///
/// Rust's `to_lowercase` is Unicode's full mapping; it differs from the
/// simple one only where it yields several characters, and the only such
/// character is `İ` (U+0130 → `i` U+0307), whose simple mapping is the
/// first of them.
fn simple_lowercase(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

/// The first 8 hex digits of SHA-256(`plugin_id`): what keeps two plugins
/// apart once their slugs are cut short.
fn short_hash(plugin_id: &str) -> String {
    Sha256::digest(plugin_id.as_bytes())[..HASH_DIGITS / 2]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The name Kandev exposes `local_name` of `plugin_id` under.
///
/// `kandev_<slug>_<local_name>` when that is at most 64 characters.
/// Otherwise `kandev_<cut slug>_<local_name>_<hash>`, where `<hash>` is the
/// first 8 hex digits of SHA-256(plugin id) and the slug is cut to
/// `64 - len("kandev__") - len(local_name) - len("_") - 8` characters (at
/// least 1), never trimmed again: such a name is 64 characters long, or
/// longer when the local name alone leaves no room. Kandev answers those
/// with a name too, and so does this; the library's MCP name rule (1 to
/// 128 characters) then decides whether the tool can be served.
///
/// ```
/// use kandev_mcp::plugins::exposed_name;
///
/// assert_eq!(exposed_name("Acme.Jira", "create_issue"), "kandev_acme_jira_create_issue");
/// let long = exposed_name(&"very-long-plugin-".repeat(4), "create_issue");
/// assert_eq!(long, "kandev_very_long_plugin_very_long_plugin_v_create_issue_a6c40aec");
/// ```
pub fn exposed_name(plugin_id: &str, local_name: &str) -> String {
    let slug = slug(plugin_id);
    let plain = format!("{PREFIX}{slug}_{local_name}");
    if plain.len() <= MAX_EXPOSED_NAME {
        return plain;
    }
    let available = MAX_EXPOSED_NAME
        .saturating_sub("kandev__".len() + local_name.len() + "_".len() + HASH_DIGITS)
        .max(1);
    // The slug is ASCII, so any byte index is a character boundary.
    let cut = &slug[..available.min(slug.len())];
    format!(
        "{PREFIX}{cut}_{local_name}_{hash}",
        hash = short_hash(plugin_id)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plugin id of 70 characters with punctuation, non-ASCII letters,
    /// `İ` and the Kelvin sign.
    const UNICODE_ID: &str =
        "İstanbul-Ünïcode Plugin/Tools.v2 (Beta) für Açme Corporation™ — \u{212A}elvin";

    #[test]
    fn slugs_follow_kandevs_rule() {
        assert_eq!(slug("Acme.Jira"), "acme_jira");
        assert_eq!(slug("--My Plugin!--"), "my_plugin");
        assert_eq!(slug("__x__"), "x");
        assert_eq!(slug("ÄÖ"), "");
        assert_eq!(slug("a-Ä-b"), "a___b");
        assert_eq!(slug("..."), "");
        assert_eq!(
            slug(UNICODE_ID),
            "istanbul__n_code_plugin_tools_v2__beta__f_r_a_me_corporation____kelvin"
        );
    }

    /// Vectors worked out by hand from Kandev's formula (the hashes with
    /// `sha256sum`, independently of this code).
    #[test]
    fn names_match_kandevs_formula() {
        let cases: [(&str, &str, &str); 8] = [
            ("Acme.Jira", "create_issue", "kandev_acme_jira_create_issue"),
            // A plain name of exactly 64 characters is kept.
            (
                &"a".repeat(50),
                "abcdef",
                "kandev_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_abcdef",
            ),
            // Cut to 47 - 10 = 37: the hash goes last.
            (
                UNICODE_ID,
                "sync_board",
                "kandev_istanbul__n_code_plugin_tools_v2__bet_sync_board_922b1fe2",
            ),
            // Cut to 39, ending in `_`: kept, never trimmed again.
            (
                UNICODE_ID,
                "sync_all",
                "kandev_istanbul__n_code_plugin_tools_v2__beta__sync_all_922b1fe2",
            ),
            (
                &"a".repeat(80),
                "run",
                "kandev_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_run_0f45e858",
            ),
            // 47 - 46 = 1.
            (
                &"p".repeat(60),
                &"x".repeat(46),
                "kandev_p_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx_598b320c",
            ),
            // 47 - 48 < 1, raised to 1: 66 characters, as Kandev makes it.
            (
                &"p".repeat(60),
                &"x".repeat(48),
                "kandev_p_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx_598b320c",
            ),
            // An empty slug stays empty.
            (
                "ÄÖ",
                &"y".repeat(57),
                "kandev__yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy_de7254df",
            ),
        ];
        for (plugin_id, local_name, expected) in cases {
            assert_eq!(exposed_name(plugin_id, local_name), expected, "{plugin_id}");
        }
    }

    #[test]
    fn two_plugins_sharing_a_long_prefix_stay_apart() {
        let id = "a".repeat(80);
        assert_ne!(
            exposed_name(&id, "run"),
            exposed_name(&format!("{id}b"), "run")
        );
    }
}
