//! What a profile costs a client's context window: its `tools/list`.
//!
//! What is counted, precisely:
//!
//! - **per tool**: the tool's definition, the rmcp `Tool` its route carries
//!   (name, title, description, input and output schemas, annotations,
//!   icons, `_meta`), serialised compactly with `serde_json` — the very
//!   object the `tools` array of a `tools/list` answer holds. Its length
//!   in bytes and, with the `tokens` feature, its o200k_base token count
//!   ([`TOKEN_ESTIMATOR`](crate::TOKEN_ESTIMATOR),
//!   `o200k_base:mcp-tool-json-v1`, as Kandev labels the same estimate);
//! - **per list**: the bytes of the compact `tools` array (the definitions,
//!   their commas and brackets) and the sum of the tools' tokens;
//! - **never**: the JSON-RPC envelope and cache hints (constant per
//!   answer), prompts and resources (other lists), runtime tools (not known
//!   until a catalog is installed). Names are the canonical ones: a
//!   [`Presentation`](crate::Presentation) lists them renamed, so measure
//!   what it lists with [`ListCost::of`] instead.
//!
//! Each group's tools are measured once per registry, on first use (which
//! builds their schemas, and with `tokens` loads the tokenizer); a profile's
//! cost is then a sum.

#[cfg(feature = "tokens")]
mod budget;
#[cfg(feature = "tokens")]
mod choice;

#[cfg(feature = "tokens")]
pub use budget::MaxCost;

use crate::{Explanation, ListCost, ProfileContext, Registry, Vocabulary};

impl<S: Vocabulary> Registry<S> {
    /// What `context`'s `tools/list` costs: each tool it serves (after its
    /// policy and allow lists), sorted by name as listed, and the totals.
    /// See [`ListCost`] for what is counted.
    ///
    /// ```
    /// # mod server { #[derive(Clone)] pub struct Desk; }
    /// # use server::Desk;
    /// # mcp_profiles::vocabulary! {
    /// #     server Desk;
    /// #     #[surfaces] pub enum Surface { Ticket }
    /// #     #[capabilities] pub enum Capability { Refund }
    /// #     #[providers] pub enum Provider {}
    /// # }
    /// # use rmcp::{ErrorData, model::CallToolResult, tool};
    /// #[mcp_profiles::tool_group(name = "refunds", capability = "refund")]
    /// impl Desk {
    ///     #[tool(description = "Refund the order")]
    ///     async fn issue_refund(&self) -> Result<CallToolResult, ErrorData> {
    ///         Ok(CallToolResult::success(vec![]))
    ///     }
    /// }
    ///
    /// use mcp_profiles::{ProfileContext, Vocabulary};
    ///
    /// let registry = Desk::registry();
    /// let plain = registry.cost(&ProfileContext::new(Surface::Ticket));
    /// let refunding = registry.cost(
    ///     &ProfileContext::new(Surface::Ticket).with_capability(Capability::Refund)?,
    /// );
    /// assert_eq!((plain.tools().len(), plain.bytes()), (0, 2)); // `[]`
    /// assert_eq!(refunding.tools()[0].name(), "issue_refund");
    /// assert_eq!(refunding.bytes(), refunding.tools()[0].bytes() + 2);
    /// # Ok::<(), mcp_profiles::ContextError>(())
    /// ```
    pub fn cost(&self, context: &ProfileContext<S>) -> ListCost {
        self.cost_of(self.assemble(context).origins())
    }

    /// The cost of the tools at `origins` (group index, tool index), in
    /// that order.
    pub(crate) fn cost_of(&self, origins: &[(usize, usize)]) -> ListCost {
        let groups = self.groups();
        ListCost::from_costs(
            origins
                .iter()
                .map(|&(group, tool)| groups[group].costs()[tool].clone())
                .collect(),
        )
    }
}

impl<S: Vocabulary> Explanation<'_, S> {
    /// What the explained context's `tools/list` costs: the tools left
    /// after every restriction the explanation names (a controller's
    /// explanation counts its kill switch too). See [`ListCost`].
    pub fn cost(&self) -> ListCost {
        self.registry().cost_of(self.visible())
    }
}

/// The checks of the test `vocabulary!` adds: the registry's
/// [verification](Registry::linked) and, with the `tokens` feature, its
/// [budgets](Registry::verify_budgets), and for a vocabulary declared
/// `#[additive]` its [additivity](Registry::verify_additive); a failure
/// panics with every error.
#[doc(hidden)]
pub fn verify_linked<S: Vocabulary>(server: &str) {
    let verified = Registry::<S>::linked().and_then(|registry| {
        #[cfg(feature = "tokens")]
        registry.verify_budgets()?;
        if S::ADDITIVE {
            registry.verify_additive()?;
        }
        Ok(())
    });
    if let Err(errors) = verified {
        panic!("the tool groups of `{server}` are invalid:\n{errors}");
    }
}

/// A surface's `#[budget(tokens = N)]`, as `vocabulary!` expands it: the
/// number, with the `tokens` feature that checks it.
#[cfg(feature = "tokens")]
#[doc(hidden)]
#[macro_export]
macro_rules! __mcp_profiles_token_budget {
    ($tokens:literal) => {
        $tokens
    };
}

/// A surface's `#[budget(tokens = N)]`, as `vocabulary!` expands it: an
/// error without the `tokens` feature, since nothing could check it.
#[cfg(not(feature = "tokens"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __mcp_profiles_token_budget {
    ($tokens:literal) => {
        ::core::compile_error!(
            "a token budget needs mcp-profiles' `tokens` feature, which counts o200k_base \
             tokens: add `features = [\"tokens\"]` to the `mcp-profiles` dependency, or remove \
             the `#[budget(...)]` (without the feature no test could check it)"
        )
    };
}
