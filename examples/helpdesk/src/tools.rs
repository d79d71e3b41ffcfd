//! Seven help-desk tools in six groups; the registry finds them at link
//! time, and each agent's profile decides which its sessions list.

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, tool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::Desk;

pub struct Ticket {
    subject: String,
    assignee: Option<String>,
    thread: Vec<String>,
}

/// A ticket, by its number.
#[derive(Deserialize, JsonSchema)]
pub struct TicketId {
    /// The ticket's number (from 1).
    pub ticket: usize,
}

/// A new ticket.
#[derive(Deserialize, JsonSchema)]
pub struct Opening {
    /// What it is about, in a line.
    pub subject: String,
}

/// A ticket and some text for it.
#[derive(Deserialize, JsonSchema)]
pub struct TicketText {
    /// The ticket's number (from 1).
    pub ticket: usize,
    /// The text: a reply, a reason, an assignee or an amount.
    pub text: String,
}

type Answer = Result<CallToolResult, ErrorData>;

fn text(text: impl Into<String>) -> Answer {
    Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
}

impl Desk {
    /// What `change` says of ticket `id`, or that there is no such ticket.
    fn on_ticket(&self, id: usize, change: impl FnOnce(&mut Ticket) -> String) -> Answer {
        let mut tickets = self.tickets.lock().expect("tickets");
        match id.checked_sub(1).and_then(|index| tickets.get_mut(index)) {
            Some(ticket) => text(change(ticket)),
            None => Err(ErrorData::invalid_params(format!("no ticket {id}"), None)),
        }
    }
}

#[tool_group(name = "tickets", surfaces = ["triage", "support"])]
impl Desk {
    #[tool(description = "List the open tickets")]
    async fn list_tickets(&self) -> Answer {
        let tickets = self.tickets.lock().expect("tickets");
        let mut lines = Vec::new();
        for (i, t) in tickets.iter().enumerate() {
            lines.push(format!("{}: {} ({:?})", i + 1, t.subject, t.assignee));
        }
        text(lines.join("\n"))
    }

    #[tool(description = "Read a ticket's thread")]
    async fn read_ticket(&self, Parameters(id): Parameters<TicketId>) -> Answer {
        self.on_ticket(id.ticket, |ticket| ticket.thread.join("\n---\n"))
    }
}

#[tool_group(name = "assignment", surface = "triage")]
impl Desk {
    #[tool(description = "Assign a ticket to a person or team")]
    async fn assign_ticket(&self, Parameters(to): Parameters<TicketText>) -> Answer {
        self.on_ticket(to.ticket, |t| {
            format!("assigned to {}", t.assignee.insert(to.text))
        })
    }
}

#[tool_group(name = "replies", surface = "support")]
impl Desk {
    #[tool(description = "Reply to the customer on a ticket")]
    async fn reply_ticket(&self, Parameters(reply): Parameters<TicketText>) -> Answer {
        self.on_ticket(reply.ticket, |ticket| {
            ticket.thread.push(reply.text);
            format!("{} messages", ticket.thread.len())
        })
    }
}

#[tool_group(name = "escalation", surface = "support", capability = "escalation")]
impl Desk {
    #[tool(description = "Escalate a ticket to a human, saying why")]
    async fn escalate_ticket(&self, Parameters(why): Parameters<TicketText>) -> Answer {
        self.on_ticket(why.ticket, |t| {
            format!("escalated `{}`: {}", t.subject, why.text)
        })
    }
}

#[tool_group(
    name = "refunds",
    surface = "support",
    capability = "refunds",
    provider = "billing"
)]
impl Desk {
    #[tool(description = "Refund an amount to the ticket's customer")]
    async fn refund_order(&self, Parameters(refund): Parameters<TicketText>) -> Answer {
        self.on_ticket(refund.ticket, |t| {
            format!("refunded {} on `{}`", refund.text, t.subject)
        })
    }
}

#[tool_group(name = "self-service", surface = "customer")]
impl Desk {
    #[tool(description = "Open a ticket about a subject")]
    async fn open_ticket(&self, Parameters(open): Parameters<Opening>) -> Answer {
        let mut tickets = self.tickets.lock().expect("tickets");
        let thread = vec![open.subject.clone()];
        tickets.push(Ticket {
            subject: open.subject,
            assignee: None,
            thread,
        });
        text(format!("ticket {}", tickets.len()))
    }
}
