//! What an agent could reach, when, and proof that every call agreed: the
//! past rebuilt from the audit trail ([`past`]), and the decision log
//! judged against it ([`verify`]). Above the stores: it reads any
//! [`AgentStore`](crate::AgentStore)'s trail.

pub mod past;
pub mod verify;
