//! `#[tool_group(include("group", "group": ["tool", ...]), exclude = [...])]`:
//! a group that shares tools of other groups (the same definitions, not
//! copies), whole or some, less the names it excludes. Parsed and checked
//! here as far as this impl block can see; what needs the included groups
//! (does the group have that tool, does any included group expose that
//! excluded name, are two definitions of one name on together) is checked
//! at compile time by the registration macro's constants.

mod expand;
mod parse;
mod validate;

pub(crate) use expand::expand;
pub(crate) use parse::take;
pub(crate) use validate::{Compose, validate};
