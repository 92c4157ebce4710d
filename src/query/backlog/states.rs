//! State groups: a state's group by the config's `[states]` lists and the built-in
//! names, and the `[states] paths` globs that decide a file's group by where it is.

use crate::config::StateGroups;
use crate::model::backlog::Group;
pub(super) use crate::model::backlog::fold_state as fold;

/// The group of a state, by the config's lists, then the built-in names.
pub fn group_of(state: Option<&str>, g: &StateGroups) -> Group {
    let Some(state) = state else { return Group::Open };
    let s = fold(state);
    let listed = [
        (Group::Done, &g.done),
        (Group::Dropped, &g.dropped),
        (Group::Blocked, &g.blocked),
        (Group::InProgress, &g.in_progress),
        (Group::Open, &g.open),
    ];
    if let Some((group, _)) = listed.iter().find(|(_, names)| names.iter().any(|n| fold(n) == s)) {
        return *group;
    }
    Group::builtin(&s).unwrap_or(Group::Open)
}

/// What `[states] paths` says of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PathState {
    /// In this group whatever its state says.
    Group(Group),
    /// Its state's group, but never ready.
    Draft,
}

/// The compiled `[states] paths` globs, in sorted order (the first match wins).
pub(super) struct PathRules<'a> {
    set: globset::GlobSet,
    rules: Vec<(&'a str, PathState)>,
}

impl<'a> PathRules<'a> {
    pub(super) fn new(g: &'a StateGroups) -> PathRules<'a> {
        let mut b = globset::GlobSetBuilder::new();
        let mut rules = Vec::new();
        for (glob, name) in &g.paths {
            let state = match Group::from_name(name) {
                Some(x) => PathState::Group(x),
                None if name == "draft" => PathState::Draft,
                // Validated when the config was loaded.
                None => continue,
            };
            if let Ok(compiled) = globset::GlobBuilder::new(glob).literal_separator(false).build() {
                b.add(compiled);
                rules.push((glob.as_str(), state));
            }
        }
        PathRules {
            set: b.build().unwrap_or_else(|_| globset::GlobSet::empty()),
            rules,
        }
    }

    /// The first rule matching `path`.
    pub(super) fn find(&self, path: &str) -> Option<(&'a str, PathState)> {
        if self.rules.is_empty() {
            return None;
        }
        self.set
            .matches(path)
            .into_iter()
            .min()
            .and_then(|i| self.rules.get(i).copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_by_name_and_config() {
        let g = StateGroups::default();
        assert_eq!(group_of(Some("In Progress"), &g), Group::InProgress);
        assert_eq!(group_of(Some("To Do"), &g), Group::Open);
        assert_eq!(group_of(Some("Won't Do"), &g), Group::Dropped);
        assert_eq!(group_of(Some("done"), &g), Group::Done);
        assert_eq!(group_of(None, &g), Group::Open);
        let g = StateGroups {
            done: vec!["Shipped to prod".into()],
            ..StateGroups::default()
        };
        assert_eq!(group_of(Some("shipped-to-prod"), &g), Group::Done);
    }
}
