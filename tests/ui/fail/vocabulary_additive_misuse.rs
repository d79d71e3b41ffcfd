// `#[additive]` on the `server` line is a flag given once.
#[derive(Clone)]
pub struct Tracker;

impl rmcp::ServerHandler for Tracker {}

mcp_profiles::vocabulary! {
    #[additive(capabilities)]
    #[additive]
    #[additive]
    server Tracker;

    #[surfaces]
    pub enum Surface { Board }

    #[capabilities]
    pub enum Capability { Archive }

    #[providers]
    pub enum Provider {}
}

fn main() {}
