//! Kandev's legacy mode strings, the ask-question switch and provider lists,
//! mapped onto typed contexts.
//!
//! Kandev's MCP server grew a `switch` over modes; typed profiles replace it,
//! and the old strings stay accepted as aliases. The table lives here, in the
//! example: the library knows no modes. A live change goes through
//! [`ProfileController::update`], so reading the current context and
//! replacing it is one serialised step.

use std::fmt;

use mcp_profiles::{ContextError, ProfileContext, ProfileController, Replacement, UnknownName};

use crate::server::{Capability, Kandev, Provider, Surface};

/// One legacy mode: its surface, the capabilities it decides, whether it
/// grants `user-question` (unless the caller disables asking), and whether
/// a switch into it keeps the capabilities it does not decide.
struct Mode {
    name: &'static str,
    surface: Surface,
    capabilities: &'static [Capability],
    asks_user: bool,
    keeps_other_capabilities: bool,
}

/// The modes Kandev's `switch` knew:
///
/// | mode | context |
/// |---|---|
/// | `task` | kanban-task (+ user-question unless disabled) |
/// | `task-title-pending` | kanban-task + task-title (+ user-question unless disabled) |
/// | `config` | configuration (+ user-question unless disabled) |
/// | `office` | office-task (+ user-question unless disabled) |
/// | `external` | external, never a question tool |
/// | `automation` | automation, no capability at all |
/// | `coordinator` | coordinator, no capability at all |
///
/// Kandev never adds user-question on automation or coordinator, and a
/// switch into automation drops every capability. Its catalog says so of
/// automation only; coordinator does the same here, failing closed.
const MODES: &[Mode] = &[
    Mode {
        name: "task",
        surface: Surface::KanbanTask,
        capabilities: &[],
        asks_user: true,
        keeps_other_capabilities: true,
    },
    Mode {
        name: "task-title-pending",
        surface: Surface::KanbanTask,
        capabilities: &[Capability::TaskTitle],
        asks_user: true,
        keeps_other_capabilities: true,
    },
    Mode {
        name: "config",
        surface: Surface::Configuration,
        capabilities: &[],
        asks_user: true,
        keeps_other_capabilities: true,
    },
    Mode {
        name: "office",
        surface: Surface::OfficeTask,
        capabilities: &[],
        asks_user: true,
        keeps_other_capabilities: true,
    },
    Mode {
        name: "external",
        surface: Surface::External,
        capabilities: &[],
        asks_user: false,
        keeps_other_capabilities: true,
    },
    Mode {
        name: "automation",
        surface: Surface::Automation,
        capabilities: &[],
        asks_user: false,
        keeps_other_capabilities: false,
    },
    Mode {
        name: "coordinator",
        surface: Surface::Coordinator,
        capabilities: &[],
        asks_user: false,
        keeps_other_capabilities: false,
    },
];

/// Capabilities a mode decides; a mode change replaces exactly these and
/// keeps every other capability (say, `parent-question`).
const MODE_DECIDED: &[Capability] = &[Capability::UserQuestion, Capability::TaskTitle];

/// The legacy mode names, in table order.
pub fn mode_names() -> impl Iterator<Item = &'static str> {
    MODES.iter().map(|mode| mode.name)
}

/// A legacy input that names something unknown or builds an invalid context.
#[derive(Debug)]
#[non_exhaustive]
pub enum LegacyError {
    /// The mode string is not one of [`mode_names`].
    UnknownMode {
        /// The mode given.
        mode: String,
    },
    /// A provider name that is not in the vocabulary, after normalisation.
    UnknownProvider(UnknownName),
    /// The resulting context would be invalid (an exclusive pair).
    Context(ContextError),
}

impl fmt::Display for LegacyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LegacyError::UnknownMode { mode } => {
                let expected: Vec<&str> = mode_names().collect();
                write!(
                    f,
                    "unknown mode `{mode}`; expected one of: {}",
                    expected.join(", ")
                )
            }
            LegacyError::UnknownProvider(err) => err.fmt(f),
            LegacyError::Context(err) => err.fmt(f),
        }
    }
}

impl std::error::Error for LegacyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LegacyError::UnknownMode { .. } => None,
            LegacyError::UnknownProvider(err) => Some(err),
            LegacyError::Context(err) => Some(err),
        }
    }
}

impl From<ContextError> for LegacyError {
    fn from(err: ContextError) -> Self {
        LegacyError::Context(err)
    }
}

fn find(mode: &str) -> Result<&'static Mode, LegacyError> {
    MODES
        .iter()
        .find(|known| known.name == mode)
        .ok_or_else(|| LegacyError::UnknownMode {
            mode: mode.to_owned(),
        })
}

/// The context a fresh session in `mode` gets (no providers).
///
/// ```
/// let titled = kandev_mcp::legacy::context_for_mode("task-title-pending", false)?;
/// assert_eq!(
///     titled.to_json(),
///     r#"{"surface":"kanban-task","capabilities":["user-question","task-title"],"providers":[]}"#
/// );
/// # Ok::<(), kandev_mcp::legacy::LegacyError>(())
/// ```
pub fn context_for_mode(
    mode: &str,
    disable_ask_question: bool,
) -> Result<ProfileContext<Kandev>, LegacyError> {
    let mode = find(mode)?;
    switch(
        ProfileContext::new(mode.surface),
        mode,
        disable_ask_question,
    )
}

/// `current` switched to `mode`: the surface and the mode-decided
/// capabilities replaced, other capabilities (unless the mode drops them
/// all), the providers and the policy kept (a mode switch never lifts a
/// restriction the backend set).
pub fn apply_mode(
    current: &ProfileContext<Kandev>,
    mode: &str,
    disable_ask_question: bool,
) -> Result<ProfileContext<Kandev>, LegacyError> {
    switch(*current, find(mode)?, disable_ask_question)
}

/// `current` with exactly the given providers attached. Names are trimmed
/// and lower-cased (`" GitHub"` is `github`); duplicates collapse; an unknown
/// name is an error naming it as given.
pub fn apply_providers<I>(
    current: &ProfileContext<Kandev>,
    providers: I,
) -> Result<ProfileContext<Kandev>, LegacyError>
where
    I: IntoIterator,
    I::Item: AsRef<str>,
{
    let providers = providers
        .into_iter()
        .map(|name| normalise_provider(name.as_ref()))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(current.replace_providers(providers))
}

/// Legacy `set_mode` on a live agent: one serialised read-modify-write.
/// An unknown mode, or a mode that would grant `user-question` to a session
/// holding `parent-question`, is an error and changes nothing.
pub fn set_mode(
    controller: &ProfileController<Kandev>,
    mode: &str,
    disable_ask_question: bool,
) -> Result<Replacement<Kandev>, LegacyError> {
    controller.update(|current| apply_mode(current, mode, disable_ask_question))
}

/// Legacy `set_providers` on a live agent: exactly these providers
/// (normalised); an unknown name is an error and changes nothing.
pub fn set_providers<I>(
    controller: &ProfileController<Kandev>,
    providers: I,
) -> Result<Replacement<Kandev>, LegacyError>
where
    I: IntoIterator,
    I::Item: AsRef<str>,
{
    controller.update(|current| apply_providers(current, providers))
}

fn switch(
    current: ProfileContext<Kandev>,
    mode: &Mode,
    disable_ask_question: bool,
) -> Result<ProfileContext<Kandev>, LegacyError> {
    let kept = current
        .capabilities()
        .filter(|capability| mode.keeps_other_capabilities && !MODE_DECIDED.contains(capability));
    let asks = (mode.asks_user && !disable_ask_question).then_some(Capability::UserQuestion);
    let granted = mode.capabilities.iter().copied().chain(asks);
    let base = ProfileContext::new(mode.surface)
        .replace_providers(current.providers())
        .with_policy(current.policy());
    Ok(base.with_capabilities(kept.chain(granted))?)
}

fn normalise_provider(name: &str) -> Result<Provider, LegacyError> {
    let normalised = name.trim().to_ascii_lowercase();
    normalised.parse::<Provider>().map_err(|err| {
        // Name the value as the caller wrote it, not as normalised.
        LegacyError::UnknownProvider(UnknownName::new(err.kind(), name, err.expected()))
    })
}
