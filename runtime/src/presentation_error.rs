//! Why a presentation could not be made or attached.

use std::fmt;

use crate::clipped::Clipped;

/// Why a [`Presentation`](crate::Presentation) was refused: a bad
/// transform, or two tools a client could no longer tell apart. Each names
/// the values at fault; whatever it was refused for changed nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PresentationError {
    /// The suffix of [`Presentation::strip_suffix`](crate::Presentation::strip_suffix)
    /// is empty, too long or holds a character no tool name can.
    InvalidSuffix {
        /// The suffix given.
        suffix: String,
    },
    /// Tool `tool` would be listed as `presented`, which is the canonical
    /// name of another tool.
    ShadowsTool {
        /// The tool whose presented name collides.
        tool: String,
        /// Its presented name: also another tool's own name.
        presented: String,
    },
    /// Two tools would be listed under one name.
    SharedName {
        /// One tool.
        first: String,
        /// The other.
        second: String,
        /// The name both would be listed as.
        presented: String,
    },
    /// Tool `tool` would be listed as `name`, the name of one of tool
    /// search's own tools ([`ToolSearch`](crate::ToolSearch)).
    ReservedBySearch {
        /// The tool.
        tool: String,
        /// The search tool's name it would be listed as.
        name: String,
    },
}

impl fmt::Display for PresentationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PresentationError::InvalidSuffix { suffix } => write!(
                f,
                "suffix `{}` is not a tool-name suffix: it needs 1 to 128 of A-Z, a-z, 0-9, `_`, `-` and `.`",
                Clipped(suffix)
            ),
            PresentationError::ShadowsTool { tool, presented } => write!(
                f,
                "tool `{}` would be listed as `{}`, which is another tool's name",
                Clipped(tool),
                Clipped(presented)
            ),
            PresentationError::SharedName {
                first,
                second,
                presented,
            } => write!(
                f,
                "tools `{}` and `{}` would both be listed as `{}`",
                Clipped(first),
                Clipped(second),
                Clipped(presented)
            ),
            PresentationError::ReservedBySearch { tool, name } => write!(
                f,
                "tool `{}` would be listed as `{}`, the name of a tool search tool; rename one",
                Clipped(tool),
                Clipped(name)
            ),
        }
    }
}

impl std::error::Error for PresentationError {}
