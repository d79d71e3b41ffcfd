//! MCP's tool-name rules, for names the crate learns at run time: a runtime
//! catalog's tools, and the names a context's runtime allow list may hold.

/// The longest tool name MCP allows.
pub(crate) const MAX_NAME: usize = 128;

/// MCP's tool-name rules (2025-11-25): 1 to 128 characters, each an ASCII
/// letter or digit, `_`, `-` or `.`. The error says what is wrong and what
/// a name may be.
pub(crate) fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("it is empty; a tool name has 1 to 128 characters".to_owned());
    }
    let length = name.chars().count();
    if length > MAX_NAME {
        return Err(format!(
            "it has {length} characters; a tool name has at most {MAX_NAME}"
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Err(format!(
            "it contains {bad:?}; a tool name uses only A-Z, a-z, 0-9, `_`, `-` and `.`"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_name;

    #[test]
    fn tool_names_follow_the_mcp_rules() {
        for good in [
            "a",
            "getUser",
            "DATA_EXPORT_v2",
            "admin.tools.list",
            "a-b",
            &"x".repeat(128),
        ] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in ["", "a b", "a/b", "a,b", "é", &"x".repeat(129)] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }
}
