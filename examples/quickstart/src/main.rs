//! A small runnable example: declare a vocabulary, annotate four
//! groups of rmcp tools, and print what each session profile can reach.

mod tools;

use mcp_profiles::{ContextError, ProfileContext, Vocabulary};

/// The rmcp handler type whose tools are grouped.
#[derive(Clone, Default)]
pub struct Tasks;

mcp_profiles::vocabulary! {
    server Tasks;

    #[surfaces]
    pub enum Surface { KanbanTask, External }

    #[capabilities]
    pub enum Capability {
        UserQuestion,
        #[exclusive_with(UserQuestion)]
        ParentQuestion,
    }

    #[providers]
    pub enum Provider { Github }
}

fn main() -> Result<(), ContextError> {
    let registry = Tasks::registry();
    let contexts = [
        ProfileContext::<Tasks>::new(Surface::KanbanTask)
            .with_capability(Capability::UserQuestion)?,
        ProfileContext::new(Surface::KanbanTask)
            .with_capability(Capability::ParentQuestion)?
            .with_provider(Provider::Github),
        ProfileContext::new(Surface::External),
    ];
    for context in contexts {
        let profile = registry.assemble(&context);
        println!("{}", context.to_json());
        println!("  tools: {}", profile.tool_names().join(", "));
    }
    let child =
        ProfileContext::new(Surface::KanbanTask).with_capability(Capability::ParentQuestion)?;
    println!("\nwhy, for {child}:");
    print!("{}", registry.explain(&child));
    Ok(())
}
