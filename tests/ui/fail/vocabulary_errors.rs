pub struct Server;

mcp_profiles::vocabulary! {
    server Server;

    #[surfaces]
    pub enum Surface { KanbanTask, #[rename = "Kanban Task"] Other }

    #[capabilities]
    pub enum Capability {
        UserQuestion,
        #[exclusive_with(UserQuestoin)]
        ParentQuestion,
    }

    pub enum Provider { Github }
}

fn main() {}
