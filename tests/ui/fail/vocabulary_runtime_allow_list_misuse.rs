// `#[runtime_allow_list(max = N)]` on the `server` line takes exactly one
// key, `max`, a whole number of at least 1, and is given once. Each
// vocabulary below misuses it one way; each error is on what was written.

mod without_arguments {
    #[derive(Clone)]
    pub struct Tracker;

    mcp_profiles::vocabulary! {
        #[runtime_allow_list]
        server Tracker;
        #[surfaces] pub enum Surface { Board }
        #[capabilities] pub enum Capability {}
        #[providers] pub enum Provider {}
    }
}

mod with_a_value {
    #[derive(Clone)]
    pub struct Tracker;

    mcp_profiles::vocabulary! {
        #[runtime_allow_list = 16]
        server Tracker;
        #[surfaces] pub enum Surface { Board }
        #[capabilities] pub enum Capability {}
        #[providers] pub enum Provider {}
    }
}

mod missing_max {
    #[derive(Clone)]
    pub struct Tracker;

    mcp_profiles::vocabulary! {
        #[runtime_allow_list()]
        server Tracker;
        #[surfaces] pub enum Surface { Board }
        #[capabilities] pub enum Capability {}
        #[providers] pub enum Provider {}
    }
}

mod zero {
    #[derive(Clone)]
    pub struct Tracker;

    mcp_profiles::vocabulary! {
        #[runtime_allow_list(max = 0)]
        server Tracker;
        #[surfaces] pub enum Surface { Board }
        #[capabilities] pub enum Capability {}
        #[providers] pub enum Provider {}
    }
}

mod not_a_whole_number {
    #[derive(Clone)]
    pub struct Tracker;

    mcp_profiles::vocabulary! {
        #[runtime_allow_list(max = "16")]
        server Tracker;
        #[surfaces] pub enum Surface { Board }
        #[capabilities] pub enum Capability {}
        #[providers] pub enum Provider {}
    }
}

mod negative {
    #[derive(Clone)]
    pub struct Tracker;

    mcp_profiles::vocabulary! {
        #[runtime_allow_list(max = -1)]
        server Tracker;
        #[surfaces] pub enum Surface { Board }
        #[capabilities] pub enum Capability {}
        #[providers] pub enum Provider {}
    }
}

mod unknown_key {
    #[derive(Clone)]
    pub struct Tracker;

    mcp_profiles::vocabulary! {
        #[runtime_allow_list(maximum = 16)]
        server Tracker;
        #[surfaces] pub enum Surface { Board }
        #[capabilities] pub enum Capability {}
        #[providers] pub enum Provider {}
    }
}

mod max_twice {
    #[derive(Clone)]
    pub struct Tracker;

    mcp_profiles::vocabulary! {
        #[runtime_allow_list(max = 16, max = 8)]
        server Tracker;
        #[surfaces] pub enum Surface { Board }
        #[capabilities] pub enum Capability {}
        #[providers] pub enum Provider {}
    }
}

mod given_twice {
    #[derive(Clone)]
    pub struct Tracker;

    mcp_profiles::vocabulary! {
        #[runtime_allow_list(max = 16)]
        #[runtime_allow_list(max = 8)]
        server Tracker;
        #[surfaces] pub enum Surface { Board }
        #[capabilities] pub enum Capability {}
        #[providers] pub enum Provider {}
    }
}

mod misspelt {
    #[derive(Clone)]
    pub struct Tracker;

    mcp_profiles::vocabulary! {
        #[runtime_allowlist(max = 16)]
        server Tracker;
        #[surfaces] pub enum Surface { Board }
        #[capabilities] pub enum Capability {}
        #[providers] pub enum Provider {}
    }
}

fn main() {}
