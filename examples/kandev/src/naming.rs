//! How Kandev's tools are named to agents that namespace every tool by its
//! MCP server (Kandev's `WithMCPToolNamespacingByServer`): such an agent
//! already shows `list_tasks` as belonging to the `kandev` server, so the
//! `_kandev` every Kandev tool name ends in is said twice. Presented
//! without it, `list_tasks_kandev` is listed as `list_tasks` and a call to
//! `list_tasks` reaches it.

use mcp_profiles::{Presentation, PresentationError, Vocabulary};

use crate::Kandev;

/// The suffix every Kandev tool name ends in.
pub const SERVER_SUFFIX: &str = "_kandev";

/// The presentation that lists Kandev's tools without [`SERVER_SUFFIX`],
/// proven collision-free over Kandev's registry (the error names both
/// tools of a collision).
pub fn without_server_suffix() -> Result<Presentation, PresentationError> {
    let presentation = Presentation::strip_suffix(SERVER_SUFFIX)?;
    presentation.verify(Kandev::registry())?;
    Ok(presentation)
}

#[cfg(test)]
mod tests {
    #[test]
    fn kandev_names_present_without_the_suffix_and_collide_nowhere() {
        let presentation = super::without_server_suffix().expect("collision-free");
        assert_eq!(presentation.present("list_tasks_kandev"), "list_tasks");
    }
}
