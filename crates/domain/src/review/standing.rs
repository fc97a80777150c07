//! Who may talk to reviewd in a merge request: people who can change the project's
//! code (GitLab's Developer role and up, access level 30; GitHub's write, maintain or
//! admin permission) may run commands and get answers. Anyone else is refused, once
//! per merge request, or ignored (a project setting). Bots, reviewd's own account
//! among them, are never answered, so two bots cannot keep each other talking.

/// What a person may do on the project, by the platform's own roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Standing {
    /// No role on the project (a passer-by on a public project).
    Outsider,
    /// May read, comment or triage, not change the code.
    Reader,
    /// May push to the project: GitLab Developer and up, GitHub write and up.
    Developer,
}

impl Standing {
    /// GitLab's access level (10 guest, 15 planner, 20 reporter, 30 developer, 40
    /// maintainer, 50 owner; 0 or 5 no or minimal access).
    #[must_use]
    pub fn from_gitlab_level(level: u32) -> Self {
        match level {
            30.. => Standing::Developer,
            10..30 => Standing::Reader,
            _ => Standing::Outsider,
        }
    }

    /// GitHub's collaborator permission (`admin`, `maintain`, `write`, `triage`,
    /// `read`, `none`), as `GET /repos/{owner}/{repo}/collaborators/{user}/permission`
    /// names it (`role_name` or the older `permission`).
    #[must_use]
    pub fn from_github_permission(permission: &str) -> Self {
        match permission {
            "admin" | "maintain" | "write" => Standing::Developer,
            "triage" | "read" => Standing::Reader,
            _ => Standing::Outsider,
        }
    }
}

/// Who wrote a comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Speaker<'a> {
    pub username: &'a str,
    /// The platform says the account is a bot (GitHub's `type: Bot`, a GitLab bot user).
    pub is_bot: bool,
}

/// What reviewd does with a comment addressed to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hearing {
    /// Run the command or answer.
    Listen,
    /// Say once, politely, that only the project's developers can ask.
    Refuse,
    /// Say nothing: a bot, reviewd itself, or a refusal already given (or not wanted).
    Ignore,
}

/// How reviewd treats a comment of `speaker`, whose standing is `standing`; `bot` is
/// reviewd's own username, `refuse_outsiders` the project's choice between one
/// polite refusal and silence, `refused_before` whether this MR already had one.
#[must_use]
pub fn hearing(
    speaker: Speaker<'_>,
    standing: Standing,
    bot: Option<&str>,
    refuse_outsiders: bool,
    refused_before: bool,
) -> Hearing {
    let is_self = bot.is_some_and(|b| b.eq_ignore_ascii_case(speaker.username));
    if is_self || speaker.is_bot {
        Hearing::Ignore
    } else if standing == Standing::Developer {
        Hearing::Listen
    } else if refuse_outsiders && !refused_before {
        Hearing::Refuse
    } else {
        Hearing::Ignore
    }
}

/// The refusal, posted once per merge request.
pub const REFUSAL: &str = "Only people who can push to this project can ask reviewd to do \
something or discuss its findings. A maintainer can give you the Developer role (GitLab) or \
write access (GitHub).";

#[cfg(test)]
mod tests {
    use super::*;

    fn person(name: &str) -> Speaker<'_> {
        Speaker {
            username: name,
            is_bot: false,
        }
    }

    #[test]
    fn the_platforms_roles_map_to_a_standing() {
        let gitlab: Vec<_> = [0, 5, 10, 15, 20, 30, 40, 50]
            .into_iter()
            .map(Standing::from_gitlab_level)
            .collect();
        use Standing::{Developer as D, Outsider as O, Reader as R};
        assert_eq!(gitlab, [O, O, R, R, R, D, D, D]);
        let github: Vec<_> = ["admin", "maintain", "write", "triage", "read", "none", ""]
            .into_iter()
            .map(Standing::from_github_permission)
            .collect();
        assert_eq!(github, [D, D, D, R, R, O, O]);
    }

    #[test]
    fn developers_are_heard_and_others_refused_once() {
        let bot = Some("reviewd-bot");
        assert_eq!(
            hearing(person("ana"), Standing::Developer, bot, true, true),
            Hearing::Listen
        );
        assert_eq!(
            hearing(person("bo"), Standing::Reader, bot, true, false),
            Hearing::Refuse
        );
        assert_eq!(
            hearing(person("bo"), Standing::Reader, bot, true, true),
            Hearing::Ignore
        );
        assert_eq!(
            hearing(person("cy"), Standing::Outsider, bot, false, false),
            Hearing::Ignore
        );
    }

    #[test]
    fn a_bot_is_never_answered_not_even_a_privileged_one() {
        let bot = Some("reviewd-bot");
        assert_eq!(
            hearing(person("Reviewd-Bot"), Standing::Developer, bot, true, false),
            Hearing::Ignore,
            "reviewd itself"
        );
        let other = Speaker {
            username: "dependabot[bot]",
            is_bot: true,
        };
        assert_eq!(
            hearing(other, Standing::Developer, bot, true, false),
            Hearing::Ignore
        );
    }
}
