//! Additive capabilities, proven: over every valid context, adding a
//! capability or a provider never removes a tool.
//!
//! A rule only ever requires terms (no rule says "not"), so for compiled
//! groups this holds by construction; the proof is still run for a
//! vocabulary that declares it (`#[additive]`), so the claim is checked
//! rather than trusted, and stays checked if the rule language grows.
//! What it does not cover, by design: a context made invalid by the
//! addition (an exclusive pair) is not a widening; policies, allow lists,
//! the kill switch, tool search and progressive disclosure are not
//! capabilities and may remove or hide tools.

use super::Registry;
use crate::{Errors, ProfileContext, RegistryError, RegistryErrors, Term, Vocabulary};

impl<S: Vocabulary> Registry<S> {
    /// Proves, over every valid context ([`ProfileContext::all`]), that
    /// adding a capability or a provider never removes a tool; else names
    /// the first counterexample per context and addition. Exponential in
    /// the vocabulary's capabilities and providers: for vocabularies of
    /// everyday size, run by the test `vocabulary!` adds when the
    /// vocabulary declares `#[additive]`.
    ///
    /// ```
    /// # mod server {
    /// #     #[derive(Clone)] pub struct Desk;
    /// #     impl rmcp::ServerHandler for Desk {}
    /// # }
    /// # use server::Desk;
    /// # mcp_profiles::vocabulary! {
    /// #     #[additive]
    /// #     server Desk;
    /// #     #[surfaces] pub enum Surface { Triage }
    /// #     #[capabilities] pub enum Capability { Refund }
    /// #     #[providers] pub enum Provider { Jira }
    /// # }
    /// use mcp_profiles::Vocabulary;
    ///
    /// assert!(Desk::ADDITIVE);
    /// Desk::registry().verify_additive().expect("rules only require terms");
    /// ```
    pub fn verify_additive(&self) -> Result<(), RegistryErrors> {
        let mut errors = Vec::new();
        for context in ProfileContext::<S>::all() {
            let served = self.assemble(&context);
            let capabilities = S::Capability::ALL
                .iter()
                .filter(|added| !context.has_capability(**added))
                .filter_map(|added| {
                    let wider = context.with_capability(*added).ok()?;
                    Some((format!("capability {}", added.wire_name()), wider))
                });
            let providers = S::Provider::ALL
                .iter()
                .filter(|added| !context.has_provider(**added))
                .map(|added| {
                    let wider = context.with_provider(*added);
                    (format!("provider {}", added.wire_name()), wider)
                });
            for (added, wider) in capabilities.chain(providers) {
                let widened = self.assemble(&wider);
                if let Some(tool) = served.tool_names().iter().find(|t| !widened.contains(t)) {
                    errors.push(RegistryError::NotAdditive {
                        context: context.to_json(),
                        added,
                        tool: (*tool).to_owned(),
                    });
                }
            }
        }
        Errors::check(errors)
    }
}
