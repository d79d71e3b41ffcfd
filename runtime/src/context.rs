//! [`ProfileContext`]: the typed input of profile assembly, and how a
//! [`Rule`](crate::Rule) decides one (`decide`).

mod decide;
mod runtime_allow;

use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

use serde::de::{Error as _, MapAccess, Visitor};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::policy::RuntimeAllowList;
use crate::rule::{ContextBits, mask_below, shape_of};
use crate::vocabulary::TermBits;
use crate::vocabulary::sealed::TermIndex;
use crate::{AllowError, AllowLists, Policy, Term, Vocabulary};

/// One surface, a set of capabilities and a set of attached providers,
/// and the backend's [`Policy`], [allow lists](AllowLists) and
/// [runtime allow list](Self::with_runtime_allowed) over what they enable.
///
/// The backend builds a context from what it knows about a session; the
/// registry [assembles](crate::Registry::assemble) it into a tool set.
/// Constructors keep exclusive capabilities apart, sets are duplicate-free and
/// order-insensitive, and equality, hashing and copying are a few integer
/// operations.
///
/// The JSON form is
/// `{"surface":"ticket","capabilities":["read-only"],"providers":["jira"]}`,
/// with a `"policy"` object when the context carries one (see [`Policy`])
/// and an `"allow"` object of allow lists by group when it sets any
/// (`{"allow":{"dispatch":["list_jobs"]}}`, see
/// [`with_allowed`](Self::with_allowed)), and a `"runtime_allow"` array
/// when it sets a runtime allow list (`{"runtime_allow":["plugin_search"]}`,
/// see [`with_runtime_allowed`](Self::with_runtime_allowed)); decoding is
/// strict (an unknown name or field is an error naming it), `capabilities`,
/// `providers`, `policy` and `allow` may be omitted when empty, and
/// `runtime_allow` is omitted when runtime tools are unrestricted.
///
/// ```
/// # mod server { pub struct Demo; }
/// # use server::Demo;
/// # mcp_profiles::vocabulary! {
/// #     server Demo;
/// #     #[surfaces] pub enum Surface { Ticket, Chat }
/// #     #[capabilities] pub enum Capability { Refund, #[exclusive_with(Refund)] ReadOnly }
/// #     #[providers] pub enum Provider { Jira }
/// # }
/// use mcp_profiles::ProfileContext;
///
/// let context = ProfileContext::<Demo>::new(Surface::Ticket)
///     .with_capability(Capability::ReadOnly)?
///     .with_provider(Provider::Jira);
/// assert_eq!(
///     context.to_json(),
///     r#"{"surface":"ticket","capabilities":["read-only"],"providers":["jira"]}"#
/// );
/// assert_eq!(ProfileContext::<Demo>::from_json(&context.to_json())?, context);
///
/// // Exclusive capabilities never meet.
/// let err = context.with_capability(Capability::Refund).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "capabilities `refund` and `read-only` are mutually exclusive"
/// );
/// # Ok::<(), mcp_profiles::ContextError>(())
/// ```
pub struct ProfileContext<S: Vocabulary> {
    surface: S::Surface,
    capabilities: u64,
    providers: u64,
    /// Copy like the rest: its deny list is an interned `&'static` slice.
    policy: Policy<S>,
    /// Copy too: interned like the deny list.
    allow: AllowLists<S>,
    /// Which runtime tools are served; interned too.
    runtime_allow: RuntimeAllowList,
    vocabulary: PhantomData<fn() -> S>,
}

/// A context that could not be built or decoded.
#[derive(Debug)]
#[non_exhaustive]
pub enum ContextError {
    /// Two capabilities that may not be held together.
    Exclusive {
        /// The first capability of the pair, in declaration order.
        first: &'static str,
        /// The second capability of the pair.
        second: &'static str,
    },
    /// The JSON form was malformed or named something unknown; the message
    /// names the offending value and says where it is.
    Json(serde_json::Error),
}

impl fmt::Display for ContextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ContextError::Exclusive { first, second } => write!(
                f,
                "capabilities `{first}` and `{second}` are mutually exclusive"
            ),
            ContextError::Json(err) => err.fmt(f),
        }
    }
}

impl std::error::Error for ContextError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ContextError::Exclusive { .. } => None,
            ContextError::Json(err) => Some(err),
        }
    }
}

impl<S: Vocabulary> ProfileContext<S> {
    /// A context with `surface`, no capabilities and no providers.
    pub fn new(surface: S::Surface) -> Self {
        ProfileContext {
            surface,
            capabilities: 0,
            providers: 0,
            policy: Policy::none(),
            allow: AllowLists::empty(),
            runtime_allow: RuntimeAllowList::UNRESTRICTED,
            vocabulary: PhantomData,
        }
    }

    /// The same context on another surface.
    pub fn with_surface(mut self, surface: S::Surface) -> Self {
        self.surface = surface;
        self
    }

    /// Adds a capability, refusing one that is exclusive with a held one.
    pub fn with_capability(self, capability: S::Capability) -> Result<Self, ContextError> {
        self.with_capabilities([capability])
    }

    /// Adds capabilities, refusing a set that holds an exclusive pair.
    pub fn with_capabilities(
        mut self,
        capabilities: impl IntoIterator<Item = S::Capability>,
    ) -> Result<Self, ContextError> {
        let mut bits = self.capabilities;
        for capability in capabilities {
            bits |= capability.bit();
        }
        if let Some(pair) = shape_of::<S>().conflict(bits) {
            let mut names = S::Capability::from_mask(pair).map(Term::wire_name);
            let (first, second) = (names.next(), names.next());
            return Err(ContextError::Exclusive {
                first: first.unwrap_or_default(),
                second: second.unwrap_or_default(),
            });
        }
        self.capabilities = bits;
        Ok(self)
    }

    /// Removes a capability, if held.
    pub fn without_capability(mut self, capability: S::Capability) -> Self {
        self.capabilities &= !capability.bit();
        self
    }

    /// Attaches a provider.
    pub fn with_provider(self, provider: S::Provider) -> Self {
        self.with_providers([provider])
    }

    /// Attaches providers.
    pub fn with_providers(mut self, providers: impl IntoIterator<Item = S::Provider>) -> Self {
        for provider in providers {
            self.providers |= provider.bit();
        }
        self
    }

    /// The same context with exactly `providers` attached.
    pub fn replace_providers(mut self, providers: impl IntoIterator<Item = S::Provider>) -> Self {
        self.providers = 0;
        self.with_providers(providers)
    }

    /// The same context under `policy` instead of its own.
    pub fn with_policy(mut self, policy: Policy<S>) -> Self {
        self.policy = policy;
        self
    }

    /// The backend's policy: what this context may not reach whatever its
    /// groups enable.
    pub fn policy(&self) -> Policy<S> {
        self.policy
    }

    /// The same context with `group`'s allow list set to `names`: of the
    /// tools the group's `#[tool_group(allow_list(...))]` may name (its
    /// universe), only these are served. A group whose list is not set gets
    /// its declared default.
    ///
    /// Strict, as decoding is: an unknown group, a group that declares no
    /// allow list, a name outside its universe (with a "did you mean"), a
    /// name given twice or more names than its `max` is an error naming
    /// it, and nothing is changed. Order does not matter.
    ///
    /// # Panics
    ///
    /// If `S`'s linked tool groups fail verification (see
    /// [`Vocabulary::registry`]).
    pub fn with_allowed<N: AsRef<str>>(
        mut self,
        group: &str,
        names: impl IntoIterator<Item = N>,
    ) -> Result<Self, AllowError> {
        self.allow = S::registry().allow(self.allow, group, names)?;
        Ok(self)
    }

    /// The tools of `group`'s universe this context serves, sorted: the
    /// list set with [`with_allowed`](Self::with_allowed), or else the
    /// group's default; `None` when no group of that name declares an
    /// allow list.
    ///
    /// # Panics
    ///
    /// If `S`'s linked tool groups fail verification (see
    /// [`Vocabulary::registry`]).
    pub fn allowed(&self, group: &str) -> Option<&'static [&'static str]> {
        let spec = S::registry().group(group)?.allow_spec()?;
        Some(self.allow.get(spec.group).unwrap_or(spec.default))
    }

    /// The same context with `lists` (another context's
    /// [`allow_lists`](Self::allow_lists)) instead of its own.
    pub fn with_allow_lists(mut self, lists: AllowLists<S>) -> Self {
        self.allow = lists;
        self
    }

    /// The allow lists this context sets (not the defaults of the groups
    /// it leaves alone).
    pub fn allow_lists(&self) -> AllowLists<S> {
        self.allow
    }

    /// The base surface.
    pub fn surface(&self) -> S::Surface {
        self.surface
    }

    /// The capabilities, in declaration order.
    pub fn capabilities(&self) -> impl Iterator<Item = S::Capability> {
        S::Capability::from_mask(self.capabilities)
    }

    /// The attached providers, in declaration order.
    pub fn providers(&self) -> impl Iterator<Item = S::Provider> {
        S::Provider::from_mask(self.providers)
    }

    /// Whether `capability` is held.
    pub fn has_capability(&self, capability: S::Capability) -> bool {
        self.capabilities & capability.bit() != 0
    }

    /// Whether `provider` is attached.
    pub fn has_provider(&self, provider: S::Provider) -> bool {
        self.providers & provider.bit() != 0
    }

    /// Decodes the JSON form strictly.
    pub fn from_json(json: &str) -> Result<Self, ContextError> {
        serde_json::from_str(json).map_err(ContextError::Json)
    }

    /// The compact JSON form, names in declaration order.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a context always serialises")
    }

    /// Every valid context of the vocabulary: each surface, each capability
    /// set free of exclusive pairs, each provider set; all without a policy,
    /// allow lists or a runtime allow list of their own (a policy only
    /// removes tools, so these contexts reach every tool any context
    /// without an allow list can; groups with one serve their defaults).
    ///
    /// The space is finite but exponential in the number of capabilities and
    /// providers; it is meant for tests, matrices and audits of vocabularies
    /// of everyday size.
    pub fn all() -> impl Iterator<Item = Self> {
        let shape = shape_of::<S>();
        let capability_sets: Vec<u64> = subsets(mask_below(S::Capability::ALL.len()))
            .filter(|set| shape.conflict(*set).is_none())
            .collect();
        let provider_sets: Vec<u64> = subsets(mask_below(S::Provider::ALL.len())).collect();
        S::Surface::ALL.iter().flat_map(move |surface| {
            let provider_sets = provider_sets.clone();
            capability_sets
                .clone()
                .into_iter()
                .flat_map(move |capabilities| {
                    provider_sets
                        .clone()
                        .into_iter()
                        .map(move |providers| ProfileContext {
                            surface: *surface,
                            capabilities,
                            providers,
                            policy: Policy::none(),
                            allow: AllowLists::empty(),
                            runtime_allow: RuntimeAllowList::UNRESTRICTED,
                            vocabulary: PhantomData,
                        })
                })
        })
    }

    pub(crate) fn bits(&self) -> ContextBits {
        ContextBits {
            surface: self.surface.index(),
            capabilities: self.capabilities,
            providers: self.providers,
        }
    }

    /// Rebuilds a context from bits the registry checked against the shape.
    pub(crate) fn from_bits(bits: ContextBits) -> Self {
        ProfileContext {
            surface: S::Surface::ALL[bits.surface],
            capabilities: bits.capabilities,
            providers: bits.providers,
            policy: Policy::none(),
            allow: AllowLists::empty(),
            runtime_allow: RuntimeAllowList::UNRESTRICTED,
            vocabulary: PhantomData,
        }
    }
}

/// Every subset of `mask`, counting up from the empty set.
fn subsets(mask: u64) -> impl Iterator<Item = u64> {
    // Enumerates subsets in increasing order via the "next submask" trick.
    let mut next = Some(0u64);
    std::iter::from_fn(move || {
        let current = next?;
        next = if current == mask {
            None
        } else {
            Some(((current | !mask).wrapping_add(1)) & mask)
        };
        Some(current)
    })
}

impl<S: Vocabulary> Clone for ProfileContext<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Vocabulary> Copy for ProfileContext<S> {}

impl<S: Vocabulary> PartialEq for ProfileContext<S> {
    fn eq(&self, other: &Self) -> bool {
        self.surface == other.surface
            && self.capabilities == other.capabilities
            && self.providers == other.providers
            && self.policy == other.policy
            && self.allow == other.allow
            && self.runtime_allow == other.runtime_allow
    }
}

impl<S: Vocabulary> Eq for ProfileContext<S> {}

impl<S: Vocabulary> Hash for ProfileContext<S> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.bits().hash(state);
        self.policy.hash(state);
        self.allow.hash(state);
        self.runtime_allow.hash(state);
    }
}

impl<S: Vocabulary> fmt::Debug for ProfileContext<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProfileContext")
            .field("surface", &self.surface)
            .field("capabilities", &self.capabilities().collect::<Vec<_>>())
            .field("providers", &self.providers().collect::<Vec<_>>())
            .field("policy", &self.policy)
            .field("allow", &self.allow)
            .field("runtime_allow", &self.runtime_allow)
            .finish()
    }
}

/// `ticket +refund, providers: jira, zendesk, policy: read-only, deny: close_ticket, runtime allow: plugin_search`
impl<S: Vocabulary> fmt::Display for ProfileContext<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.surface)?;
        for capability in self.capabilities() {
            write!(f, " +{capability}")?;
        }
        let providers: Vec<&str> = self.providers().map(Term::wire_name).collect();
        if !providers.is_empty() {
            write!(f, ", providers: {}", providers.join(", "))?;
        }
        if !self.policy.is_empty() {
            write!(f, ", policy: {}", self.policy)?;
        }
        if !self.allow.is_empty() {
            write!(f, ", allow: {}", self.allow)?;
        }
        match self.runtime_allow.names() {
            Some([]) => f.write_str(", runtime allow: none")?,
            Some(names) => write!(f, ", runtime allow: {}", names.join(", "))?,
            None => {}
        }
        Ok(())
    }
}

impl<S: Vocabulary> Serialize for ProfileContext<S> {
    fn serialize<Ser: Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let with_policy = !self.policy.is_empty();
        let with_allow = !self.allow.is_empty();
        let runtime_allow = self.runtime_allow.names();
        let fields = 3
            + usize::from(with_policy)
            + usize::from(with_allow)
            + usize::from(runtime_allow.is_some());
        let mut state = serializer.serialize_struct("ProfileContext", fields)?;
        state.serialize_field("surface", &self.surface)?;
        state.serialize_field("capabilities", &self.capabilities().collect::<Vec<_>>())?;
        state.serialize_field("providers", &self.providers().collect::<Vec<_>>())?;
        // Left out when empty: a context without a policy keeps the JSON
        // form it always had.
        if with_policy {
            state.serialize_field("policy", &self.policy)?;
        } else {
            state.skip_field("policy")?;
        }
        if with_allow {
            state.serialize_field("allow", &self.allow)?;
        } else {
            state.skip_field("allow")?;
        }
        // Left out when unrestricted; an empty list is written, since it
        // means "no runtime tool".
        match runtime_allow {
            Some(names) => state.serialize_field("runtime_allow", names)?,
            None => state.skip_field("runtime_allow")?,
        }
        state.end()
    }
}

const FIELDS: &[&str] = &[
    "surface",
    "capabilities",
    "providers",
    "policy",
    "allow",
    "runtime_allow",
];

/// The fields an unknown-field error suggests: `allow` only for a server
/// with a group that declares an allow list, and `runtime_allow` only for
/// one whose vocabulary declares a runtime allow list, where each can mean
/// something.
fn suggested_fields<S: Vocabulary>() -> &'static [&'static str] {
    const WITHOUT_ALLOW: &[&str] = &[
        "surface",
        "capabilities",
        "providers",
        "policy",
        "runtime_allow",
    ];
    match (S::registry().allowing(), S::RUNTIME_ALLOW_MAX.is_some()) {
        (true, true) => FIELDS,
        (true, false) => &FIELDS[..5],
        (false, true) => WITHOUT_ALLOW,
        (false, false) => &FIELDS[..4],
    }
}

/// Accepts only a JSON object (serde would also take a sequence for a
/// derived struct), with each known field at most once.
struct ContextVisitor<S>(PhantomData<fn() -> S>);

impl<'de, S: Vocabulary> Visitor<'de> for ContextVisitor<S> {
    type Value = ProfileContext<S>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a profile context object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut surface: Option<S::Surface> = None;
        let mut capabilities: Option<Vec<S::Capability>> = None;
        let mut providers: Option<Vec<S::Provider>> = None;
        let mut policy: Option<Policy<S>> = None;
        let mut allow: Option<AllowLists<S>> = None;
        let mut runtime_allow: Option<RuntimeAllowList> = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match &*key {
                "surface" if surface.is_none() => surface = Some(map.next_value()?),
                "capabilities" if capabilities.is_none() => {
                    capabilities = Some(map.next_value()?);
                }
                "providers" if providers.is_none() => providers = Some(map.next_value()?),
                "policy" if policy.is_none() => policy = Some(map.next_value()?),
                "allow" if allow.is_none() => allow = Some(map.next_value()?),
                "runtime_allow" if runtime_allow.is_none() => {
                    let names: Vec<std::borrow::Cow<'de, str>> = map.next_value()?;
                    let list = RuntimeAllowList::new::<S, _>(&names)
                        .map_err(|err| A::Error::custom(format_args!("`runtime_allow`: {err}")))?;
                    runtime_allow = Some(list);
                }
                "surface" => return Err(A::Error::duplicate_field("surface")),
                "capabilities" => return Err(A::Error::duplicate_field("capabilities")),
                "providers" => return Err(A::Error::duplicate_field("providers")),
                "policy" => return Err(A::Error::duplicate_field("policy")),
                "allow" => return Err(A::Error::duplicate_field("allow")),
                "runtime_allow" => return Err(A::Error::duplicate_field("runtime_allow")),
                other => return Err(A::Error::unknown_field(other, suggested_fields::<S>())),
            }
        }
        let surface = surface.ok_or_else(|| A::Error::missing_field("surface"))?;
        ProfileContext::new(surface)
            .with_capabilities(capabilities.unwrap_or_default())
            .map(|context| {
                context
                    .with_providers(providers.unwrap_or_default())
                    .with_policy(policy.unwrap_or_default())
                    .with_allow_lists(allow.unwrap_or_default())
                    .with_runtime_allow_list(runtime_allow.unwrap_or_default())
            })
            .map_err(A::Error::custom)
    }
}

impl<'de, S: Vocabulary> Deserialize<'de> for ProfileContext<S> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct("ProfileContext", FIELDS, ContextVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::subsets;

    #[test]
    fn subsets_enumerates_every_submask_once() {
        let all: Vec<u64> = subsets(0b1011).collect();
        assert_eq!(
            all,
            [
                0b0000, 0b0001, 0b0010, 0b0011, 0b1000, 0b1001, 0b1010, 0b1011
            ]
        );
        assert_eq!(subsets(0).collect::<Vec<_>>(), [0]);
    }
}
