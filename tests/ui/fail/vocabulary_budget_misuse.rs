// `#[budget(tokens = N)]` goes on a surface, takes `tokens`, a whole number
// of at least 1, and is given once per surface. Each vocabulary below
// misuses it one way; each error is on what was written.

mod on_a_capability {
    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;
        #[surfaces] pub enum Surface { Ticket }
        #[capabilities] pub enum Capability { #[budget(tokens = 800)] Refund }
        #[providers] pub enum Provider {}
    }
}

mod without_arguments {
    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;
        #[surfaces] pub enum Surface { #[budget] Ticket }
        #[capabilities] pub enum Capability {}
        #[providers] pub enum Provider {}
    }
}

mod with_a_value {
    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;
        #[surfaces] pub enum Surface { #[budget = 8000] Ticket }
        #[capabilities] pub enum Capability {}
        #[providers] pub enum Provider {}
    }
}

mod missing_tokens {
    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;
        #[surfaces] pub enum Surface { #[budget()] Ticket }
        #[capabilities] pub enum Capability {}
        #[providers] pub enum Provider {}
    }
}

mod zero {
    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;
        #[surfaces] pub enum Surface { #[budget(tokens = 0)] Ticket }
        #[capabilities] pub enum Capability {}
        #[providers] pub enum Provider {}
    }
}

mod not_a_whole_number {
    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;
        #[surfaces] pub enum Surface { #[budget(tokens = "8000")] Ticket }
        #[capabilities] pub enum Capability {}
        #[providers] pub enum Provider {}
    }
}

mod misspelt_key {
    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;
        #[surfaces] pub enum Surface { #[budget(token = 8000)] Ticket }
        #[capabilities] pub enum Capability {}
        #[providers] pub enum Provider {}
    }
}

mod tokens_twice {
    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;
        #[surfaces] pub enum Surface { #[budget(tokens = 8000, tokens = 9000)] Ticket }
        #[capabilities] pub enum Capability {}
        #[providers] pub enum Provider {}
    }
}

mod given_twice {
    #[derive(Clone)]
    pub struct Desk;

    mcp_profiles::vocabulary! {
        server Desk;
        #[surfaces] pub enum Surface {
            #[budget(tokens = 8000)]
            #[budget(tokens = 9000)]
            Ticket,
        }
        #[capabilities] pub enum Capability {}
        #[providers] pub enum Provider {}
    }
}

fn main() {}
