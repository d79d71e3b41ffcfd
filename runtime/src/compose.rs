//! Groups that share tools: `#[tool_group(include(...), exclude = [...])]`.
//!
//! A proc macro sees one impl block, never another group, so each named
//! group also defines a hidden [`GroupShape`] constant on the server type
//! (its tool names, the method defining each, its routes). A group that
//! includes others reads those constants, and the `const fn`s here compute
//! its tool list at compile time: a name no included group exposes, or two
//! different definitions of one name, fails const evaluation with a message
//! naming it, on the literal the user wrote.
//!
//! A tool is identified by the method that defines it (method names are
//! unique per type), so a tool included from another group is the same
//! definition, and the registry lets groups that can be on together share
//! it.

use rmcp::handler::server::router::tool::ToolRoute;

/// The most tools one composed group may hold (a bound for const
/// evaluation, which cannot allocate).
const MAX: usize = 1024;

/// What another group needs to know of a named group.
pub struct GroupShape<S: 'static> {
    /// The group's name.
    pub name: &'static str,
    /// Its tool names, in order.
    pub tools: &'static [&'static str],
    /// The method defining each tool, indexed like `tools`.
    pub definitions: &'static [&'static str],
    /// Builds its routes, in the order of `tools`.
    pub routes: fn() -> Vec<ToolRoute<S>>,
}

impl<S> Clone for GroupShape<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for GroupShape<S> {}

impl<S> std::fmt::Debug for GroupShape<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupShape")
            .field("name", &self.name)
            .field("tools", &self.tools)
            .finish_non_exhaustive()
    }
}

/// One `include(...)` entry: a group, whole or some of its tools.
pub struct Part<S: 'static> {
    /// The included group.
    pub shape: GroupShape<S>,
    /// The tools taken, in the order written; `None` for all of them.
    pub only: Option<&'static [&'static str]>,
}

impl<S> std::fmt::Debug for Part<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Part")
            .field("group", &self.shape.name)
            .field("only", &self.only)
            .finish()
    }
}

/// A composed group's tools, computed at compile time.
pub struct Composed {
    names: [&'static str; MAX],
    definitions: [&'static str; MAX],
    groups: [&'static str; MAX],
    len: usize,
    /// The first name with two different definitions, as an error message.
    conflict: Option<Message>,
}

impl std::fmt::Debug for Composed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Composed")
            .field("names", &&self.names[..self.len])
            .finish_non_exhaustive()
    }
}

impl Composed {
    /// How many tools the group holds.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether the group holds no tool.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The tool names, in order: the group's own, then each part's.
    pub const fn names<const N: usize>(&self) -> [&'static str; N] {
        let mut out = [""; N];
        let mut i = 0;
        while i < N {
            out[i] = self.names[i];
            i += 1;
        }
        out
    }

    /// The method defining each tool, indexed like [`names`](Self::names).
    pub const fn definitions<const N: usize>(&self) -> [&'static str; N] {
        let mut out = [""; N];
        let mut i = 0;
        while i < N {
            out[i] = self.definitions[i];
            i += 1;
        }
        out
    }

    /// What is wrong if two different definitions share a name: the
    /// registration macro panics with it in const evaluation, a compile
    /// error on the user's `include`.
    pub const fn conflict(&self) -> Option<&str> {
        match &self.conflict {
            Some(message) => Some(message.as_str()),
            None => None,
        }
    }

    const fn position(&self, name: &str) -> Option<usize> {
        let mut i = 0;
        while i < self.len {
            if eq(self.names[i], name) {
                return Some(i);
            }
            i += 1;
        }
        None
    }

    const fn push(
        mut self,
        name: &'static str,
        definition: &'static str,
        group: &'static str,
    ) -> Self {
        match self.position(name) {
            Some(at) => {
                if !eq(self.definitions[at], definition) && self.conflict.is_none() {
                    let message = Message::new()
                        .push("two different definitions of tool `")
                        .push(name)
                        .push("` would be on together: `")
                        .push(self.groups[at])
                        .push("`'s (method `")
                        .push(self.definitions[at])
                        .push("`) and `")
                        .push(group)
                        .push("`'s (method `")
                        .push(definition)
                        .push(
                            "`); include the tool from one group only (list the others' \
                             tools), or let one group include the other's definition",
                        );
                    self.conflict = Some(message);
                }
            }
            None => {
                if self.len == MAX {
                    panic!("a composed tool group holds at most 1024 tools");
                }
                self.names[self.len] = name;
                self.definitions[self.len] = definition;
                self.groups[self.len] = group;
                self.len += 1;
            }
        }
        self
    }
}

/// The tools of a group that defines `own` (with methods `own_definitions`)
/// and includes `parts`, less `exclude`: its own first, then each part's in
/// the order written, a name met again taken once.
pub const fn compose<S>(
    group: &'static str,
    own: &'static [&'static str],
    own_definitions: &'static [&'static str],
    parts: &[Part<S>],
    exclude: &[&str],
) -> Composed {
    let mut composed = Composed {
        names: [""; MAX],
        definitions: [""; MAX],
        groups: [""; MAX],
        len: 0,
        conflict: None,
    };
    let mut i = 0;
    while i < own.len() {
        composed = composed.push(own[i], own_definitions[i], group);
        i += 1;
    }
    let mut p = 0;
    while p < parts.len() {
        let shape = &parts[p].shape;
        let mut t = 0;
        while t < shape.tools.len() {
            let name = shape.tools[t];
            let taken = match parts[p].only {
                Some(only) => contains(only, name),
                None => true,
            };
            if taken && !contains(exclude, name) {
                composed = composed.push(name, shape.definitions[t], shape.name);
            }
            t += 1;
        }
        p += 1;
    }
    composed
}

/// Whether some part brings `name` (so excluding it means something): a
/// whole group that has it, or a list that names it.
pub const fn exposed_by<S>(parts: &[Part<S>], name: &str) -> bool {
    let mut p = 0;
    while p < parts.len() {
        let brings = match parts[p].only {
            Some(only) => contains(only, name),
            None => contains(parts[p].shape.tools, name),
        };
        if brings {
            return true;
        }
        p += 1;
    }
    false
}

/// Whether the group `shape` has a tool called `name`.
pub const fn has<S>(shape: &GroupShape<S>, name: &str) -> bool {
    contains(shape.tools, name)
}

/// The routes of a composed group, in the order of `tools`: its own, then
/// each named tool from the first part that has it (every part that has it
/// has the same definition: [`compose`] refuses two).
pub fn routes<S: Send + Sync + 'static>(
    own: fn() -> Vec<ToolRoute<S>>,
    parts: &[Part<S>],
    tools: &[&'static str],
) -> Vec<ToolRoute<S>> {
    let mut found: Vec<Option<ToolRoute<S>>> = tools.iter().map(|_| None).collect();
    let mut place = |route: ToolRoute<S>| {
        if let Some(at) = tools.iter().position(|tool| *tool == route.name()) {
            found[at].get_or_insert(route);
        }
    };
    own().into_iter().for_each(&mut place);
    for part in parts {
        (part.shape.routes)().into_iter().for_each(&mut place);
    }
    found
        .into_iter()
        .zip(tools)
        .map(|(route, tool)| {
            route.unwrap_or_else(|| panic!("no included group builds a route for `{tool}`"))
        })
        .collect()
}

const fn contains(names: &[&str], name: &str) -> bool {
    let mut i = 0;
    while i < names.len() {
        if eq(names[i], name) {
            return true;
        }
        i += 1;
    }
    false
}

const fn eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// An error message built in const evaluation, which has no `format!`.
#[derive(Debug)]
pub struct Message {
    bytes: [u8; 512],
    len: usize,
}

impl Message {
    const fn new() -> Self {
        Message {
            bytes: [0; 512],
            len: 0,
        }
    }

    const fn push(mut self, text: &str) -> Self {
        let text = text.as_bytes();
        let mut i = 0;
        // Cut at a char boundary's worth of room: the pieces are ASCII
        // names and our own words, so a cut only shortens the message.
        while i < text.len() && self.len < self.bytes.len() {
            self.bytes[self.len] = text[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    const fn as_str(&self) -> &str {
        match core::str::from_utf8(self.bytes.split_at(self.len).0) {
            Ok(text) => text,
            Err(_) => "two different definitions of one tool name would be on together",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Desk;

    fn no_routes() -> Vec<ToolRoute<Desk>> {
        Vec::new()
    }

    const TICKETS: GroupShape<Desk> = GroupShape {
        name: "tickets",
        tools: &["list", "close", "reopen"],
        definitions: &["list", "close", "reopen"],
        routes: no_routes,
    };
    const CHAT: GroupShape<Desk> = GroupShape {
        name: "chat",
        tools: &["list", "say"],
        definitions: &["list", "say"],
        routes: no_routes,
    };
    const OTHER_LIST: GroupShape<Desk> = GroupShape {
        name: "archive",
        tools: &["list"],
        definitions: &["list_archived"],
        routes: no_routes,
    };

    #[test]
    fn own_tools_come_first_then_parts_in_order_each_name_once() {
        let parts = [
            Part {
                shape: TICKETS,
                only: None,
            },
            Part {
                shape: CHAT,
                only: None,
            },
        ];
        let composed = compose("desk", &["triage"], &["triage"], &parts, &["close"]);
        assert_eq!(composed.names::<4>(), ["triage", "list", "reopen", "say"]);
        assert_eq!(composed.len(), 4);
        assert!(composed.conflict.is_none());
    }

    #[test]
    fn a_listed_part_gives_only_its_listed_tools() {
        let parts = [Part {
            shape: TICKETS,
            only: Some(&["reopen", "list"]),
        }];
        let composed = compose("desk", &[], &[], &parts, &[]);
        assert_eq!(composed.names::<2>(), ["list", "reopen"]);
    }

    #[test]
    fn two_definitions_of_one_name_are_named_with_both_groups() {
        let parts = [
            Part {
                shape: TICKETS,
                only: None,
            },
            Part {
                shape: OTHER_LIST,
                only: None,
            },
        ];
        let composed = compose("desk", &[], &[], &parts, &[]);
        assert_eq!(
            composed.conflict(),
            Some(
                "two different definitions of tool `list` would be on together: `tickets`'s \
                 (method `list`) and `archive`'s (method `list_archived`); include the tool \
                 from one group only (list the others' tools), or let one group include the \
                 other's definition"
            )
        );
    }

    #[test]
    fn exposure_and_membership() {
        let parts = [Part {
            shape: CHAT,
            only: None,
        }];
        assert!(exposed_by(&parts, "say"));
        assert!(!exposed_by(&parts, "close"));
        // A listed part brings only what it lists.
        let listed = [Part {
            shape: TICKETS,
            only: Some(&["list"]),
        }];
        assert!(exposed_by(&listed, "list"));
        assert!(!exposed_by(&listed, "close"));
        assert!(has(&TICKETS, "close"));
        assert!(!has(&TICKETS, "say"));
    }
}
