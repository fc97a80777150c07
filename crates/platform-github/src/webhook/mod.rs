//! GitHub's webhook payloads read into the domain's `WebhookEvent`: pull request events,
//! comments on pull requests (and replies in review threads), resolved and reopened
//! threads, and a GitHub App's installations; other events are ignored by name. The
//! receiver (`reviewd-api`) checks the signature and hands over the event name and body.

mod payload;

use payload::{Event, RepositoryRef};
use reviewd_domain::model::conversation::CommentAuthor;
use reviewd_domain::model::webhook_payload::{InvalidPayload, read, required};
use reviewd_domain::model::{
    CommentEvent, FeedbackEvent, FeedbackEventKind, InstallationChange, InstallationEvent,
    MergeRequestEvent, MrAction, NoteRef, PlatformType, WebhookEvent,
};

/// On a public repository anyone may comment: only people with a role in the
/// repository can spend the AI budget with a review command. Anyone else's comment
/// still reaches the domain, marked no command: a reply judges reviewd's finding
/// whoever wrote it, and someone who speaks to reviewd without the right is told
/// so once per pull request (or not, by the project's setting) after the platform
/// confirms their permission.
const ALLOWED_ASSOCIATIONS: [&str; 3] = ["OWNER", "MEMBER", "COLLABORATOR"];

/// A GitHub webhook body, of the event `name` (`X-GitHub-Event`), as a domain event.
///
/// # Errors
/// The body is not JSON, or a handled event lacks a field it needs (the message names it).
pub fn event(name: &str, body: &[u8]) -> Result<WebhookEvent, InvalidPayload> {
    let handled = matches!(
        name,
        "pull_request"
            | "issue_comment"
            | "pull_request_review_comment"
            | "pull_request_review_thread"
            | "installation"
            | "installation_repositories"
    );
    if !handled {
        return Ok(WebhookEvent::Ignored(if name == "ping" {
            "pong".into()
        } else {
            format!("`{name}` events do not trigger reviews")
        }));
    }
    let event: Event = read(body)?;
    match name {
        "pull_request" => pull_request(event),
        "issue_comment" => issue_comment(event),
        "pull_request_review_comment" => review_comment(event),
        "pull_request_review_thread" => thread_resolution(event),
        _ => installation(name, event),
    }
}

fn action(event: &Event) -> Result<&str, InvalidPayload> {
    required(event.action.as_deref(), "action")
}

fn repository_id(event: &mut Event) -> Result<String, InvalidPayload> {
    let id = event.repository.take().and_then(|r| r.id);
    Ok(required(id, "repository.id")?.0)
}

fn pr_number(event: &Event) -> Result<i64, InvalidPayload> {
    let number = event.pull_request.as_ref().and_then(|pr| pr.number);
    Ok(required(number, "pull_request.number")?.0)
}

fn head_sha(event: &mut Event) -> Option<String> {
    event.pull_request.as_mut()?.head.take()?.sha
}

fn from_collaborator(event: &Event) -> bool {
    event
        .comment
        .as_ref()
        .and_then(|c| c.author_association.as_deref())
        .is_some_and(|a| ALLOWED_ASSOCIATIONS.contains(&a))
}

fn comment_body(event: &mut Event) -> Result<String, InvalidPayload> {
    required(
        event.comment.as_mut().and_then(|c| c.body.take()),
        "comment.body",
    )
}

/// The comment, its thread (a review comment's: the id of the comment it answers,
/// else its own, since a reply to it makes it a thread's first) and its author.
fn note_ref(event: &Event, in_review_thread: bool) -> Option<NoteRef> {
    let comment = event.comment.as_ref()?;
    let id = comment.id?;
    let user = comment.user.as_ref()?;
    let thread_id = if in_review_thread {
        Some(comment.in_reply_to_id.unwrap_or(id).to_string())
    } else {
        None
    };
    Some(NoteRef {
        id: id.to_string(),
        thread_id,
        author: CommentAuthor {
            id: user.id.map(|i| i.to_string()),
            username: user.login.clone()?,
            is_bot: user.kind.as_deref() == Some("Bot") || user.login.as_ref()?.ends_with("[bot]"),
        },
    })
}

fn pull_request(mut event: Event) -> Result<WebhookEvent, InvalidPayload> {
    let action = match action(&event)? {
        "opened" => MrAction::Opened,
        "reopened" => MrAction::Reopened,
        "synchronize" => MrAction::Updated,
        "assigned" | "unassigned" | "review_requested" | "review_request_removed" => {
            MrAction::AssignmentOnly
        }
        other => MrAction::Other(other.to_owned()),
    };
    let iid = pr_number(&event)?;
    Ok(WebhookEvent::MergeRequest(MergeRequestEvent {
        platform_type: PlatformType::Github,
        platform_project_id: repository_id(&mut event)?,
        iid,
        action,
        head_sha: head_sha(&mut event),
        author_id: event
            .pull_request
            .and_then(|pr| pr.user)
            .and_then(|u| u.login),
    }))
}

fn issue_comment(mut event: Event) -> Result<WebhookEvent, InvalidPayload> {
    if action(&event)? != "created" {
        return Ok(WebhookEvent::Ignored("only new comments are read".into()));
    }
    let may_command = from_collaborator(&event);
    let Some(issue) = event.issue.take().filter(|i| i.pull_request.is_some()) else {
        return Ok(WebhookEvent::Ignored(
            "comment on an issue, not a pull request".into(),
        ));
    };
    let note = note_ref(&event, false);
    Ok(WebhookEvent::Comment(CommentEvent {
        platform_type: PlatformType::Github,
        platform_project_id: repository_id(&mut event)?,
        iid: required(issue.number, "issue.number")?.0,
        body: comment_body(&mut event)?,
        head_sha: None,
        in_thread: false,
        may_command,
        note,
    }))
}

fn review_comment(mut event: Event) -> Result<WebhookEvent, InvalidPayload> {
    // A review comment answering another (GitHub names the thread's first comment).
    let in_thread = event
        .comment
        .as_ref()
        .is_some_and(|c| c.in_reply_to_id.is_some());
    let created = match action(&event)? {
        "created" => true,
        // An edited reply may change its verdict on the comment it answers.
        "edited" if in_thread => false,
        _ => {
            return Ok(WebhookEvent::Ignored(
                "only new comments and edited replies are read".into(),
            ));
        }
    };
    // `may_command` keeps an outsider's "/review" (or an edit) from starting a review.
    let may_command = created && from_collaborator(&event);
    // An edit is not a new word to answer.
    let note = note_ref(&event, true).filter(|_| created);
    Ok(WebhookEvent::Comment(CommentEvent {
        platform_type: PlatformType::Github,
        platform_project_id: repository_id(&mut event)?,
        iid: pr_number(&event)?,
        body: comment_body(&mut event)?,
        head_sha: head_sha(&mut event),
        in_thread,
        may_command,
        note,
    }))
}

/// `pull_request_review_thread`: a thread resolved or reopened, judged by the
/// thread's first comment, which is reviewd's when it carries its marker.
fn thread_resolution(mut event: Event) -> Result<WebhookEvent, InvalidPayload> {
    let resolved = match action(&event)? {
        "resolved" => true,
        "unresolved" => false,
        other => {
            return Ok(WebhookEvent::Ignored(format!(
                "review thread `{other}` events are not feedback"
            )));
        }
    };
    let mut comments = event.thread.take().map(|t| t.comments).unwrap_or_default();
    let first = comments
        .iter()
        .position(|c| c.in_reply_to_id.is_none())
        .unwrap_or(0);
    let comment_body = (first < comments.len())
        .then(|| comments.swap_remove(first))
        .and_then(|c| c.body);
    Ok(WebhookEvent::Feedback(FeedbackEvent {
        platform_type: PlatformType::Github,
        platform_project_id: repository_id(&mut event)?,
        iid: pr_number(&event)?,
        comment_body: required(comment_body, "thread.comments[0].body")?,
        kind: FeedbackEventKind::Resolution {
            username: event.sender.and_then(|s| s.login),
            resolved,
        },
    }))
}

/// The ids of the repositories listed (absent: none).
fn ids(repositories: Option<Vec<RepositoryRef>>) -> Vec<String> {
    repositories
        .unwrap_or_default()
        .into_iter()
        .filter_map(|r| r.id)
        .map(|id| id.to_string())
        .collect()
}

/// `installation` and `installation_repositories`: a GitHub App installed,
/// removed, suspended, or its repositories changed.
fn installation(name: &str, event: Event) -> Result<WebhookEvent, InvalidPayload> {
    let installation = event.installation.as_ref();
    let installation_id = required(installation.and_then(|i| i.id), "installation.id")?;
    let app_id = installation.and_then(|i| i.app_id);
    let change = match (name, action(&event)?) {
        ("installation", "created" | "unsuspend" | "new_permissions_accepted") => {
            InstallationChange::Available {
                repository_ids: ids(event.repositories),
            }
        }
        ("installation", "deleted" | "suspend") => InstallationChange::Unavailable {
            repository_ids: ids(event.repositories),
        },
        ("installation_repositories", "added") => InstallationChange::Available {
            repository_ids: ids(event.repositories_added),
        },
        ("installation_repositories", "removed") => InstallationChange::Unavailable {
            repository_ids: ids(event.repositories_removed),
        },
        (_, other) => {
            return Ok(WebhookEvent::Ignored(format!(
                "`{name}` `{other}` changes no project"
            )));
        }
    };
    Ok(WebhookEvent::Installation(InstallationEvent {
        installation_id,
        app_id,
        change,
    }))
}
