//! The resolver: what the backend knows about a session, in; the profile
//! context it gets, out. The agent never chooses.

use mcp_profiles::ProfileContext;
use serde::{Deserialize, Serialize};

use crate::server::{Capability, Kandev, Provider, Surface};
use crate::store::Task;

/// Why a session exists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Purpose {
    /// Work on a kanban task.
    #[default]
    Task,
    /// A configuration chat.
    Config,
    /// An office task.
    Office,
}

/// What the backend knows about one agent session.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SessionFacts {
    /// Why the session exists.
    pub purpose: Purpose,
    /// The agent runs without a person watching.
    pub autopilot: bool,
    /// The task has a direct parent task.
    pub has_direct_parent: bool,
    /// The agent's own UI handles questions; Kandev adds no question tool.
    pub passthrough: bool,
    /// This session owns the task's title.
    pub title_owner: bool,
    /// Attached code hosts.
    pub providers: Vec<Provider>,
}

/// Kandev's rules:
///
/// - config → `configuration`, with user-question unless passthrough, and no
///   providers;
/// - otherwise `office-task` for office and `kanban-task` for task;
/// - autopilot → parent-question when the task has a direct parent and is not
///   passthrough, else no question capability;
/// - not autopilot → user-question unless passthrough;
/// - task-title when the session owns the title on `kanban-task`;
/// - providers as attached.
pub fn resolve(facts: &SessionFacts) -> ProfileContext<Kandev> {
    let question = |granted: bool, capability: Capability| granted.then_some(capability);
    let context = match facts.purpose {
        Purpose::Config => ProfileContext::new(Surface::Configuration)
            .with_capabilities(question(!facts.passthrough, Capability::UserQuestion)),
        purpose => {
            let surface = if purpose == Purpose::Office {
                Surface::OfficeTask
            } else {
                Surface::KanbanTask
            };
            let asks = if facts.autopilot {
                question(
                    facts.has_direct_parent && !facts.passthrough,
                    Capability::ParentQuestion,
                )
            } else {
                question(!facts.passthrough, Capability::UserQuestion)
            };
            let title = question(
                facts.title_owner && surface == Surface::KanbanTask,
                Capability::TaskTitle,
            );
            ProfileContext::new(surface)
                .with_capabilities(asks.into_iter().chain(title))
                .map(|context| context.with_providers(facts.providers.iter().copied()))
        }
    };
    // At most one question capability is ever granted, so this cannot clash.
    context.expect("the resolver never grants exclusive capabilities together")
}

/// Why a session of a stored task exists; whether it is an office session
/// is the task's to say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LaunchPurpose {
    /// Work on the task.
    #[default]
    Task,
    /// A configuration chat.
    Config,
}

/// What the launch of a session on a stored task says beyond the task's
/// row. Together with the row it gives the [`SessionFacts`]; neither it nor
/// the profile is ever stored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Launch {
    /// Why the session exists.
    pub purpose: LaunchPurpose,
    /// The session's id: it owns the title when the task names it.
    pub session: Option<String>,
    /// The agent's own UI handles questions.
    pub passthrough: bool,
}

impl Launch {
    /// The facts of this launch on `task` as stored, with `providers`
    /// attached: office from the task, autopilot from the task, a direct
    /// parent if it has one, title ownership if it names this session.
    pub fn facts(&self, task: &Task, providers: Vec<Provider>) -> SessionFacts {
        let purpose = match self.purpose {
            LaunchPurpose::Config => Purpose::Config,
            LaunchPurpose::Task if task.office => Purpose::Office,
            LaunchPurpose::Task => Purpose::Task,
        };
        SessionFacts {
            purpose,
            autopilot: task.autopilot,
            has_direct_parent: task.parent_id.is_some(),
            passthrough: self.passthrough,
            title_owner: self.session.is_some() && task.title_owner_session == self.session,
            providers,
        }
    }
}
