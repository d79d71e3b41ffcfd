//! How tool groups nest: a group is a member of each group that includes
//! it (MCP's grouping extension names the parent in the child's `_meta`),
//! so the includes must form no cycle, and no group may include itself.

use super::Registry;
use crate::{RegistryError, Vocabulary};

impl<S: Vocabulary> Registry<S> {
    /// Every cycle of includes, once each (from its first group in name
    /// order); an include of an unknown group is `include`'s own error at
    /// compile time and not followed here.
    pub(super) fn verify_nesting(&self, errors: &mut Vec<RegistryError>) {
        // 0: not visited, 1: on the current path, 2: done.
        let mut state = vec![0u8; self.groups.len()];
        let mut path = Vec::new();
        for start in 0..self.groups.len() {
            self.walk(start, &mut state, &mut path, errors);
        }
    }

    fn walk(
        &self,
        index: usize,
        state: &mut [u8],
        path: &mut Vec<usize>,
        errors: &mut Vec<RegistryError>,
    ) {
        match state[index] {
            2 => return,
            1 => {
                let from = path.iter().position(|&on| on == index).unwrap_or(0);
                let mut groups: Vec<String> = path[from..]
                    .iter()
                    .map(|&on| self.groups[on].name().to_owned())
                    .collect();
                groups.push(self.groups[index].name().to_owned());
                errors.push(RegistryError::GroupCycle { groups });
                return;
            }
            _ => {}
        }
        state[index] = 1;
        path.push(index);
        for included in self.groups[index].includes() {
            if let Some(next) = self.groups.iter().position(|g| g.name() == *included) {
                self.walk(next, state, path, errors);
            }
        }
        path.pop();
        state[index] = 2;
    }
}
