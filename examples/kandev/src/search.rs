//! Tool search on Kandev's largest surfaces (`serve --tool-search`,
//! `gateway --tool-search`): a configuration chat lists 43 tools and an
//! external client 49, every one of them paid for in the agent's context on
//! every turn. With search, those sessions list `search_tools`,
//! `call_tool` and the question tool (asking the user is how a
//! conversation goes on, so an agent should not have to search for it);
//! every other tool of the profile is found by search and called directly
//! or through the proxy. Task sessions keep their full lists.

use mcp_profiles::{ToolSearch, ToolSearchError};

use crate::{Kandev, Surface};

/// The surfaces searched: those with the most tools.
pub const SEARCHED_SURFACES: [Surface; 3] = [
    Surface::Configuration,
    Surface::External,
    Surface::Automation,
];

/// The groups listed besides search's two tools.
pub const ALWAYS_LISTED: [&str; 1] = ["user-question"];

/// Kandev's tool search.
pub fn tool_search() -> Result<ToolSearch<Kandev>, ToolSearchError> {
    ToolSearch::new()
        .on_surfaces(SEARCHED_SURFACES)
        .always_listing(ALWAYS_LISTED)
}

#[cfg(test)]
mod tests {
    use mcp_profiles::{ProfileContext, ProfileController, Vocabulary};

    use super::*;

    /// Over Kandev's whole context space: what search can find is exactly
    /// what the profile serves, and what is listed is the always-listed
    /// tools the profile serves and search's two.
    #[test]
    fn search_reaches_exactly_each_profile_and_lists_little() {
        let search = tool_search().expect("declared groups");
        let controller = ProfileController::<Kandev>::new(ProfileContext::new(Surface::KanbanTask));
        controller
            .set_tool_search(search.clone())
            .expect("no collision");
        for context in ProfileContext::<Kandev>::all() {
            controller.replace(context);
            let reachable: Vec<String> = controller
                .reachable_tools()
                .into_iter()
                .map(|tool| tool.name.into_owned())
                .collect();
            let served: Vec<&str> = Kandev::registry().assemble(&context).tool_names().to_vec();
            assert_eq!(reachable, served, "{context}");
            let listed: Vec<String> = controller
                .tools()
                .into_iter()
                .map(|tool| tool.name.into_owned())
                .collect();
            if search.applies_to(&context) {
                assert!(listed.len() <= 3, "{context}: {listed:?}");
                assert!(listed.contains(&"search_tools".to_owned()), "{context}");
            } else {
                assert_eq!(listed, served, "{context}");
            }
        }
    }
}
