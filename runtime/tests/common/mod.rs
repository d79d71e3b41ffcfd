//! A Kandev-like vocabulary and hand-built group entries for registry tests.

#![allow(dead_code)]

use mcp_profiles::__private::{GroupEntry, RuleMasks};
use mcp_profiles::{Registry, RegistryErrors, Term};

pub mod server {
    /// The server type the test vocabulary belongs to; it has no handlers.
    pub struct Server;

    mcp_profiles::vocabulary! {
        server Server;

        #[surfaces]
        pub enum Surface { KanbanTask, OfficeTask, Configuration, External }

        #[capabilities]
        pub enum Capability {
            UserQuestion,
            #[exclusive_with(UserQuestion)]
            ParentQuestion,
            TaskTitle,
        }

        #[providers]
        pub enum Provider { Github, Gitlab }
    }
}

pub use server::{Capability, Provider, Server, Surface};

/// A rule over typed terms, for writing entries by hand.
pub fn rule(
    surfaces: &[Surface],
    capabilities: &[Capability],
    providers: &[Provider],
) -> RuleMasks {
    RuleMasks {
        surfaces: surfaces.iter().fold(0, |bits, t| bits | t.bit()),
        capabilities: capabilities.iter().fold(0, |bits, t| bits | t.bit()),
        providers: providers.iter().fold(0, |bits, t| bits | t.bit()),
        ..RuleMasks::default()
    }
}

/// A group entry as `#[tool_group]` would emit it, without routes.
pub fn entry(
    name: &'static str,
    rule: RuleMasks,
    tools: &'static [&'static str],
) -> GroupEntry<Server> {
    GroupEntry {
        name: Some(name),
        module_path: "tests::groups",
        file: "tests/groups.rs",
        line: 1,
        rule,
        tools,
        routes: Vec::new,
    }
}

pub fn registry(entries: Vec<GroupEntry<Server>>) -> Result<Registry<Server>, RegistryErrors> {
    Registry::from_entries(entries)
}
