//! Name presentation: the names a controller's sessions list for its tools,
//! for clients that decorate every tool name themselves (with the MCP
//! server's name, say), and the way back from them on `tools/call`.
//!
//! Only `tools/list` and `tools/call` see presented names. Profiles,
//! diffs, policies, deny lists, the kill switch and `explain` keep
//! speaking canonical names. The check that keeps presented names
//! unambiguous is `verify` here; the cache of presented lists is
//! `lists.rs`; the error is `error.rs`.

mod lists;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

use rmcp::model::Tool;

use crate::{Registry, Vocabulary};

use crate::PresentationError;
use lists::PresentedLists;

/// How a controller's sessions see tool names: a transform from each
/// canonical name (the one `#[tool]` or a runtime tool declares) to the
/// name `tools/list` shows, reversed on `tools/call`.
///
/// Attach one with
/// [`ProfileController::set_presentation`](crate::ProfileController::set_presentation),
/// which first proves it collision-free over every tool the controller
/// could serve. Off by default: a controller without one lists canonical
/// names.
///
/// A presentation is a cheap handle (clones share it, and its cache of
/// presented lists): a backend attaching one to many controllers builds it
/// once.
///
/// ```
/// use mcp_profiles::Presentation;
///
/// let presentation = Presentation::strip_suffix("_desk")?;
/// assert_eq!(presentation.present("list_tickets_desk"), "list_tickets");
/// assert_eq!(presentation.present("about"), "about"); // no suffix: unchanged
/// assert_eq!(presentation.present("_desk"), "_desk"); // nothing would be left
///
/// // A suffix that could never end a tool name is refused, naming it.
/// let err = Presentation::strip_suffix("/desk").unwrap_err();
/// assert!(err.to_string().contains("`/desk`"), "{err}");
/// # Ok::<(), mcp_profiles::PresentationError>(())
/// ```
#[derive(Clone)]
pub struct Presentation {
    inner: Arc<Inner>,
}

struct Inner {
    transform: Transform,
    /// Presented lists already built, by compiled snapshot.
    lists: PresentedLists,
}

/// The transforms on offer.
#[derive(Debug, PartialEq, Eq)]
enum Transform {
    /// Drop this suffix from every name ending in it (and longer than it).
    StripSuffix(Box<str>),
}

impl fmt::Debug for Presentation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.inner.transform {
            Transform::StripSuffix(suffix) => f
                .debug_tuple("Presentation::strip_suffix")
                .field(suffix)
                .finish(),
        }
    }
}

impl PartialEq for Presentation {
    fn eq(&self, other: &Self) -> bool {
        self.inner.transform == other.inner.transform
    }
}

impl Eq for Presentation {}

/// The longest tool name MCP allows.
const MAX_NAME: usize = 128;

impl Presentation {
    /// Lists every tool whose name ends in `suffix` without it
    /// (`list_tasks_kandev` as `list_tasks` for `"_kandev"`); other names,
    /// and a name that is the suffix alone, are listed unchanged. A call
    /// to the presented name reaches the canonical tool.
    ///
    /// The suffix must be 1 to 128 of the characters MCP allows in a tool
    /// name (A-Z, a-z, 0-9, `_`, `-` and `.`); the error names it.
    pub fn strip_suffix(suffix: impl Into<String>) -> Result<Self, PresentationError> {
        let suffix = suffix.into();
        let valid = !suffix.is_empty()
            && suffix.chars().count() <= MAX_NAME
            && suffix
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !valid {
            return Err(PresentationError::InvalidSuffix { suffix });
        }
        Ok(Self::new(Transform::StripSuffix(suffix.into_boxed_str())))
    }

    fn new(transform: Transform) -> Self {
        Presentation {
            inner: Arc::new(Inner {
                transform,
                lists: PresentedLists::default(),
            }),
        }
    }

    /// The name sessions see for the tool called `canonical`.
    pub fn present<'a>(&self, canonical: &'a str) -> Cow<'a, str> {
        match &self.inner.transform {
            Transform::StripSuffix(suffix) => Cow::Borrowed(
                canonical
                    .strip_suffix(&**suffix)
                    .filter(|stem| !stem.is_empty())
                    .unwrap_or(canonical),
            ),
        }
    }

    /// The one canonical name that could present as `presented` and differ
    /// from it, if any; whether a tool of that name exists is the caller's
    /// to check.
    pub(crate) fn unpresent(&self, presented: &str) -> Option<String> {
        match &self.inner.transform {
            Transform::StripSuffix(_) if presented.is_empty() => None,
            Transform::StripSuffix(suffix) => Some(format!("{presented}{suffix}")),
        }
    }

    /// Proves this presentation collision-free over every compiled tool of
    /// `registry`: no two tools present as one name, and no tool presents
    /// as the canonical name of another. The error names both tools.
    ///
    /// The check is global, not per profile: a presented name then means
    /// the same tool in every profile a session may be moved to, and a
    /// client that cached a name cannot reach another tool by it after a
    /// replacement.
    pub fn verify<S: Vocabulary>(&self, registry: &Registry<S>) -> Result<(), PresentationError> {
        self.verify_names(compiled_names(registry))
    }

    /// [`verify`](Self::verify) over the compiled tools of `S`'s registry
    /// and the tools of `catalog` together: whether a controller under this
    /// presentation would install `catalog`, or refuse it
    /// ([`InstallOutcome::Refused`](crate::InstallOutcome::Refused)) with
    /// this error, naming both tools. For a store that must refuse a
    /// catalog before it keeps it, when the controllers that will serve it
    /// are elsewhere.
    ///
    /// ```
    /// # #[derive(Clone)] pub struct Desk;
    /// # mcp_profiles::vocabulary! {
    /// #     server Desk;
    /// #     #[surfaces] pub enum Surface { Ticket }
    /// #     #[capabilities] pub enum Capability {}
    /// #     #[providers] pub enum Provider {}
    /// # }
    /// use mcp_profiles::{Catalog, Presentation, Rule, RuntimeTool};
    /// use mcp_profiles::rmcp::model::CallToolResult;
    ///
    /// let tool = |name: &str| {
    ///     let schema = serde_json::json!({"type": "object"}).as_object().cloned().unwrap_or_default();
    ///     RuntimeTool::<Desk>::new(name, "A plugin", schema, Rule::always(), |_, _| async {
    ///         Ok(CallToolResult::success(vec![]))
    ///     })
    /// };
    /// let presentation = Presentation::strip_suffix("_desk")?;
    /// let fine = Catalog::new("plugins", 1, [tool("export_desk")]).expect("valid");
    /// assert!(presentation.verify_catalog(&fine).is_ok());
    /// // `export_desk` would be listed as `export`, another tool's name.
    /// let rival = Catalog::new("plugins", 2, [tool("export"), tool("export_desk")]).expect("valid");
    /// let err = presentation.verify_catalog(&rival).unwrap_err();
    /// assert!(err.to_string().contains("`export_desk`") && err.to_string().contains("`export`"));
    /// # Ok::<(), mcp_profiles::PresentationError>(())
    /// ```
    #[cfg(feature = "runtime-tools")]
    pub fn verify_catalog<S: Vocabulary>(
        &self,
        catalog: &crate::Catalog<S>,
    ) -> Result<(), PresentationError> {
        self.verify_names(compiled_names(S::registry()).chain(catalog.tool_names()))
    }

    /// The same check over any set of canonical names (repeats are one
    /// tool).
    pub(crate) fn verify_names<'a>(
        &self,
        names: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), PresentationError> {
        let names: BTreeSet<&str> = names.into_iter().collect();
        let mut presented: BTreeMap<Cow<'_, str>, &str> = BTreeMap::new();
        for &name in &names {
            let shown = self.present(name);
            if shown != name && names.contains(&*shown) {
                return Err(PresentationError::ShadowsTool {
                    tool: name.to_owned(),
                    presented: shown.into_owned(),
                });
            }
            if let Some(first) = presented.insert(shown.clone(), name) {
                return Err(PresentationError::SharedName {
                    first: first.to_owned(),
                    second: name.to_owned(),
                    presented: shown.into_owned(),
                });
            }
        }
        Ok(())
    }

    /// `tools`, as sessions list them under this presentation, sorted by
    /// presented name. `snapshot` is the address of the compiled snapshot
    /// the list is exactly (snapshots live as long as the process), which
    /// caches it; `None` (a list merged with runtime tools) builds it anew.
    pub(crate) fn list(&self, tools: &[Tool], snapshot: Option<usize>) -> Arc<[Tool]> {
        let build = || self.build_list(tools);
        match snapshot {
            Some(address) => self.inner.lists.get_or_build(address, build),
            None => build(),
        }
    }

    fn build_list(&self, tools: &[Tool]) -> Arc<[Tool]> {
        let mut presented: Vec<Tool> = tools
            .iter()
            .map(|tool| {
                let mut tool = tool.clone();
                // A compiled tool's name is `&'static`, and so is the part
                // of it a transform shows: borrowing it keeps every clone of
                // the list (one per `tools/list`) free of name copies.
                tool.name = match tool.name {
                    Cow::Borrowed(name) => self.present(name),
                    Cow::Owned(name) => Cow::Owned(self.present(&name).into_owned()),
                };
                tool
            })
            .collect();
        presented.sort_by(|a, b| a.name.cmp(&b.name));
        presented.into()
    }
}

/// Every compiled tool name of `registry` (a name two groups share once
/// per group).
pub(crate) fn compiled_names<'a, S: Vocabulary>(
    registry: &'a Registry<S>,
) -> impl Iterator<Item = &'a str> + 'a {
    registry
        .groups()
        .iter()
        .flat_map(|group| group.tools().iter().map(|name| &**name))
}

#[cfg(test)]
mod tests {
    use super::{Presentation, PresentationError};

    #[test]
    fn strips_only_a_proper_suffix() {
        let p = Presentation::strip_suffix("_k").unwrap();
        assert_eq!(p.present("list_k"), "list");
        assert_eq!(p.present("_k"), "_k");
        assert_eq!(p.present("list"), "list");
        assert_eq!(p.unpresent("list").as_deref(), Some("list_k"));
        assert_eq!(p.unpresent(""), None);
        assert!(Presentation::strip_suffix("").is_err());
    }

    #[test]
    fn collisions_name_both_tools() {
        let p = Presentation::strip_suffix("_k").unwrap();
        assert_eq!(p.verify_names(["a_k", "b", "a_k"]), Ok(()));
        assert_eq!(
            p.verify_names(["a", "a_k"]),
            Err(PresentationError::ShadowsTool {
                tool: "a_k".into(),
                presented: "a".into()
            })
        );
        let err = p.verify_names(["b", "a_k", "a"]).unwrap_err();
        assert!(err.to_string().contains("`a_k`"), "{err}");
        assert!(err.to_string().contains("`a`"), "{err}");
    }
}
