//! Which repository a REST route is about: the key under which the App adapter keeps the
//! installation that reaches it.

/// A repository as a route names it: GitHub finds the installation of a repository
/// by its name only, so one known by id is looked for among the installations'.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Repository {
    /// `owner/name`, lowercase (GitHub's names are case-insensitive).
    Name(String),
    Id(u64),
}

impl Repository {
    /// The repository a REST route is about: `/repos/{owner}/{name}/…` or
    /// `/repositories/{id}/…`; `None` for any other route.
    pub(crate) fn of_route(route: &str) -> Option<Repository> {
        let path = route.split('?').next().unwrap_or(route);
        let mut segments = path.strip_prefix('/')?.split('/');
        match segments.next()? {
            "repos" => {
                let (owner, name) = (segments.next()?, segments.next()?);
                (!owner.is_empty() && !name.is_empty())
                    .then(|| Repository::Name(format!("{owner}/{name}").to_lowercase()))
            }
            "repositories" => segments.next()?.parse().ok().map(Repository::Id),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_name_their_repository() {
        assert_eq!(
            Repository::of_route("/repos/Octo/Hello-World/pulls/1?page=2"),
            Some(Repository::Name("octo/hello-world".into()))
        );
        assert_eq!(
            Repository::of_route("/repositories/1296269/pulls"),
            Some(Repository::Id(1_296_269))
        );
        assert_eq!(Repository::of_route("/repos/octo"), None);
        assert_eq!(Repository::of_route("/app/installations"), None);
        assert_eq!(Repository::of_route("/graphql"), None);
    }
}
