//! What one session sees of an installed catalog.
//!
//! A session with no runtime tool enabled serves the compiled snapshot as
//! before, so catalogs cost such sessions nothing and break none of the
//! snapshot sharing. Otherwise its list is a `View`: the compiled tools and
//! the enabled runtime tools merged by name. A runtime tool is enabled when
//! its rule matches the context and neither the context's policy (through
//! the tool's own annotations and name), its runtime allow list nor the
//! operator's kill list removes it. Views are cached in the catalog by
//! (compiled snapshot, enabled runtime tools), so every controller and
//! session with the same visible set shares one list.

use std::sync::Arc;

use mcp_profiles_rules::BitSet;
use rmcp::model::Tool;

use super::{Catalog, Entry, RuntimeDiff};
use crate::policy::Hints;
use crate::snapshot::ToolSnapshot;
use crate::sorted::{self, Side};
use crate::{DenyList, ProfileContext, Restriction, Restrictions, Vocabulary};

/// A view's cache key: the compiled snapshot's address (snapshots live as
/// long as the process, so it is never reused) and the bit set of enabled
/// entries.
pub(super) type Key = (usize, BitSet);

/// The merged tools of one compiled snapshot and one set of enabled
/// runtime tools.
pub(crate) struct View {
    /// Indices of the enabled entries, ascending, hence sorted by name.
    enabled: Box<[usize]>,
    /// `tools/list`: compiled and runtime tools, sorted by name.
    tools: Vec<Tool>,
}

/// The installed catalog of a cell and what its current context sees of it.
pub(crate) struct Runtime<S: Vocabulary> {
    catalog: Option<Catalog<S>>,
    /// `None` when no runtime tool is enabled.
    view: Option<Arc<View>>,
    /// Entries only the kill list hides, ascending (so sorted by name).
    withheld: Box<[usize]>,
}

impl<S: Vocabulary> Clone for Runtime<S> {
    fn clone(&self) -> Self {
        Runtime {
            catalog: self.catalog.clone(),
            view: self.view.clone(),
            withheld: self.withheld.clone(),
        }
    }
}

impl<S: Vocabulary> Runtime<S> {
    /// Whether the list is merged with runtime tools, rather than the
    /// compiled snapshot's own.
    pub fn merged(&self) -> bool {
        self.view.is_some()
    }

    /// No catalog installed.
    pub fn empty() -> Self {
        Runtime {
            catalog: None,
            view: None,
            withheld: Box::default(),
        }
    }

    /// What `context`, served `compiled` under the operator's `killed`
    /// list, sees of `catalog`.
    pub fn new(
        catalog: Option<Catalog<S>>,
        context: &ProfileContext<S>,
        killed: DenyList<S>,
        compiled: &'static ToolSnapshot<S>,
    ) -> Self {
        let Some(judged) = catalog.as_ref().map(|c| c.judge(context, killed)) else {
            return Runtime::empty();
        };
        let withheld = judged
            .iter()
            .enumerate()
            .filter(|(_, verdict)| verdict.is_some_and(Restrictions::only_operator))
            .map(|(index, _)| index)
            .collect();
        let view = catalog.as_ref().and_then(|catalog| {
            let enabled = BitSet::from_fn(judged.len(), |i| judged[i] == Some(Restrictions::NONE));
            catalog.view(enabled, compiled)
        });
        Runtime {
            catalog,
            view,
            withheld,
        }
    }

    /// Whether only the kill list hides the runtime tool called `name`.
    pub fn withheld(&self, name: &str) -> bool {
        let Some(catalog) = &self.catalog else {
            return false;
        };
        self.withheld
            .binary_search_by(|&index| catalog.entry(index).tool.name().cmp(name))
            .is_ok()
    }

    /// The installed catalog.
    pub fn catalog(&self) -> Option<&Catalog<S>> {
        self.catalog.as_ref()
    }

    /// `tools/list`: the view's merged list, or else the compiled one.
    pub fn list<'a>(&'a self, compiled: &'a ToolSnapshot<S>) -> &'a [Tool] {
        match &self.view {
            Some(view) => &view.tools,
            None => &compiled.tools,
        }
    }

    /// The visible runtime tool called `name`.
    pub fn entry(&self, name: &str) -> Option<&Entry<S>> {
        let (catalog, view) = (self.catalog.as_ref()?, self.view.as_ref()?);
        view.enabled
            .binary_search_by(|&index| catalog.entry(index).tool.name().cmp(name))
            .ok()
            .map(|found| catalog.entry(view.enabled[found]))
    }

    /// The visible runtime tools, sorted by name.
    fn visible(&self) -> impl Iterator<Item = &Tool> {
        let enabled = self.view.as_ref().map(|view| &*view.enabled);
        enabled.into_iter().flatten().filter_map(|&index| {
            let catalog = self.catalog.as_ref()?;
            Some(catalog.entry(index).tool.definition())
        })
    }

    /// How the visible runtime tools change from `self` to `new`.
    pub fn diff(&self, new: &Runtime<S>) -> RuntimeDiff {
        if let (Some(a), Some(b)) = (&self.catalog, &new.catalog)
            && Arc::ptr_eq(&a.inner, &b.inner)
        {
            return self.diff_within(a, new);
        }
        let mut diff = RuntimeDiff::default();
        let by_name = |a: &&Tool, b: &&Tool| a.name.cmp(&b.name);
        for side in sorted::merge(self.visible(), new.visible(), by_name) {
            match side {
                Side::Old(tool) => diff.removed.push(tool.name.to_string()),
                Side::New(tool) => diff.added.push(tool.name.to_string()),
                Side::Both(a, b) if a != b => diff.changed.push(a.name.to_string()),
                Side::Both(..) => {}
            }
        }
        diff
    }
}

impl<S: Vocabulary> Runtime<S> {
    /// The diff between two views of one catalog (a replacement): the same
    /// definitions, so comparing entry indices is enough.
    fn diff_within(&self, catalog: &Catalog<S>, new: &Runtime<S>) -> RuntimeDiff {
        let (old, new) = (self.view.clone(), new.view.clone());
        if let (Some(a), Some(b)) = (&old, &new)
            && Arc::ptr_eq(a, b)
        {
            return RuntimeDiff::default();
        }
        let empty: &[usize] = &[];
        let old = old.as_ref().map_or(empty, |view| &view.enabled);
        let new = new.as_ref().map_or(empty, |view| &view.enabled);
        let name = |index: &usize| catalog.entry(*index).tool.name().to_owned();
        // Ascending indices are sorted names.
        let (added, removed) = sorted::added_removed(old, new, Ord::cmp);
        RuntimeDiff {
            added: added.into_iter().map(name).collect(),
            removed: removed.into_iter().map(name).collect(),
            changed: Vec::new(),
        }
    }
}

impl<S: Vocabulary> Catalog<S> {
    /// Each entry as `context` under `killed` sees it: `None` when its rule
    /// leaves it off, else what restricts it (nothing: it is visible).
    fn judge(&self, context: &ProfileContext<S>, killed: DenyList<S>) -> Vec<Option<Restrictions>> {
        let (bits, policy) = (context.bits(), context.policy());
        let allowed = context
            .runtime_allow_list()
            .required(S::RUNTIME_ALLOW_REQUIRED_ON.contains(&context.surface()));
        self.inner
            .entries
            .iter()
            .map(|entry| {
                let definition = entry.tool.definition();
                let hints = Hints::of(definition.annotations.as_ref());
                let verdict = || {
                    // A runtime tool belongs to no group a list could name;
                    // only the context's runtime allow list governs it.
                    let found = policy.judge(killed, &definition.name, None, hints);
                    if allowed.keeps(&definition.name) {
                        found
                    } else {
                        found.with(Restriction::NotAllowed)
                    }
                };
                entry.rule.matches(&bits).then(verdict)
            })
            .collect()
    }

    /// The shared view of the `enabled` entries served with `compiled`;
    /// `None` when no entry is enabled.
    fn view(&self, enabled: BitSet, compiled: &'static ToolSnapshot<S>) -> Option<Arc<View>> {
        let entries = &self.inner.entries;
        if enabled.is_empty() {
            return None;
        }
        let key: Key = (std::ptr::from_ref(compiled) as usize, enabled);
        let mut views = self.inner.views.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(view) = views.get(&key) {
            return Some(Arc::clone(view));
        }
        let indices: Box<[usize]> = key.1.iter().collect();
        let view = Arc::new(View {
            tools: merge(
                &compiled.tools,
                indices.iter().map(|&i| entries[i].tool.definition()),
            ),
            enabled: indices,
        });
        views.insert(key, Arc::clone(&view));
        Some(view)
    }
}

/// Merges two lists sorted by name; verification keeps names apart.
fn merge<'a>(compiled: &'a [Tool], runtime: impl Iterator<Item = &'a Tool>) -> Vec<Tool> {
    let mut merged = Vec::with_capacity(compiled.len() + runtime.size_hint().0);
    for side in sorted::merge(compiled, runtime, |a, b| a.name.cmp(&b.name)) {
        match side {
            Side::Old(tool) | Side::New(tool) => merged.push(tool.clone()),
            Side::Both(compiled, runtime) => merged.extend([compiled.clone(), runtime.clone()]),
        }
    }
    merged
}
