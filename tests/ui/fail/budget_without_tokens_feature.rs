// A token budget needs mcp-profiles' `tokens` feature, which this crate
// does not enable: without a tokenizer no test could check the budget, so
// it does not compile rather than pass unchecked. The error is on the
// number.

#[derive(Clone)]
pub struct Desk;

mcp_profiles::vocabulary! {
    server Desk;
    #[surfaces] pub enum Surface { #[budget(tokens = 8_000)] Ticket, Chat }
    #[capabilities] pub enum Capability {}
    #[providers] pub enum Provider {}
}

fn main() {}
