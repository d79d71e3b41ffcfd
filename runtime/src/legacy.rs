//! Legacy aliases: mode strings, the ask-question switch and provider lists,
//! mapped onto typed contexts.
//!
//! Servers that grew a `switch` over modes keep accepting those strings; each
//! mode is one declared alias for a surface plus the capabilities the mode
//! decides. A mode change replaces only mode-decided capabilities, so
//! additive ones granted elsewhere (say, `parent-question`) survive it.

use std::fmt;

use crate::{ContextError, ProfileContext, Term, UnknownName, Vocabulary};

/// The legacy entry points of one server: its modes and provider names.
///
/// ```
/// # mod server { #[derive(Clone)] pub struct Demo; }
/// # use server::Demo;
/// # mcp_profiles::vocabulary! {
/// #     server Demo;
/// #     #[surfaces] pub enum Surface { KanbanTask, Configuration, External }
/// #     #[capabilities] pub enum Capability { UserQuestion, #[exclusive_with(UserQuestion)] ParentQuestion, TaskTitle }
/// #     #[providers] pub enum Provider { Github, Gitlab }
/// # }
/// use mcp_profiles::{LegacyAliases, ProfileContext};
///
/// let legacy = LegacyAliases::<Demo>::new()
///     .question_capability(Capability::UserQuestion)
///     .mode("task", Surface::KanbanTask, [])
///     .mode("task-title-pending", Surface::KanbanTask, [Capability::TaskTitle])
///     .mode("config", Surface::Configuration, [])
///     .mode_without_question("external", Surface::External, []);
///
/// let titled = legacy.context_for_mode("task-title-pending", false)?;
/// assert_eq!(
///     titled.to_json(),
///     r#"{"surface":"kanban-task","capabilities":["user-question","task-title"],"providers":[]}"#
/// );
/// let with_providers = legacy.apply_providers(&titled, [" GitHub", "gitlab"])?;
/// assert_eq!(with_providers.providers().count(), 2);
/// assert_eq!(
///     legacy.apply_mode(&titled, "chat", false).unwrap_err().to_string(),
///     "unknown mode `chat`; expected one of: task, task-title-pending, config, external"
/// );
/// # Ok::<(), mcp_profiles::LegacyError>(())
/// ```
pub struct LegacyAliases<V: Vocabulary> {
    modes: Vec<ModeAlias<V>>,
    question: Option<V::Capability>,
}

struct ModeAlias<V: Vocabulary> {
    name: &'static str,
    surface: V::Surface,
    capabilities: u64,
    asks_question: bool,
}

/// A legacy input that names something unknown or builds an invalid context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LegacyError {
    /// The mode string is not a declared alias.
    UnknownMode {
        /// The mode given.
        mode: String,
        /// The declared modes.
        expected: Vec<&'static str>,
    },
    /// A provider name that is not in the vocabulary, after normalisation.
    UnknownProvider(UnknownName),
    /// The resulting context would be invalid (an exclusive pair).
    Context(ContextError),
    /// A mode was given to a server that declares no legacy modes.
    NoModes {
        /// The mode given.
        mode: String,
    },
}

impl fmt::Display for LegacyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LegacyError::UnknownMode { mode, expected } => write!(
                f,
                "unknown mode `{mode}`; expected one of: {}",
                expected.join(", ")
            ),
            LegacyError::UnknownProvider(err) => err.fmt(f),
            LegacyError::Context(err) => err.fmt(f),
            LegacyError::NoModes { mode } => {
                write!(
                    f,
                    "unknown mode `{mode}`; this server declares no legacy modes"
                )
            }
        }
    }
}

impl std::error::Error for LegacyError {}

impl From<ContextError> for LegacyError {
    fn from(err: ContextError) -> Self {
        LegacyError::Context(err)
    }
}

impl<V: Vocabulary> Default for LegacyAliases<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V: Vocabulary> LegacyAliases<V> {
    /// No modes yet.
    pub fn new() -> Self {
        LegacyAliases {
            modes: Vec::new(),
            question: None,
        }
    }

    /// The capability a mode grants unless `disable_ask_question` is set.
    pub fn question_capability(mut self, capability: V::Capability) -> Self {
        self.question = Some(capability);
        self
    }

    /// A mode: its surface, the capabilities it decides, and the question
    /// capability unless the caller disables it.
    pub fn mode(
        self,
        name: &'static str,
        surface: V::Surface,
        capabilities: impl IntoIterator<Item = V::Capability>,
    ) -> Self {
        self.push(name, surface, capabilities, true)
    }

    /// A mode that never grants the question capability.
    pub fn mode_without_question(
        self,
        name: &'static str,
        surface: V::Surface,
        capabilities: impl IntoIterator<Item = V::Capability>,
    ) -> Self {
        self.push(name, surface, capabilities, false)
    }

    fn push(
        mut self,
        name: &'static str,
        surface: V::Surface,
        capabilities: impl IntoIterator<Item = V::Capability>,
        asks_question: bool,
    ) -> Self {
        self.modes.push(ModeAlias {
            name,
            surface,
            capabilities: capabilities.into_iter().fold(0, |bits, c| bits | c.bit()),
            asks_question,
        });
        self
    }

    /// The declared mode names, in declaration order.
    pub fn mode_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.modes.iter().map(|mode| mode.name)
    }

    /// The context a fresh session in `mode` gets (no providers).
    pub fn context_for_mode(
        &self,
        mode: &str,
        disable_ask_question: bool,
    ) -> Result<ProfileContext<V>, LegacyError> {
        let alias = self.find(mode)?;
        self.switch(
            ProfileContext::new(alias.surface),
            alias,
            disable_ask_question,
        )
    }

    /// `current` switched to `mode`: surface and mode-decided capabilities
    /// replaced, other capabilities and providers kept.
    pub fn apply_mode(
        &self,
        current: &ProfileContext<V>,
        mode: &str,
        disable_ask_question: bool,
    ) -> Result<ProfileContext<V>, LegacyError> {
        let alias = self.find(mode)?;
        self.switch(*current, alias, disable_ask_question)
    }

    /// `current` with exactly the given providers attached. Names are
    /// trimmed and lower-cased (`" GitHub"` is `github`); duplicates collapse;
    /// an unknown name is an error.
    pub fn apply_providers<I>(
        &self,
        current: &ProfileContext<V>,
        providers: I,
    ) -> Result<ProfileContext<V>, LegacyError>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let providers = providers
            .into_iter()
            .map(|name| normalise_provider::<V>(name.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(current.replace_providers(providers))
    }

    fn find(&self, mode: &str) -> Result<&ModeAlias<V>, LegacyError> {
        self.modes
            .iter()
            .find(|alias| alias.name == mode)
            .ok_or_else(|| LegacyError::UnknownMode {
                mode: mode.to_owned(),
                expected: self.mode_names().collect(),
            })
    }

    /// Every capability some mode decides.
    fn mode_decided(&self) -> u64 {
        let question = self.question.map_or(0, Term::bit);
        self.modes
            .iter()
            .fold(question, |bits, alias| bits | alias.capabilities)
    }

    fn switch(
        &self,
        current: ProfileContext<V>,
        alias: &ModeAlias<V>,
        disable_ask_question: bool,
    ) -> Result<ProfileContext<V>, LegacyError> {
        let decided = self.mode_decided();
        let kept = current
            .capabilities()
            .filter(|capability| capability.bit() & decided == 0);
        let question = self
            .question
            .filter(|_| alias.asks_question && !disable_ask_question);
        let granted = V::Capability::from_mask(alias.capabilities).chain(question);
        let base = ProfileContext::new(alias.surface).replace_providers(current.providers());
        Ok(base.with_capabilities(kept.chain(granted))?)
    }
}

fn normalise_provider<V: Vocabulary>(name: &str) -> Result<V::Provider, LegacyError> {
    V::Provider::parse_wire_name(&name.trim().to_ascii_lowercase()).map_err(|_| {
        LegacyError::UnknownProvider(UnknownName::new(
            crate::TermKind::Provider,
            name,
            V::Provider::NAMES,
        ))
    })
}
