//! A helpdesk vocabulary for the runtime's own tests; registries are built
//! in code with `Registry::builder` (the `testing` feature).

use mcp_profiles::Rule;

pub mod server {
    /// The server type the test vocabulary belongs to; it has no handlers.
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;

        #[surfaces]
        pub enum Surface { Ticket, Chat, Settings, Api }

        #[capabilities]
        pub enum Capability {
            Refund,
            #[exclusive_with(Refund)]
            ReadOnly,
            Escalate,
        }

        #[providers]
        pub enum Provider { Jira, Zendesk }
    }
}

pub use server::{Capability, Desk, Provider, Surface};

/// A rule over the test vocabulary.
pub type R = Rule<Desk>;

pub mod shop;
