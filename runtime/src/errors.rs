//! Every problem one check found, reported together.

use std::fmt;

/// Every problem a check found (at least one), one per line when
/// displayed: what [`Registry::verify`](crate::Registry::verify) and, with
/// runtime tools, `Catalog::new` return, as [`RegistryErrors`](crate::RegistryErrors)
/// and `CatalogErrors`.
///
/// ```
/// # mod server { pub struct Desk; }
/// # use server::Desk;
/// # mcp_profiles::vocabulary! {
/// #     server Desk;
/// #     #[surfaces] pub enum Surface { Ticket }
/// #     #[capabilities] pub enum Capability {}
/// #     #[providers] pub enum Provider {}
/// # }
/// use mcp_profiles::{Registry, RegistryError, Rule};
///
/// let errors = Registry::<Desk>::builder()
///     .group("a", Rule::always(), &["reply"])
///     .group("b", Rule::always(), &["reply"])
///     .build()
///     .unwrap_err();
/// assert_eq!(errors.len(), 1);
/// assert!(matches!(errors.iter().next(), Some(RegistryError::ToolCollision { .. })));
/// assert!(errors.to_string().starts_with("- tool `reply` is exposed by both `a` and `b`"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Errors<E> {
    errors: Vec<E>,
}

impl<E> Errors<E> {
    /// `Ok` when `errors` is empty, else every one of them.
    pub(crate) fn check(errors: Vec<E>) -> Result<(), Self> {
        if errors.is_empty() {
            Ok(())
        } else {
            Err(Errors { errors })
        }
    }

    /// Each problem, in the order the check found them.
    pub fn iter(&self) -> std::slice::Iter<'_, E> {
        self.errors.iter()
    }

    /// How many problems there are (at least one).
    pub fn len(&self) -> usize {
        self.errors.len()
    }

    /// Always false: a check that found nothing returns no `Errors`.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }
}

impl<'a, E> IntoIterator for &'a Errors<E> {
    type Item = &'a E;
    type IntoIter = std::slice::Iter<'a, E>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<E> IntoIterator for Errors<E> {
    type Item = E;
    type IntoIter = std::vec::IntoIter<E>;

    fn into_iter(self) -> Self::IntoIter {
        self.errors.into_iter()
    }
}

/// One `- problem` line per problem.
impl<E: fmt::Display> fmt::Display for Errors<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, error) in self.errors.iter().enumerate() {
            if index > 0 {
                f.write_str("\n")?;
            }
            write!(f, "- {error}")?;
        }
        Ok(())
    }
}

impl<E: fmt::Display + fmt::Debug> std::error::Error for Errors<E> {}
