// The vocabulary every UI case shares; cases include it with `#[path]`.

#[derive(Clone, Default)]
pub struct Kandev;

mcp_profiles::vocabulary! {
    server Kandev;

    #[surfaces]
    pub enum Surface { KanbanTask, OfficeTask, Configuration, External }

    #[capabilities]
    pub enum Capability {
        UserQuestion,
        #[exclusive_with(UserQuestion)]
        ParentQuestion,
        TaskTitle,
    }

    #[providers]
    pub enum Provider { Github, Gitlab }
}
