//! `ProfiledServer` forwards every `ServerHandler` method it does not answer
//! itself (`runtime/src/forward.rs`). A method a later rmcp adds, with a
//! default body, would silently bypass the user's handler: this test reads
//! the trait from the rmcp source the build uses and fails until
//! `forward.rs`'s list names exactly its methods, in trait order, each
//! reviewed as forwarded, overridden or a tool method.

use std::path::PathBuf;
use std::process::Command;

/// The directory of the rmcp package this workspace builds against.
fn rmcp_source() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let rmcp = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|package| package["name"] == "rmcp")
        .expect("rmcp is a dependency");
    PathBuf::from(rmcp["manifest_path"].as_str().unwrap())
        .parent()
        .unwrap()
        .to_owned()
}

/// The names of the `fn`s in `server_handler_methods!`, the macro rmcp's
/// `ServerHandler` trait is written with, in order.
fn trait_methods(source: &str) -> Vec<String> {
    let start = source
        .find("macro_rules! server_handler_methods")
        .expect("rmcp writes ServerHandler's methods with server_handler_methods!");
    let mut depth = 0;
    let mut end = start;
    for (offset, c) in source[start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    end = start + offset;
                    break;
                }
            }
            _ => {}
        }
    }
    let mut names = Vec::new();
    for line in source[start..end].lines() {
        let line = line.trim_start();
        let line = line.strip_prefix("async ").unwrap_or(line);
        if let Some(rest) = line.strip_prefix("fn ") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}

/// The methods `forward.rs`'s reviewed list names, in order.
fn reviewed_methods() -> Vec<String> {
    let forward = include_str!("../../../runtime/src/forward.rs");
    let list = forward
        .split("/// ```text")
        .nth(1)
        .and_then(|rest| rest.split("/// ```").next())
        .expect("forward.rs lists the trait's methods in a text block");
    list.lines()
        .filter_map(|line| {
            let words: Vec<&str> = line.trim_start_matches("///").split_whitespace().collect();
            match words.as_slice() {
                [name, verdict, ..] if ["forwarded", "overridden:", "tools:"].contains(verdict) => {
                    Some((*name).to_owned())
                }
                _ => None,
            }
        })
        .collect()
}

#[test]
fn every_server_handler_method_of_this_rmcp_is_reviewed_in_forward_rs() {
    let dir = rmcp_source();
    let source = std::fs::read_to_string(dir.join("src/handler/server.rs")).unwrap();
    let methods = trait_methods(&source);
    assert!(methods.len() > 20, "read too few methods: {methods:?}");
    assert_eq!(
        reviewed_methods(),
        methods,
        "rmcp at {} has other ServerHandler methods than runtime/src/forward.rs reviews: \
         decide for each new one whether ProfiledServer forwards or answers it, then update \
         the list (and the supported rmcp versions in the README)",
        dir.display()
    );
}
