//! The process's open-file limit, which every accepted connection counts
//! against, and what is already open under it: see [`raise_file_limit`].

use std::fmt;
use std::io;

/// Raises this process's soft open-file limit (`RLIMIT_NOFILE`) to its hard
/// limit, as Go's runtime and most servers do at start, and returns the
/// soft limit in force afterwards; `None` where the platform has no such
/// limit (Windows).
///
/// The default soft limit (often 1024) dates from `select`'s fixed-size
/// sets; an epoll or kqueue server has no reason to keep it, and the hard
/// limit is what the administrator actually granted. On macOS the limit
/// raised to is also bounded by `kern.maxfilesperproc`, which `setrlimit`
/// enforces without `getrlimit` reporting it.
///
/// Failing to raise (a hard limit of "unlimited" above what the kernel
/// allows, say) is not an error: the limit that stays in force is returned,
/// since that is the one the process must live within.
///
/// A listener whose connection cap is above what the process may open fails
/// its accepts with `EMFILE` before the cap is reached, and so does every
/// other listener of the process: a saturated MCP port then starves a
/// control API however small its own cap. Raise the limit at start, then
/// fit the cap under what is left once everything else the process holds
/// is set aside, with
/// [`Limits::within_file_limit`](super::Limits::within_file_limit):
///
/// ```
/// use mcp_profiles_serve::http::{Limits, open_files, raise_file_limit};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// // What this process holds besides the listener's connections: here a
/// // second listener of 32 connections and 16 spare descriptors, and
/// // whatever is open now (64 when that cannot be counted).
/// let reserve = 32 + 16 + open_files().unwrap_or(64);
/// let mut limits = Limits::default();
/// if let Some(file_limit) = raise_file_limit()? {
///     limits = limits.within_file_limit(file_limit, reserve)?;
/// }
/// assert!(limits.max_connections() <= 512);
/// # Ok(())
/// # }
/// ```
///
/// # Errors
///
/// When the limit cannot be read at all (`getrlimit` fails).
pub fn raise_file_limit() -> io::Result<Option<u64>> {
    #[cfg(unix)]
    {
        use rlimit::Resource;

        if !Resource::NOFILE.is_supported() {
            return Ok(None);
        }
        let (soft, hard) = Resource::NOFILE.get()?;
        match rlimit::increase_nofile_limit(hard) {
            Ok(raised) => Ok(Some(raised)),
            Err(error) => {
                tracing::debug!(%error, soft, hard, "cannot raise the open-file limit; keeping it");
                Ok(Some(soft))
            }
        }
    }
    #[cfg(not(unix))]
    {
        Ok(None)
    }
}

/// How many file descriptors this process has open now, not counting the
/// one used to list them; `None` where they cannot be listed.
///
/// Read from `/proc/self/fd` on Linux and Android, `/dev/fd` on macOS and
/// iOS. Elsewhere `/dev/fd` may list only the standard streams (FreeBSD
/// without `fdescfs`), which would undercount, so this says `None` and the
/// caller reserves a fixed number instead. The count is a snapshot: call it
/// at start, before the process opens what its reserve already covers.
pub fn open_files() -> Option<u64> {
    let dir = if cfg!(any(target_os = "linux", target_os = "android")) {
        "/proc/self/fd"
    } else if cfg!(target_vendor = "apple") {
        "/dev/fd"
    } else {
        return None;
    };
    let listed = std::fs::read_dir(dir).ok()?.count();
    // The listing holds a descriptor of its own, which it includes.
    Some(u64::try_from(listed).unwrap_or(u64::MAX).saturating_sub(1))
}

/// The open-file limit leaves no descriptor for a listener's connections
/// once the reserve is set aside: see
/// [`Limits::within_file_limit`](super::Limits::within_file_limit).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct NoRoomForConnections {
    /// The open-file limit in force.
    pub file_limit: u64,
    /// The descriptors set aside for everything but the connections.
    pub reserve: u64,
}

impl fmt::Display for NoRoomForConnections {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the open-file limit is {} and {} descriptors are reserved for the rest of the \
             process, which leaves none for connections; raise the limit (ulimit -n) above {}",
            self.file_limit, self.reserve, self.reserve
        )
    }
}

impl std::error::Error for NoRoomForConnections {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(any(target_os = "linux", target_vendor = "apple"))]
    fn open_files_counts_what_this_process_holds() {
        // Other tests open and close descriptors meanwhile, so only a lower
        // bound holds: the 40 below and the standard streams.
        let held: Vec<_> = (0..40)
            .map(|_| std::fs::File::open("/dev/null").unwrap())
            .collect();
        let open = open_files().expect("countable here");
        assert!(open >= 43, "{open}");
        drop(held);
    }

    #[test]
    #[cfg(unix)]
    fn raise_file_limit_leaves_the_soft_limit_at_the_hard_one() {
        let raised = raise_file_limit().unwrap().expect("unix has RLIMIT_NOFILE");
        let (soft, hard) = rlimit::Resource::NOFILE.get().unwrap();
        assert_eq!(raised, soft);
        // Raising can fail only for an "unlimited" hard limit the kernel
        // will not grant; a finite one is always reached (within macOS's
        // per-process bound).
        if cfg!(target_os = "linux") && hard != rlimit::INFINITY {
            assert_eq!(soft, hard);
        }
    }

    #[test]
    fn the_error_names_the_limit_and_the_reserve() {
        let error = NoRoomForConnections {
            file_limit: 40,
            reserve: 52,
        };
        let message = error.to_string();
        assert!(message.contains("limit is 40"), "{message}");
        assert!(message.contains("52 descriptors are reserved"), "{message}");
    }
}
