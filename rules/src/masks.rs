//! A rule and a context, as bits over term indices.

/// A rule as bit masks over term indices; emitted by `#[tool_group]`.
///
/// A context satisfies it when its surface is one of `surfaces` (or
/// `surfaces` is empty), it holds every capability in `capabilities`, it
/// holds at least one capability in `any_capabilities` (or that is empty),
/// and at least one provider in `providers` is attached (or that is empty).
/// All zero is the always-on rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RuleMasks {
    /// Allowed surfaces; `0` allows any surface.
    pub surfaces: u64,
    /// Capabilities that must all be held.
    pub capabilities: u64,
    /// Capabilities of which at least one must be held; `0` is no condition.
    pub any_capabilities: u64,
    /// Providers of which at least one must be attached; `0` is no condition.
    pub providers: u64,
}

/// A context reduced to bits: what rules are evaluated against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ContextBits {
    /// The index of the context's one surface.
    pub surface: usize,
    /// The capabilities held.
    pub capabilities: u64,
    /// The providers attached.
    pub providers: u64,
}

impl RuleMasks {
    /// Whether `context` satisfies the rule.
    pub fn matches(&self, context: &ContextBits) -> bool {
        (self.surfaces == 0 || self.surfaces & (1 << context.surface) != 0)
            && context.capabilities & self.capabilities == self.capabilities
            && (self.any_capabilities == 0 || context.capabilities & self.any_capabilities != 0)
            && (self.providers == 0 || context.providers & self.providers != 0)
    }
}
