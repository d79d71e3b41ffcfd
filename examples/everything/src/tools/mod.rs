//! The conformance tools, in four groups: nothing lists them, the registry
//! finds them at link time, and the profile decides which are served.

mod client;
mod content;
mod diagnostics;
mod input;
mod notify;
