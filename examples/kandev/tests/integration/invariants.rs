//! The capability boundary, proved rather than sampled: every valid Kandev
//! context (every surface × every capability set allowed by exclusivity ×
//! every provider set), enumerated from the vocabulary with
//! `ProfileContext::all()`, is assembled and checked against each invariant
//! of issue 6. Group contents are read from the registry, never listed here,
//! so a tool added to a group is covered without touching this file.
//!
//! Run with `--nocapture` to see the figures (contexts, permutations).

use std::collections::BTreeSet;

use kandev_mcp::{Capability, Kandev, Provider, Surface};
use mcp_profiles::{Profile, ProfileContext, Registry, Term, Vocabulary};

const ASK_USER: &str = "ask_user_question_kandev";
const ASK_PARENT: &str = "ask_parent_question_kandev";
const SET_TITLE: &str = "set_task_title_kandev";
const STEP_COMPLETE: &str = "step_complete_kandev";
const CREATE_TASK: &str = "create_task_kandev";

/// The tools of the group `name`, which must exist.
fn group_tools(name: &str) -> &'static [&'static str] {
    Kandev::registry()
        .group(name)
        .unwrap_or_else(|| panic!("Kandev has no group `{name}`"))
        .tools()
}

/// The number of valid contexts, from the vocabulary's sizes alone:
/// surfaces × capability sets holding no exclusive pair × provider sets.
/// The capability sets are counted by inclusion–exclusion over
/// `Kandev::EXCLUSIVE` (sets holding a chosen family of pairs are the
/// subsets of the capabilities outside the family's union), which is a
/// different computation from the enumeration under test.
fn expected_context_count() -> usize {
    let capabilities = Capability::ALL.len();
    let pairs = Kandev::EXCLUSIVE;
    let mut capability_sets: i64 = 0;
    for family in 0..(1u64 << pairs.len()) {
        let mut forced = BTreeSet::new();
        for (index, (a, b)) in pairs.iter().enumerate() {
            if family & (1 << index) != 0 {
                forced.insert(*a);
                forced.insert(*b);
            }
        }
        let sets = 1i64 << (capabilities - forced.len());
        if family.count_ones() % 2 == 0 {
            capability_sets += sets;
        } else {
            capability_sets -= sets;
        }
    }
    let capability_sets = usize::try_from(capability_sets).expect("a count is never negative");
    Surface::ALL.len() * capability_sets * (1usize << Provider::ALL.len())
}

/// Every ordering of `items`.
fn permutations<T: Clone>(items: &[T]) -> Vec<Vec<T>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut all = Vec::new();
    for (index, first) in items.iter().enumerate() {
        let mut rest = items.to_vec();
        rest.remove(index);
        for mut tail in permutations(&rest) {
            tail.insert(0, first.clone());
            all.push(tail);
        }
    }
    all
}

/// One invariant broken by one context.
struct Violations(Vec<String>);

impl Violations {
    fn check(&mut self, holds: bool, context: &ProfileContext<Kandev>, what: impl AsRef<str>) {
        if !holds {
            self.0.push(format!("{context}: {}", what.as_ref()));
        }
    }

    fn assert_none(self, checked: usize) {
        assert!(
            self.0.is_empty(),
            "{} violation(s) over {checked} contexts:\n{}",
            self.0.len(),
            self.0.join("\n")
        );
    }
}

fn check_context(
    context: &ProfileContext<Kandev>,
    profile: &Profile<Kandev>,
    violations: &mut Violations,
) {
    let registry = Kandev::registry();
    let surface = context.surface();
    let has = |tool: &str| profile.contains(tool);

    // Never both question tools.
    violations.check(
        !(has(ASK_USER) && has(ASK_PARENT)),
        context,
        "exposes both ask_user_question_kandev and ask_parent_question_kandev",
    );

    // Parent questions and title setting exist on kanban-task only.
    for tool in [ASK_PARENT, SET_TITLE] {
        violations.check(
            !has(tool) || surface == Surface::KanbanTask,
            context,
            format!("exposes {tool} off kanban-task"),
        );
    }

    // Office never creates tasks nor reaches a kanban-task group tool. (No
    // kanban-task tool is also in a group office-task enables, so nothing
    // needs subtracting; should one ever be, this check fails for review.)
    if surface == Surface::OfficeTask {
        for tool in std::iter::once(CREATE_TASK).chain(group_tools("kanban-task").iter().copied()) {
            violations.check(!has(tool), context, format!("office-task exposes {tool}"));
        }
    }

    // External reaches no live-session tool.
    if surface == Surface::External {
        let live = [ASK_USER, STEP_COMPLETE, SET_TITLE].into_iter().chain(
            ["plan", "walkthrough", "review"]
                .into_iter()
                .flat_map(|g| group_tools(g).iter().copied()),
        );
        for tool in live {
            violations.check(
                !has(tool),
                context,
                format!("external exposes live-session tool {tool}"),
            );
        }
    }

    // Provider tools: only with one of their providers attached, only on
    // kanban-task (and, so that the check is not vacuous, present when both
    // hold).
    for (group, providers) in provider_groups() {
        let attached = providers.iter().any(|p| context.has_provider(*p));
        let allowed = attached && surface == Surface::KanbanTask;
        for tool in group_tools(group) {
            violations.check(
                has(tool) == allowed,
                context,
                format!(
                    "{tool} ({group}) is {} with {} of {providers:?} attached",
                    if has(tool) { "exposed" } else { "missing" },
                    if attached { "one" } else { "none" },
                ),
            );
        }
    }

    // No two tools of one name: the enabled groups' tools, concatenated,
    // are duplicate-free, and they are exactly the profile's sorted list
    // (assembly would hide a duplicate by deduplicating, so count here).
    let mut concatenated: Vec<&str> = profile
        .groups()
        .flat_map(|name| {
            registry
                .group(name)
                .expect("an enabled group exists")
                .tools()
        })
        .copied()
        .collect();
    let total = concatenated.len();
    concatenated.sort_unstable();
    concatenated.dedup();
    violations.check(
        concatenated.len() == total,
        context,
        format!(
            "the enabled groups hold {total} tools but only {} distinct names",
            concatenated.len()
        ),
    );
    // A group's allow list keeps, of its universe, only what the context's
    // list (or the default) names; a tool stays while any enabled group
    // that has it keeps it.
    let kept = |tool: &&str| {
        profile.groups().any(|name| {
            let group = registry.group(name).expect("an enabled group exists");
            group.tools().contains(tool)
                && match (group.allow_universe(), context.allowed(name)) {
                    (Some(universe), Some(allowed)) if universe.contains(tool) => {
                        allowed.contains(tool)
                    }
                    _ => true,
                }
        })
    };
    concatenated.retain(kept);
    violations.check(
        concatenated == profile.tool_names(),
        context,
        "the tool list is not the sorted union of the enabled groups' tools \
         less what their allow lists leave out",
    );
    violations.check(
        profile
            .tool_names()
            .windows(2)
            .all(|pair| pair[0] < pair[1]),
        context,
        "the tool list is not strictly sorted",
    );
}

/// The provider groups and the providers of which each needs one.
fn provider_groups() -> [(&'static str, &'static [Provider]); 2] {
    [
        ("task-pr-links", &[Provider::Github, Provider::Gitlab]),
        ("github-pr", &[Provider::Github]),
    ]
}

#[test]
fn every_valid_context_keeps_every_invariant() {
    let registry = Kandev::registry();
    let mut violations = Violations(Vec::new());
    let mut reached: BTreeSet<String> = BTreeSet::new();
    let mut checked = 0;
    let mut distinct = BTreeSet::new();
    for context in ProfileContext::<Kandev>::all() {
        assert!(
            distinct.insert(context.to_json()),
            "{context} enumerated twice"
        );
        let profile = registry.assemble(&context);
        check_context(&context, &profile, &mut violations);
        reached.extend(profile.groups().map(str::to_owned));
        checked += 1;
    }
    println!(
        "checked {checked} Kandev contexts ({} surfaces, {} capabilities with {} exclusive pair(s), {} providers)",
        Surface::ALL.len(),
        Capability::ALL.len(),
        Kandev::EXCLUSIVE.len(),
        Provider::ALL.len()
    );
    assert_eq!(checked, expected_context_count(), "contexts enumerated");
    violations.assert_none(checked);

    // Every group is reachable by some context.
    let all: BTreeSet<String> = registry
        .groups()
        .iter()
        .map(|g| g.name().to_owned())
        .collect();
    let unreached: Vec<&String> = all.difference(&reached).collect();
    assert!(
        unreached.is_empty(),
        "groups no context enables: {unreached:?}"
    );
}

#[test]
fn every_provider_group_is_covered_by_the_provider_check() {
    let named: BTreeSet<&str> = provider_groups().iter().map(|(group, _)| *group).collect();
    for group in Kandev::registry().groups() {
        let providers: Vec<Provider> = group.rule().providers().collect();
        if providers.is_empty() {
            assert!(
                !named.contains(group.name()),
                "{} needs no provider",
                group.name()
            );
        } else {
            assert!(
                named.contains(group.name()),
                "provider group `{}` is not covered by the invariants",
                group.name()
            );
            let expected = provider_groups()
                .into_iter()
                .find(|(name, _)| *name == group.name())
                .map_or(&[][..], |(_, providers)| providers);
            assert_eq!(providers, expected, "{}", group.name());
        }
    }
}

#[test]
fn the_kanban_task_group_shares_no_tool_with_an_office_group() {
    // The data behind the office invariant: nothing to subtract.
    let kanban: BTreeSet<&str> = group_tools("kanban-task").iter().copied().collect();
    let office = ProfileContext::<Kandev>::new(Surface::OfficeTask);
    for group in Kandev::registry().groups() {
        if group.rule().surfaces().any(|s| s == Surface::OfficeTask)
            || group.rule().surfaces().next().is_none() && group.rule().is_enabled(&office)
        {
            for tool in group.tools() {
                assert!(
                    !kanban.contains(tool),
                    "office group `{}` shares {tool} with kanban-task",
                    group.name()
                );
            }
        }
    }
}

/// A capability or provider, added to a context one at a time.
#[derive(Clone, Copy, Debug)]
enum Addition {
    Capability(Capability),
    Provider(Provider),
}

#[test]
fn assembly_is_deterministic_and_independent_of_addition_order() {
    let registry = Kandev::registry();
    // A second registry, with its own tool-set cache, visited in reverse.
    let fresh = Registry::<Kandev>::linked().expect("the linked registry verifies");
    let contexts: Vec<_> = ProfileContext::<Kandev>::all().collect();
    let mut builds = 0;
    let mut decodes = 0;
    for context in contexts.iter().rev() {
        let baseline = registry.assemble(context);
        let again = registry.assemble(context);
        assert!(
            again.same_tools(&baseline),
            "{context}: assembled twice, differs"
        );
        assert_eq!(
            fresh.assemble(context).tool_names(),
            baseline.tool_names(),
            "{context}: another registry instance disagrees"
        );

        // Built one term at a time, in every interleaving of capabilities and providers.
        let additions: Vec<Addition> = context
            .capabilities()
            .map(Addition::Capability)
            .chain(context.providers().map(Addition::Provider))
            .collect();
        for order in permutations(&additions) {
            let mut built = ProfileContext::<Kandev>::new(context.surface());
            for addition in &order {
                built = match *addition {
                    Addition::Capability(c) => built
                        .with_capability(c)
                        .unwrap_or_else(|err| panic!("{context}: {order:?}: {err}")),
                    Addition::Provider(p) => built.with_provider(p),
                };
            }
            assert_eq!(built, *context, "{order:?}");
            let profile = registry.assemble(&built);
            assert_eq!(
                profile.tool_names(),
                baseline.tool_names(),
                "{context}: {order:?}"
            );
            assert!(
                profile.groups().eq(baseline.groups()),
                "{context}: {order:?}"
            );
            builds += 1;
        }

        // Decoded from JSON with the arrays and the keys in every order.
        let capabilities: Vec<&str> = context.capabilities().map(Term::wire_name).collect();
        let providers: Vec<&str> = context.providers().map(Term::wire_name).collect();
        for capabilities in permutations(&capabilities) {
            for providers in permutations(&providers) {
                let fields = [
                    format!(r#""surface":"{}""#, context.surface()),
                    format!(r#""capabilities":{}"#, serde_json::json!(capabilities)),
                    format!(r#""providers":{}"#, serde_json::json!(providers)),
                ];
                for keys in permutations(&fields) {
                    let json = format!("{{{}}}", keys.join(","));
                    let decoded = ProfileContext::<Kandev>::from_json(&json)
                        .unwrap_or_else(|err| panic!("{json}: {err}"));
                    assert_eq!(decoded, *context, "{json}");
                    assert_eq!(
                        registry.assemble(&decoded).tool_names(),
                        baseline.tool_names(),
                        "{json}"
                    );
                    decodes += 1;
                }
            }
        }
    }
    println!(
        "{} contexts: {builds} term-by-term builds and {decodes} JSON decodings, all equal",
        contexts.len()
    );
    assert_eq!(contexts.len(), expected_context_count());
}

/// Issue 44 §3, Kandev's own parity test (`catalog_parity_test.go`: adding
/// a capability never removes a base tool), over the whole space: for every
/// valid context, adding any capability it may add (exclusivity allowing)
/// or attaching any provider keeps every tool it served. It holds by
/// construction (a rule only requires capabilities and providers, never
/// forbids one; an allow list keeps a tool while any enabled group that has
/// it keeps it; and two groups defining one name differently can never be
/// enabled together, so an added group cannot redefine a served tool):
/// this test is what fails if the rule language ever grows a negation.
#[test]
fn adding_a_capability_or_a_provider_never_removes_a_tool() {
    // Declared on the vocabulary (`#[additive]`), so its own test proves it
    // too; here the proof runs by name, as Kandev's parity test does.
    const { assert!(Kandev::ADDITIVE) };
    if let Err(errors) = Kandev::registry().verify_additive() {
        panic!("{errors}");
    }
}
