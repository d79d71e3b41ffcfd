//! Property tests of the generic registry against a naive reference model.
//!
//! Three vocabularies of different shapes; for each, random groups (random
//! rules over the vocabulary's terms, in every form a rule takes: always-on,
//! surfaces, required capabilities, an any-of set of capabilities, an any-of
//! set of providers; group names and tool names drawn from small pools so
//! that collisions happen) go through `Registry::builder` as typed `Rule`s,
//! and the outcome is compared with a model that brute-forces every valid
//! context. The model has its own representation: masks over each term's
//! position in `Term::ALL`.
//!
//! - every generated rule reads back through `Rule`'s accessors as the
//!   terms it was built from, in declaration order, whichever constructors
//!   built it;
//! - verification reports exactly the model's violations (duplicate names,
//!   empty groups, a tool listed twice in a group, groups no context enables,
//!   tools shared by two groups some context enables together), so it
//!   accepts iff the model finds none;
//! - every collision's witness is a valid context enabling both groups;
//! - for an accepted registry, every context assembles to the model's sorted
//!   union of the matching groups' tools, with the model's enabled groups,
//!   and `Rule::is_enabled`, `explain` and `ProfileContext::all()` agree;
//!   each decision `explain` gives names a condition that really fails.
//!
//! Cases per vocabulary and generator are `DEFAULT_CASES`, or `PROPTEST_CASES`
//! when set (a long run: `PROPTEST_CASES=20000 cargo test --release -p
//! mcp-profiles-tests --test integration registry_model -- --nocapture`).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_profiles::{Decision, ProfileContext, Registry, RegistryError, Rule, Term, Vocabulary};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// Five surfaces, five capabilities with two exclusive pairs sharing one
/// capability (`ask`–`delegate`, `ask`–`escalate`), three providers.
mod wide {
    /// The server type of the wide vocabulary; it has no handlers.
    pub struct Wide;

    mcp_profiles::vocabulary! {
        server Wide;

        #[surfaces]
        pub enum Surface { Alpha, Beta, Gamma, Delta, Epsilon }

        #[capabilities]
        pub enum Capability {
            Ask,
            #[exclusive_with(Ask)]
            Delegate,
            #[exclusive_with(Ask)]
            Escalate,
            Title,
            Review,
        }

        #[providers]
        pub enum Provider { Github, Gitlab, Gitea }
    }
}

/// One surface, nothing else: exactly one context.
mod single {
    /// The server type of the single-context vocabulary.
    pub struct Single;

    mcp_profiles::vocabulary! {
        server Single;

        #[surfaces]
        pub enum Surface { Only }

        #[capabilities]
        pub enum Capability {}

        #[providers]
        pub enum Provider {}
    }
}

/// A chain of exclusions: `one`–`two`, `two`–`three`, `three`–`four`.
mod chain {
    /// The server type of the chained vocabulary.
    pub struct Chain;

    mcp_profiles::vocabulary! {
        server Chain;

        #[surfaces]
        pub enum Surface { Task, External }

        #[capabilities]
        pub enum Capability {
            One,
            #[exclusive_with(One)]
            Two,
            #[exclusive_with(Two)]
            Three,
            #[exclusive_with(Three)]
            Four,
        }

        #[providers]
        pub enum Provider { Github }
    }
}

const DEFAULT_CASES: u32 = 384;

const GROUP_NAMES: &[&str] = &["alpha-tools", "beta", "gamma", "delta", "epsilon", "zeta"];
const TOOLS: &[&str] = &["list", "get", "create", "delete", "ask", "move"];

/// A rule as the model writes it: one bit per term, at the term's position
/// in `Term::ALL`. All zero is the always-on rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Masks {
    surfaces: u64,
    capabilities: u64,
    any_capabilities: u64,
    providers: u64,
}

impl Masks {
    /// The typed rule, one constructor call per condition.
    fn typed<V: Vocabulary>(&self) -> Rule<V> {
        Rule::<V>::on_surfaces(terms(self.surfaces))
            .requiring_all(terms(self.capabilities))
            .requiring_any(terms(self.any_capabilities))
            .with_any_provider(terms(self.providers))
    }

    /// The same rule built term by term, conditions in the reverse order.
    fn typed_term_by_term<V: Vocabulary>(&self) -> Rule<V> {
        let rule = terms::<V::Provider>(self.providers)
            .fold(Rule::<V>::always(), |rule, p| rule.with_any_provider([p]));
        let rule = terms(self.any_capabilities).fold(rule, |rule, c| rule.requiring_any([c]));
        let rule = terms(self.capabilities).fold(rule, Rule::requiring);
        terms(self.surfaces).fold(rule, |rule, s| rule.or_surfaces([s]))
    }

    /// The masks of a typed rule, read through its public accessors.
    fn of<V: Vocabulary>(rule: &Rule<V>) -> Self {
        Masks {
            surfaces: mask(rule.surfaces()),
            capabilities: mask(rule.capabilities()),
            any_capabilities: mask(rule.any_capabilities()),
            providers: mask(rule.providers()),
        }
    }
}

/// A term's position in declaration order.
fn position<T: Term>(term: T) -> usize {
    T::ALL
        .iter()
        .position(|known| *known == term)
        .expect("ALL lists every term")
}

/// The model's bit for `term`.
fn bit<T: Term>(term: T) -> u64 {
    1 << position(term)
}

fn mask<T: Term>(terms: impl IntoIterator<Item = T>) -> u64 {
    terms.into_iter().fold(0, |mask, term| mask | bit(term))
}

/// The terms whose bits are set in `mask`, in declaration order.
fn terms<T: Term>(mask: u64) -> impl Iterator<Item = T> {
    T::ALL
        .iter()
        .copied()
        .filter(move |term| mask & bit(*term) != 0)
}

/// A generated group, independent of the vocabulary type.
#[derive(Clone, Debug)]
struct Spec {
    name: &'static str,
    rule: Masks,
    /// `rule` for the model, converted once.
    naive: NaiveRule,
    tools: Vec<&'static str>,
}

impl Spec {
    fn new(name: &'static str, rule: Masks, tools: Vec<&'static str>) -> Self {
        Spec {
            name,
            naive: NaiveRule::of(&rule),
            rule,
            tools,
        }
    }
}

/// The registry of `specs`, built through the public builder.
fn build<V: Vocabulary>(specs: &[Spec]) -> Result<Registry<V>, mcp_profiles::RegistryErrors> {
    specs
        .iter()
        .fold(Registry::<V>::builder(), |builder, spec| {
            let tools: &'static [&'static str] = Box::leak(spec.tools.clone().into_boxed_slice());
            builder.group(spec.name, spec.rule.typed::<V>(), tools)
        })
        .build()
}

/// A mask over `count` bits, each set with probability `p`.
fn sparse(count: usize, p: f64) -> impl Strategy<Value = u64> {
    proptest::collection::vec(proptest::bool::weighted(p), count).prop_map(|bits| {
        bits.iter()
            .enumerate()
            .filter(|(_, set)| **set)
            .fold(0, |mask, (index, _)| mask | 1 << index)
    })
}

fn rule<V: Vocabulary>() -> impl Strategy<Value = Masks> {
    let (surfaces, capabilities, providers) = sizes::<V>();
    let conditions = (
        prop_oneof![1 => Just(0u64), 2 => sparse(surfaces, 0.4)],
        sparse(capabilities, 0.2),
        prop_oneof![2 => Just(0u64), 1 => sparse(capabilities, 0.4)],
        sparse(providers, 0.3),
    )
        .prop_map(
            |(surfaces, capabilities, any_capabilities, providers)| Masks {
                surfaces,
                capabilities,
                any_capabilities,
                providers,
            },
        );
    prop_oneof![1 => Just(Masks::default()), 9 => conditions]
}

/// Anything: names may repeat, groups may be empty or list a tool twice.
fn raw_specs<V: Vocabulary>() -> impl Strategy<Value = Vec<Spec>> {
    let spec = (
        proptest::sample::select(GROUP_NAMES),
        rule::<V>(),
        prop_oneof![
            1 => Just(Vec::new()),
            9 => proptest::collection::vec(proptest::sample::select(TOOLS), 1..=3),
        ],
    )
        .prop_map(|(name, rule, tools)| Spec::new(name, rule, tools));
    proptest::collection::vec(spec, 0..=5)
}

/// Distinct names, non-empty groups of distinct tools: only reachability and
/// collisions vary, so a good share of registries verify.
fn well_formed_specs<V: Vocabulary>() -> impl Strategy<Value = Vec<Spec>> {
    let spec = (
        rule::<V>(),
        proptest::sample::subsequence(TOOLS, 1..=3).prop_shuffle(),
    );
    proptest::collection::vec(spec, 1..=5).prop_map(|specs| {
        specs
            .into_iter()
            .enumerate()
            .map(|(index, (rule, tools))| Spec::new(GROUP_NAMES[index], rule, tools))
            .collect()
    })
}

fn sizes<V: Vocabulary>() -> (usize, usize, usize) {
    (
        V::Surface::ALL.len(),
        V::Capability::ALL.len(),
        V::Provider::ALL.len(),
    )
}

/// A context as the model sees it: term indices in plain sets.
#[derive(Clone, Debug)]
struct NaiveContext {
    surface: usize,
    capabilities: BTreeSet<usize>,
    providers: BTreeSet<usize>,
}

impl NaiveContext {
    fn typed<V: Vocabulary>(&self) -> ProfileContext<V> {
        ProfileContext::new(V::Surface::ALL[self.surface])
            .with_capabilities(self.capabilities.iter().map(|&i| V::Capability::ALL[i]))
            .expect("the model enumerates valid contexts only")
            .with_providers(self.providers.iter().map(|&i| V::Provider::ALL[i]))
    }
}

fn indices(mask: u64) -> BTreeSet<usize> {
    (0..64).filter(|bit| mask & (1 << bit) != 0).collect()
}

/// Every valid context, by brute force over all index sets.
fn naive_contexts<V: Vocabulary>() -> Vec<NaiveContext> {
    let (surfaces, capabilities, providers) = sizes::<V>();
    let exclusive: Vec<(usize, usize)> = V::EXCLUSIVE
        .iter()
        .map(|(a, b)| (position(*a), position(*b)))
        .collect();
    let mut all = Vec::new();
    for surface in 0..surfaces {
        for capability_mask in 0..(1u64 << capabilities) {
            let held = indices(capability_mask);
            if exclusive
                .iter()
                .any(|(a, b)| held.contains(a) && held.contains(b))
            {
                continue;
            }
            for provider_mask in 0..(1u64 << providers) {
                all.push(NaiveContext {
                    surface,
                    capabilities: held.clone(),
                    providers: indices(provider_mask),
                });
            }
        }
    }
    all
}

/// A rule as the model sees it: term indices in plain sets.
#[derive(Clone, Debug)]
struct NaiveRule {
    surfaces: BTreeSet<usize>,
    capabilities: BTreeSet<usize>,
    any_capabilities: BTreeSet<usize>,
    providers: BTreeSet<usize>,
}

impl NaiveRule {
    fn of(rule: &Masks) -> Self {
        NaiveRule {
            surfaces: indices(rule.surfaces),
            capabilities: indices(rule.capabilities),
            any_capabilities: indices(rule.any_capabilities),
            providers: indices(rule.providers),
        }
    }
}

/// The model's rule: surface listed (or none listed), every required
/// capability held, one of the any-of capabilities held (or none listed),
/// one of the providers attached (or none listed).
fn naive_matches(rule: &NaiveRule, context: &NaiveContext) -> bool {
    (rule.surfaces.is_empty() || rule.surfaces.contains(&context.surface))
        && rule.capabilities.is_subset(&context.capabilities)
        && (rule.any_capabilities.is_empty()
            || !rule.any_capabilities.is_disjoint(&context.capabilities))
        && (rule.providers.is_empty() || !rule.providers.is_disjoint(&context.providers))
}

/// Whether `decision` for `rule` agrees with the model's verdict `enabled`
/// and, when off, names a condition that `context` really fails.
fn naive_explains<V: Vocabulary>(
    rule: &Masks,
    context: &NaiveContext,
    enabled: bool,
    decision: &Decision<V>,
) -> bool {
    let held = |index: usize| context.capabilities.contains(&index);
    match decision {
        Decision::Enabled => enabled,
        _ if enabled => false,
        Decision::SurfaceNotListed(surface) => {
            position(*surface) == context.surface
                && rule.surfaces != 0
                && rule.surfaces & bit(*surface) == 0
        }
        Decision::MissingCapability(capability) => {
            !held(position(*capability))
                && (rule.capabilities & bit(*capability) != 0
                    || rule.any_capabilities == bit(*capability))
        }
        Decision::NoCapabilityOf(set) => {
            let set = mask(set.iter());
            set == rule.any_capabilities
                && set.count_ones() > 1
                && indices(set).iter().all(|i| !held(*i))
        }
        Decision::MissingProvider(provider) => {
            rule.providers == bit(*provider) && !context.providers.contains(&position(*provider))
        }
        Decision::NoProviderOf(set) => {
            let set = mask(set.iter());
            set == rule.providers
                && set.count_ones() > 1
                && indices(set).is_disjoint(&context.providers)
        }
        _ => false,
    }
}

/// A violation, in a form both the model and the registry's errors map to.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Violation {
    DuplicateName(String),
    Empty(String),
    DuplicateTool(String, String),
    Unreachable(String),
    /// The tool and the two groups, sorted.
    Collision(String, [String; 2]),
    /// An error the model does not know of; never expected.
    Unknown(String),
}

fn sorted_pair(a: &str, b: &str) -> [String; 2] {
    let mut pair = [a.to_owned(), b.to_owned()];
    pair.sort();
    pair
}

/// What the model says verification must report.
fn naive_violations(specs: &[Spec], contexts: &[NaiveContext]) -> BTreeSet<Violation> {
    let mut violations = BTreeSet::new();
    let mut names = BTreeMap::new();
    for spec in specs {
        *names.entry(spec.name).or_insert(0) += 1;
    }
    for (name, count) in names {
        if count > 1 {
            violations.insert(Violation::DuplicateName(name.to_owned()));
        }
    }
    for spec in specs {
        if spec.tools.is_empty() {
            violations.insert(Violation::Empty(spec.name.to_owned()));
        }
        for (index, tool) in spec.tools.iter().enumerate() {
            if spec.tools[..index].contains(tool) {
                violations.insert(Violation::DuplicateTool(
                    spec.name.to_owned(),
                    (*tool).to_owned(),
                ));
            }
        }
        if !contexts.iter().any(|c| naive_matches(&spec.naive, c)) {
            violations.insert(Violation::Unreachable(spec.name.to_owned()));
        }
    }
    for (i, a) in specs.iter().enumerate() {
        for b in &specs[i + 1..] {
            let co_enabled = contexts
                .iter()
                .any(|c| naive_matches(&a.naive, c) && naive_matches(&b.naive, c));
            if !co_enabled {
                continue;
            }
            for tool in &a.tools {
                if b.tools.contains(tool) {
                    violations.insert(Violation::Collision(
                        (*tool).to_owned(),
                        sorted_pair(a.name, b.name),
                    ));
                }
            }
        }
    }
    violations
}

fn reported(error: &RegistryError) -> Violation {
    match error {
        RegistryError::DuplicateGroupName { name, .. } => Violation::DuplicateName(name.clone()),
        RegistryError::EmptyGroup { group } => Violation::Empty(group.clone()),
        RegistryError::DuplicateTool { group, tool } => {
            Violation::DuplicateTool(group.clone(), tool.clone())
        }
        RegistryError::UnreachableGroup { group, .. } => Violation::Unreachable(group.clone()),
        RegistryError::ToolCollision { tool, groups, .. } => {
            Violation::Collision(tool.clone(), sorted_pair(&groups[0], &groups[1]))
        }
        other => Violation::Unknown(other.to_string()),
    }
}

/// What one run saw, to show that both outcomes were exercised.
#[derive(Default)]
struct Tally {
    accepted: AtomicUsize,
    rejected: AtomicUsize,
    unreachable: AtomicUsize,
    collisions: AtomicUsize,
    contexts_assembled: AtomicUsize,
    /// Generated rules by form, to show every form was exercised.
    always_rules: AtomicUsize,
    any_capability_rules: AtomicUsize,
    any_provider_rules: AtomicUsize,
}

fn check<V: Vocabulary>(specs: &[Spec], tally: &Tally) -> Result<(), TestCaseError> {
    for spec in specs {
        let rule = &spec.rule;
        let count = |counter: &AtomicUsize, generated: bool| {
            counter.fetch_add(usize::from(generated), Ordering::Relaxed);
        };
        count(&tally.always_rules, *rule == Masks::default());
        count(
            &tally.any_capability_rules,
            rule.any_capabilities.count_ones() > 1,
        );
        count(&tally.any_provider_rules, rule.providers.count_ones() > 1);
        // The typed rule reads back as the terms it was built from, in
        // declaration order, whichever constructors built it.
        let typed = rule.typed::<V>();
        prop_assert_eq!(Masks::of(&typed), *rule);
        prop_assert_eq!(
            typed.surfaces().collect::<Vec<_>>(),
            terms(rule.surfaces).collect::<Vec<_>>()
        );
        prop_assert_eq!(
            typed.capabilities().collect::<Vec<_>>(),
            terms(rule.capabilities).collect::<Vec<_>>()
        );
        prop_assert_eq!(
            typed.any_capabilities().collect::<Vec<_>>(),
            terms(rule.any_capabilities).collect::<Vec<_>>()
        );
        prop_assert_eq!(
            typed.providers().collect::<Vec<_>>(),
            terms(rule.providers).collect::<Vec<_>>()
        );
        prop_assert_eq!(typed.is_always(), *rule == Masks::default());
        prop_assert_eq!(rule.typed_term_by_term::<V>(), typed);
    }
    let contexts = naive_contexts::<V>();
    let expected = naive_violations(specs, &contexts);
    let registry = match build::<V>(specs) {
        Err(errors) => {
            tally.rejected.fetch_add(1, Ordering::Relaxed);
            let got: BTreeSet<Violation> = errors.iter().map(reported).collect();
            prop_assert_eq!(&got, &expected, "violations reported: {}", errors);
            for error in &errors {
                match error {
                    RegistryError::UnreachableGroup { .. } => {
                        tally.unreachable.fetch_add(1, Ordering::Relaxed);
                    }
                    RegistryError::ToolCollision {
                        tool,
                        groups,
                        witness,
                    } => {
                        tally.collisions.fetch_add(1, Ordering::Relaxed);
                        // The witness is a valid context enabling both groups.
                        let context = ProfileContext::<V>::from_json(witness)
                            .map_err(|err| TestCaseError::fail(format!("{witness}: {err}")))?;
                        let enables = |name: &str| {
                            specs.iter().any(|spec| {
                                spec.name == name
                                    && spec.tools.iter().any(|t| t == tool)
                                    && spec_enabled::<V>(spec, &context)
                            })
                        };
                        prop_assert!(
                            enables(&groups[0]) && enables(&groups[1]),
                            "witness {} does not enable both {:?}",
                            witness,
                            groups
                        );
                    }
                    _ => {}
                }
            }
            return Ok(());
        }
        Ok(registry) => registry,
    };
    prop_assert!(
        expected.is_empty(),
        "accepted, but the model finds {:?}",
        expected
    );
    tally.accepted.fetch_add(1, Ordering::Relaxed);
    prop_assert!(registry.verify().is_ok());

    let mut sorted_names: Vec<&str> = specs.iter().map(|spec| spec.name).collect();
    sorted_names.sort();
    let registry_names: Vec<&str> = registry.groups().iter().map(|g| g.name()).collect();
    prop_assert_eq!(&registry_names, &sorted_names);
    for spec in specs {
        let group = registry.group(spec.name);
        prop_assert_eq!(group.map(|g| g.name()), Some(spec.name));
        // The registry keeps the rule it was given.
        prop_assert_eq!(group.map(|g| g.rule()), Some(spec.rule.typed::<V>()));
    }

    // `all()` enumerates exactly the model's contexts, each once.
    let enumerated: Vec<ProfileContext<V>> = ProfileContext::<V>::all().collect();
    let unique: HashSet<ProfileContext<V>> = enumerated.iter().copied().collect();
    prop_assert_eq!(enumerated.len(), contexts.len());
    prop_assert_eq!(unique.len(), contexts.len());

    for naive in &contexts {
        let context = naive.typed::<V>();
        prop_assert!(unique.contains(&context), "all() misses {}", context);
        let enabled: Vec<&Spec> = specs
            .iter()
            .filter(|spec| naive_matches(&spec.naive, naive))
            .collect();
        let tools: BTreeSet<&str> = enabled
            .iter()
            .flat_map(|spec| spec.tools.iter().copied())
            .collect();
        let tools: Vec<&str> = tools.into_iter().collect();
        let mut groups: Vec<&str> = enabled.iter().map(|spec| spec.name).collect();
        groups.sort();

        let profile = registry.assemble(&context);
        prop_assert_eq!(profile.tool_names(), &tools[..], "tools of {}", context);
        prop_assert_eq!(
            &profile.groups().collect::<Vec<_>>(),
            &groups,
            "groups of {}",
            context
        );
        for tool in TOOLS {
            prop_assert_eq!(profile.contains(tool), tools.contains(tool));
        }
        for group in registry.groups() {
            let naive_on = specs
                .iter()
                .any(|spec| spec.name == group.name() && naive_matches(&spec.naive, naive));
            prop_assert_eq!(group.rule().is_enabled(&context), naive_on);
        }
        for (group, decision) in registry.explain(&context).rows() {
            prop_assert_eq!(decision.is_enabled(), group.rule().is_enabled(&context));
            let on = groups.contains(&group.name());
            prop_assert!(
                naive_explains(&Masks::of(&group.rule()), naive, on, &decision),
                "{} for {} in {}",
                decision,
                group.rule(),
                context
            );
        }
        tally.contexts_assembled.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}

/// Whether `context` enables `spec`, by the model's rule.
fn spec_enabled<V: Vocabulary>(spec: &Spec, context: &ProfileContext<V>) -> bool {
    let naive = NaiveContext {
        surface: position(context.surface()),
        capabilities: context.capabilities().map(position).collect(),
        providers: context.providers().map(position).collect(),
    };
    naive_matches(&spec.naive, &naive)
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(DEFAULT_CASES)
}

/// Runs both generators for `V`, and checks that both outcomes occurred and
/// that every rule form the vocabulary allows was generated.
fn run<V: Vocabulary>(label: &str, expect_unreachable: bool) {
    let config = Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    };
    for (generator, strategy) in [
        ("raw", raw_specs::<V>().boxed()),
        ("well-formed", well_formed_specs::<V>().boxed()),
    ] {
        let tally = Tally::default();
        let mut runner = TestRunner::new(config.clone());
        if let Err(failure) = runner.run(&strategy, |specs| check::<V>(&specs, &tally)) {
            panic!("{label}, {generator} groups: {failure}");
        }
        let accepted = tally.accepted.load(Ordering::Relaxed);
        let rejected = tally.rejected.load(Ordering::Relaxed);
        println!(
            "{label}, {generator}: {} cases, {accepted} accepted, {rejected} rejected \
             ({} unreachable-group and {} collision errors), {} contexts assembled against the model; \
             rules: {} always-on, {} with any-of capabilities, {} with any-of providers",
            config.cases,
            tally.unreachable.load(Ordering::Relaxed),
            tally.collisions.load(Ordering::Relaxed),
            tally.contexts_assembled.load(Ordering::Relaxed),
            tally.always_rules.load(Ordering::Relaxed),
            tally.any_capability_rules.load(Ordering::Relaxed),
            tally.any_provider_rules.load(Ordering::Relaxed),
        );
        assert!(accepted > 0, "{label}, {generator}: no registry verified");
        assert!(
            rejected > 0,
            "{label}, {generator}: no registry was rejected"
        );
        assert!(
            tally.collisions.load(Ordering::Relaxed) > 0,
            "{label}, {generator}: no collision was generated"
        );
        assert!(
            tally.always_rules.load(Ordering::Relaxed) > 0,
            "{label}: no always-on rule"
        );
        let (_, capabilities, providers) = sizes::<V>();
        if capabilities > 1 {
            let any = tally.any_capability_rules.load(Ordering::Relaxed);
            assert!(any > 0, "{label}: no any-of capability set");
        }
        if providers > 1 {
            let any = tally.any_provider_rules.load(Ordering::Relaxed);
            assert!(any > 0, "{label}: no any-of provider set");
        }
        if expect_unreachable {
            assert!(
                tally.unreachable.load(Ordering::Relaxed) > 0,
                "{label}, {generator}: no unreachable group was generated"
            );
        }
    }
}

#[test]
fn wide_vocabulary_matches_the_model() {
    run::<wide::Wide>(
        "wide (5 surfaces, 5 capabilities, 2 pairs, 3 providers)",
        true,
    );
}

#[test]
fn single_context_vocabulary_matches_the_model() {
    // One surface and no terms: every rule is reachable.
    run::<single::Single>("single (1 surface, nothing else)", false);
}

#[test]
fn chained_exclusions_match_the_model() {
    run::<chain::Chain>(
        "chain (2 surfaces, 4 capabilities in a chain, 1 provider)",
        true,
    );
}

#[test]
fn the_model_counts_the_contexts_it_should() {
    // 5 × (32 − 12 sets holding `ask` with `delegate` or `escalate`) × 8.
    assert_eq!(naive_contexts::<wide::Wide>().len(), 5 * 20 * 8);
    assert_eq!(naive_contexts::<single::Single>().len(), 1);
    // Chain of 4: independent sets of a path of 4 vertices = 8.
    assert_eq!(naive_contexts::<chain::Chain>().len(), 2 * 8 * 2);
}
