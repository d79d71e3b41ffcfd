//! The operator's kill switch through the store: one deny list over every
//! agent of every instance, with a version of its own that grows by one
//! with every put (0: never set), changed by compare-and-set like an
//! agent's profile.

use mcp_profiles::{DenyList, Vocabulary};

use super::StoreError;

/// The kill switch as the store holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoredKillSwitch {
    /// The tool and tool group names it denies, sorted and duplicate-free.
    pub names: Vec<String>,
    /// Its version: 0 before the first put, then one more with each put.
    pub version: u64,
}

impl StoredKillSwitch {
    /// The switch as stored: `names` and `version`.
    pub fn new(names: Vec<String>, version: u64) -> Self {
        StoredKillSwitch { names, version }
    }

    /// The stored form of `killed` at `version`.
    pub(crate) fn of<S: Vocabulary>(killed: DenyList<S>, version: u64) -> Self {
        StoredKillSwitch {
            names: killed.names().iter().map(|&name| name.to_owned()).collect(),
            version,
        }
    }
}

/// `names` as a deny list, strictly: an unknown or repeated name is
/// [`StoreError::InvalidKillSwitch`] naming it, so nothing is stored.
pub(crate) fn deny_list<S: Vocabulary, N: AsRef<str>>(
    names: &[N],
) -> Result<DenyList<S>, StoreError> {
    DenyList::new(names).map_err(StoreError::InvalidKillSwitch)
}

/// A list a shared store holds, as this build reads it: a name it does not
/// declare (put by a newer build) is skipped and reported, so the names it
/// does know are still denied; repeats count once.
#[cfg(feature = "redis")]
pub(crate) fn deny_list_skipping_unknown<S: Vocabulary>(names: &[String]) -> DenyList<S> {
    let mut known: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|name| match DenyList::<S>::new([name]) {
            Ok(_) => true,
            Err(error) => {
                tracing::error!(%error, "unknown name in the stored kill switch; skipping it");
                false
            }
        })
        .collect();
    known.sort_unstable();
    known.dedup();
    // Each name is known and none repeats, so this cannot fail; were it to,
    // the names are reported and the list the names could make is lost.
    DenyList::new(&known).unwrap_or_else(|error| {
        tracing::error!(%error, "unreadable stored kill switch; denying nothing from it");
        DenyList::empty()
    })
}
