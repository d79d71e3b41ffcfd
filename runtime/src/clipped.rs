//! Client-supplied strings in errors and logs, cut to a bounded length.

/// How many characters of a client-supplied string an error echoes.
const ECHOED_CHARS: usize = 64;

/// A client-supplied string as an error message (or a log line) echoes it:
/// at most its first 64 characters, then `…` and its length in bytes, so
/// that a huge name cannot make a huge error.
///
/// ```
/// use mcp_profiles::Clipped;
///
/// assert_eq!(Clipped("short").to_string(), "short");
/// let long = "x".repeat(100);
/// assert_eq!(Clipped(&long).to_string(), format!("{}… (100 bytes)", "x".repeat(64)));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Clipped<'a>(pub &'a str);

impl std::fmt::Display for Clipped<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.char_indices().nth(ECHOED_CHARS) {
            None => f.write_str(self.0),
            Some((end, _)) => write!(f, "{}… ({} bytes)", &self.0[..end], self.0.len()),
        }
    }
}
