//! `kandev-mcp`: Kandev's MCP surface on mcp-profiles.

fn main() {
    use mcp_profiles::Vocabulary;
    let registry = kandev_mcp::Kandev::registry();
    println!("{} groups", registry.groups().len());
}
