//! How an access token's claims become the profile its requests are
//! served: declared once, decoded strictly against the vocabulary, applied
//! the same way to every token.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use mcp_profiles::{ProfileContext, Term, Vocabulary};
use serde::Deserialize;
use serde_json::Value;

use super::AccessToken;
use super::config_check::is_scope_token;
use crate::agents::Narrowing;

/// The claims of a token that name its principal unless configured: `sub`,
/// else `client_id` (a client-credentials token has no user).
const DEFAULT_PRINCIPAL_CLAIMS: [&str; 2] = ["sub", "client_id"];

/// How access tokens map to profiles: whose profile, and how much of it.
///
/// Decoded strictly from JSON (an unknown field, surface, capability or
/// provider is an error naming it), so a mapping that names something the
/// server does not have stops it at start:
///
/// ```json
/// {
///   "principal_claims": ["sub", "client_id"],
///   "profile": "stored",
///   "surface_claim": "mcp_surface",
///   "scopes": { "tickets:refund": ["refund"] },
///   "step_up": ["tickets:refund"],
///   "providers_claim": "mcp_providers"
/// }
/// ```
///
/// - `principal_claims`: the claims naming the principal, the first one
///   present winning (default `sub`, then `client_id`). A token naming none
///   is refused. The first claim's value is the principal as it is; a later
///   claim's is `{claim}.{value}` (a client-credentials token of
///   `client_id` `ci-bot` is principal `client_id.ci-bot`), so principals
///   named by different claims never collide, and a first claim's value
///   beginning with a later claim's `{claim}.` is refused as ambiguous.
/// - `profile`: `"stored"` (the default) serves the principal's profile in
///   the [`ProfileStore`](crate::ProfileStore), which must have an agent
///   for it; `{"ceiling": <context>}` serves a profile derived from the
///   token alone, never wider than that context (its capabilities,
///   providers, policy and allow lists).
/// - `surface_claim`: a claim naming the surface. Over a stored profile
///   it must name the stored surface; over a ceiling it picks the surface.
///   When set, a token without it is refused.
/// - `scopes`: which capabilities each scope grants. A capability named
///   here is held only with one of its scopes; capabilities named by no
///   scope are kept as the profile or ceiling has them. A token may so
///   narrow its profile, never widen it.
/// - `step_up`: scopes a client may be asked to obtain: a `tools/call` of a
///   tool that one of them would reveal is answered with HTTP 403
///   `insufficient_scope` naming it, so the client can re-authorise.
/// - `providers_claim`: a claim listing providers (an array of names or a
///   space-separated string); the profile keeps only those. When set, a
///   token without it keeps none.
///
/// The same token always maps to the same profile.
///
/// ```
/// # mod server {
/// #     #[derive(Clone)] pub struct Demo;
/// #     impl rmcp::ServerHandler for Demo {}
/// # }
/// # use server::Demo;
/// # mcp_profiles::vocabulary! {
/// #     server Demo;
/// #     #[surfaces] pub enum Surface { Ticket }
/// #     #[capabilities] pub enum Capability { Refund }
/// #     #[providers] pub enum Provider {}
/// # }
/// use mcp_profiles_serve::oauth::ClaimMapping;
///
/// let mapping = ClaimMapping::<Demo>::from_json(
///     r#"{"scopes": {"tickets:refund": ["refund"]}, "step_up": ["tickets:refund"]}"#,
/// )?;
/// assert_eq!(mapping.scopes().collect::<Vec<_>>(), ["tickets:refund"]);
///
/// // A name the vocabulary lacks stops the server at start, naming it.
/// let refused = ClaimMapping::<Demo>::from_json(r#"{"scopes": {"tickets:refund": ["refnud"]}}"#);
/// assert!(refused.unwrap_err().to_string().contains("unknown capability `refnud`"));
/// # Ok::<(), mcp_profiles_serve::oauth::MappingError>(())
/// ```
pub struct ClaimMapping<S: Vocabulary> {
    principal_claims: Vec<String>,
    base: Base<S>,
    surface_claim: Option<String>,
    scopes: BTreeMap<String, BTreeSet<S::Capability>>,
    /// Every capability some scope grants: held only with such a scope.
    gated: BTreeSet<S::Capability>,
    step_up: BTreeSet<String>,
    providers_claim: Option<String>,
}

/// Whose profile a token's requests are served.
enum Base<S: Vocabulary> {
    /// The principal's stored profile.
    Stored,
    /// One derived from the token, within this ceiling.
    Ceiling(ProfileContext<S>),
}

/// The serde form, checked by [`ClaimMapping::from_raw`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
struct RawMapping<S: Vocabulary> {
    #[serde(default)]
    principal_claims: Option<Vec<String>>,
    /// `"stored"` or `{"ceiling": <context>}`, read by [`base`].
    #[serde(default)]
    profile: Option<Value>,
    #[serde(default)]
    surface_claim: Option<String>,
    #[serde(default)]
    scopes: BTreeMap<String, Vec<S::Capability>>,
    #[serde(default)]
    step_up: Vec<String>,
    #[serde(default)]
    providers_claim: Option<String>,
}

/// The `profile` field: a string or a one-field object, with an error
/// naming what was found (serde's untagged enums name nothing).
fn base<S: Vocabulary>(profile: Option<Value>) -> Result<Base<S>, MappingError> {
    let expected = "`profile` must be \"stored\" or {\"ceiling\": <profile context>}";
    match profile {
        None => Ok(Base::Stored),
        Some(Value::String(name)) if name == "stored" => Ok(Base::Stored),
        Some(Value::Object(mut fields)) if fields.len() == 1 && fields.contains_key("ceiling") => {
            let ceiling = fields.remove("ceiling").unwrap_or_default();
            serde_json::from_value(ceiling)
                .map(Base::Ceiling)
                .map_err(|error| MappingError::new(format!("`profile.ceiling`: {error}")))
        }
        Some(other) => Err(MappingError::new(format!("{expected}, not `{other}`"))),
    }
}

/// Where a token's requests are served, as the mapping decides it.
pub(crate) enum TokenProfile<S: Vocabulary> {
    /// `principal`'s stored profile, seen through `narrowing`; its surface
    /// must be `surface` when the token names one.
    Stored {
        principal: String,
        narrowing: Narrowing<S>,
        surface: Option<S::Surface>,
    },
    /// A profile of the token's own, for `principal`.
    Derived {
        principal: String,
        context: ProfileContext<S>,
    },
}

impl<S: Vocabulary> TokenProfile<S> {
    /// The principal the token names.
    pub(crate) fn principal(&self) -> &str {
        match self {
            TokenProfile::Stored { principal, .. } | TokenProfile::Derived { principal, .. } => {
                principal
            }
        }
    }
}

impl<S: Vocabulary> ClaimMapping<S> {
    /// Decodes a mapping strictly; the error names the bad field or value.
    pub fn from_json(json: &str) -> Result<Self, MappingError> {
        Self::from_value(serde_json::from_str(json).map_err(MappingError::json)?)
    }

    /// Decodes a mapping from a JSON value strictly.
    pub fn from_value(value: Value) -> Result<Self, MappingError> {
        let raw: RawMapping<S> = serde_json::from_value(value).map_err(MappingError::json)?;
        Self::from_raw(raw)
    }

    /// Serves each principal's stored profile, the principal named by
    /// `sub` or else `client_id`, no claim narrowing it.
    pub fn stored() -> Self {
        Self::from_raw(RawMapping {
            principal_claims: None,
            profile: None,
            surface_claim: None,
            scopes: BTreeMap::new(),
            step_up: Vec::new(),
            providers_claim: None,
        })
        .expect("the default mapping is valid")
    }

    fn from_raw(raw: RawMapping<S>) -> Result<Self, MappingError> {
        let principal_claims = match raw.principal_claims {
            None => DEFAULT_PRINCIPAL_CLAIMS.map(str::to_owned).to_vec(),
            Some(claims) if claims.is_empty() => {
                return Err(MappingError::new("`principal_claims` names no claim"));
            }
            Some(claims) => claims,
        };
        let base = base(raw.profile)?;
        let mut scopes = BTreeMap::new();
        for (scope, capabilities) in raw.scopes {
            if !is_scope_token(&scope) {
                return Err(MappingError::new(format!(
                    "scope `{scope}` is not a single scope token (RFC 6749 §3.3)"
                )));
            }
            if capabilities.is_empty() {
                return Err(MappingError::new(format!(
                    "scope `{scope}` grants no capability"
                )));
            }
            scopes.insert(scope, capabilities.into_iter().collect::<BTreeSet<_>>());
        }
        let gated = scopes.values().flatten().copied().collect();
        let mut step_up = BTreeSet::new();
        for scope in raw.step_up {
            if !scopes.contains_key(&scope) {
                return Err(MappingError::new(format!(
                    "step-up scope `{scope}` is not one of `scopes`"
                )));
            }
            if !step_up.insert(scope.clone()) {
                return Err(MappingError::new(format!(
                    "step-up scope `{scope}` is listed twice"
                )));
            }
        }
        Ok(ClaimMapping {
            principal_claims,
            base,
            surface_claim: raw.surface_claim,
            scopes,
            gated,
            step_up,
            providers_claim: raw.providers_claim,
        })
    }

    /// The scopes of [`scopes`](Self) a client may be asked for.
    pub fn step_up_scopes(&self) -> impl Iterator<Item = &str> {
        self.step_up.iter().map(String::as_str)
    }

    /// Every scope the mapping knows, for the resource metadata's
    /// `scopes_supported`.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.scopes.keys().map(String::as_str)
    }

    /// Where `token`'s requests are served, or why they are not.
    pub(crate) fn profile(&self, token: &AccessToken) -> Result<TokenProfile<S>, MappingRefusal> {
        self.profile_with(token, token.scopes())
    }

    /// Like [`profile`](Self::profile), as if the token had `scopes`.
    pub(crate) fn profile_with(
        &self,
        token: &AccessToken,
        scopes: &BTreeSet<String>,
    ) -> Result<TokenProfile<S>, MappingRefusal> {
        let principal = self.principal(token)?;
        let surface = self.surface(token)?;
        let granted: BTreeSet<S::Capability> = scopes
            .iter()
            .filter_map(|scope| self.scopes.get(scope))
            .flatten()
            .copied()
            .collect();
        let withheld = self.gated.difference(&granted).copied().collect();
        let providers = self.providers(token)?;
        let narrowing = Narrowing::new(withheld, providers);
        Ok(match &self.base {
            Base::Stored => TokenProfile::Stored {
                principal,
                narrowing,
                surface,
            },
            Base::Ceiling(ceiling) => {
                let context = narrowing.apply(ceiling);
                TokenProfile::Derived {
                    principal,
                    context: surface.map_or(context, |surface| context.with_surface(surface)),
                }
            }
        })
    }

    /// The step-up scopes `token` lacks.
    pub(crate) fn missing_step_up(&self, token: &AccessToken) -> Vec<&str> {
        self.step_up
            .iter()
            .filter(|scope| !token.has_scope(scope))
            .map(String::as_str)
            .collect()
    }

    /// The principal the token names: the first principal claim's value
    /// as it is, a later one's as `{claim}.{value}`, so that principals
    /// named by different claims never collide (a client whose `client_id`
    /// is a user's `sub` does not reach that user's profile). A first
    /// claim's value that begins with a later claim's `{claim}.` would read
    /// as that claim's principal, and is refused.
    fn principal(&self, token: &AccessToken) -> Result<String, MappingRefusal> {
        for (position, claim) in self.principal_claims.iter().enumerate() {
            match token.claims().get(claim) {
                Some(Value::String(name)) if !name.is_empty() && position > 0 => {
                    return Ok(format!("{claim}.{name}"));
                }
                Some(Value::String(name)) if !name.is_empty() => {
                    let later = &self.principal_claims[1..];
                    if let Some(other) = later.iter().find(|other| {
                        name.strip_prefix(other.as_str())
                            .is_some_and(|rest| rest.starts_with('.'))
                    }) {
                        return Err(MappingRefusal(format!(
                            "the token's `{claim}` `{name}` would read as a `{other}` principal, \
                             and is refused as ambiguous"
                        )));
                    }
                    return Ok(name.clone());
                }
                None => {}
                Some(_) => {
                    return Err(MappingRefusal(format!(
                        "the token's `{claim}` is not a non-empty string"
                    )));
                }
            }
        }
        Err(MappingRefusal(format!(
            "the token names no principal (no {})",
            self.principal_claims
                .iter()
                .map(|claim| format!("`{claim}`"))
                .collect::<Vec<_>>()
                .join(" or ")
        )))
    }

    fn surface(&self, token: &AccessToken) -> Result<Option<S::Surface>, MappingRefusal> {
        let Some(claim) = &self.surface_claim else {
            return Ok(None);
        };
        match token.claims().get(claim) {
            Some(Value::String(name)) => S::Surface::parse_wire_name(name)
                .map(Some)
                .map_err(|unknown| MappingRefusal(format!("the token's `{claim}`: {unknown}"))),
            Some(_) => Err(MappingRefusal(format!(
                "the token's `{claim}` is not a string"
            ))),
            None => Err(MappingRefusal(format!("the token has no `{claim}` claim"))),
        }
    }

    fn providers(
        &self,
        token: &AccessToken,
    ) -> Result<Option<BTreeSet<S::Provider>>, MappingRefusal> {
        let Some(claim) = &self.providers_claim else {
            return Ok(None);
        };
        let names: Vec<&str> = match token.claims().get(claim) {
            None => Vec::new(),
            Some(Value::String(list)) => list.split(' ').filter(|s| !s.is_empty()).collect(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| {
                    item.as_str().ok_or_else(|| {
                        MappingRefusal(format!("the token's `{claim}` lists a non-string"))
                    })
                })
                .collect::<Result<_, _>>()?,
            Some(_) => {
                return Err(MappingRefusal(format!(
                    "the token's `{claim}` is neither a string nor an array"
                )));
            }
        };
        names
            .into_iter()
            .map(|name| {
                S::Provider::parse_wire_name(name)
                    .map_err(|unknown| MappingRefusal(format!("the token's `{claim}`: {unknown}")))
            })
            .collect::<Result<_, _>>()
            .map(Some)
    }
}

impl<S: Vocabulary> fmt::Debug for ClaimMapping<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let base = match &self.base {
            Base::Stored => "stored".to_owned(),
            Base::Ceiling(ceiling) => ceiling.to_json(),
        };
        f.debug_struct("ClaimMapping")
            .field("principal_claims", &self.principal_claims)
            .field("profile", &base)
            .field("surface_claim", &self.surface_claim)
            .field("scopes", &self.scopes.keys().collect::<Vec<_>>())
            .field("step_up", &self.step_up)
            .field("providers_claim", &self.providers_claim)
            .finish()
    }
}

/// A [`ClaimMapping`] that could not be decoded: names the bad field or
/// value.
#[derive(Debug)]
pub struct MappingError(String);

impl MappingError {
    fn new(why: impl Into<String>) -> Self {
        MappingError(why.into())
    }

    fn json(error: serde_json::Error) -> Self {
        MappingError(error.to_string())
    }
}

impl fmt::Display for MappingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "oauth claim mapping: {}", self.0)
    }
}

impl std::error::Error for MappingError {}

/// Why a valid token maps to no profile: the 403's reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MappingRefusal(pub(crate) String);

impl fmt::Display for MappingRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
