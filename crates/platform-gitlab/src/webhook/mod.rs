//! GitLab's webhook payloads read into the domain's `WebhookEvent`: merge request events,
//! comments on merge requests, and award emoji on those comments; other kinds are
//! ignored by name. The receiver (`reviewd-api`) checks the token and hands over the body.

mod payload;

use payload::{Commit, Hook};
use reviewd_domain::model::conversation::CommentAuthor;
use reviewd_domain::model::webhook_payload::{InvalidPayload, read, required};
use reviewd_domain::model::{
    CommentEvent, FeedbackEvent, FeedbackEventKind, MergeRequestEvent, MrAction, NoteRef,
    PlatformType, WebhookEvent,
};

/// Fields GitLab lists in `changes` when only assignment changed.
const ASSIGNMENT_FIELDS: [&str; 7] = [
    "assignees",
    "reviewers",
    "assignee_id",
    "assignee_ids",
    "reviewer_ids",
    "updated_at",
    "updated_by_id",
];

/// A GitLab webhook body as a domain event.
///
/// # Errors
/// The body is not JSON, or a handled event lacks a field it needs (the message names it).
pub fn event(body: &[u8]) -> Result<WebhookEvent, InvalidPayload> {
    let hook: Hook = read(body)?;
    match required(hook.object_kind.as_deref(), "object_kind")? {
        "merge_request" => merge_request(hook),
        "note" => note(hook),
        "emoji" => emoji(hook),
        other => Ok(WebhookEvent::Ignored(format!(
            "`{other}` events do not trigger reviews"
        ))),
    }
}

fn project_id(hook: &mut Hook) -> Result<String, InvalidPayload> {
    let id = hook.project.take().and_then(|p| p.id);
    Ok(required(id, "project.id")?.0)
}

fn sha(commit: Option<Commit>) -> Option<String> {
    commit.and_then(|c| c.id)
}

fn merge_request(mut hook: Hook) -> Result<WebhookEvent, InvalidPayload> {
    let attrs = &hook.object_attributes;
    let action = match required(attrs.action.as_deref(), "object_attributes.action")? {
        "open" => MrAction::Opened,
        "reopen" => MrAction::Reopened,
        "update" if attrs.oldrev.is_some() => MrAction::Updated,
        "update" if only_assignment_changed(&hook) => MrAction::AssignmentOnly,
        "update" => MrAction::Updated,
        other => MrAction::Other(other.to_owned()),
    };
    let iid = required(attrs.iid, "object_attributes.iid")?.0;
    let platform_project_id = project_id(&mut hook)?;
    let attrs = hook.object_attributes;
    Ok(WebhookEvent::MergeRequest(MergeRequestEvent {
        platform_type: PlatformType::Gitlab,
        platform_project_id,
        iid,
        action,
        head_sha: sha(attrs.last_commit),
        author_id: attrs.author_id.map(|id| id.0),
    }))
}

fn note(mut hook: Hook) -> Result<WebhookEvent, InvalidPayload> {
    let noteable = hook
        .object_attributes
        .noteable_type
        .take()
        .unwrap_or_default();
    if noteable != "MergeRequest" {
        return Ok(WebhookEvent::Ignored(format!(
            "comment on a {noteable}, not a merge request"
        )));
    }
    let platform_project_id = project_id(&mut hook)?;
    let note = note_ref(&mut hook);
    let mr = required(hook.merge_request, "merge_request.iid")?;
    let attrs = hook.object_attributes;
    Ok(WebhookEvent::Comment(CommentEvent {
        platform_type: PlatformType::Gitlab,
        platform_project_id,
        iid: required(mr.iid, "merge_request.iid")?.0,
        body: required(attrs.note, "object_attributes.note")?,
        head_sha: sha(mr.last_commit),
        in_thread: matches!(
            attrs.note_type.as_deref(),
            Some("DiffNote" | "DiscussionNote")
        ),
        // GitLab sends edited notes too (`action: update`): an edit asks for no review.
        may_command: attrs.action.as_deref() != Some("update"),
        // An edited note is not a new word to answer.
        note: note.filter(|_| attrs.action.as_deref() != Some("update")),
    }))
}

/// The note, its thread and its author, when the payload names them. A note
/// outside a thread is in a discussion of its own: its thread is left out, so an
/// answer to it is a new comment.
fn note_ref(hook: &mut Hook) -> Option<NoteRef> {
    let attrs = &mut hook.object_attributes;
    let id = attrs.id.take()?.0;
    let in_thread = matches!(
        attrs.note_type.as_deref(),
        Some("DiffNote" | "DiscussionNote")
    );
    let thread_id = attrs.discussion_id.take().filter(|_| in_thread);
    let user = hook.user.take()?;
    let username = user.username?;
    Some(NoteRef {
        id,
        thread_id,
        author: CommentAuthor {
            id: user.id.map(|i| i.0),
            is_bot: is_bot_username(&username),
            username,
        },
    })
}

/// GitLab names the users of project and group access tokens
/// `project_<id>_bot_<hash>` and `group_<id>_bot_<hash>`; its own service
/// accounts `ghost`, `support-bot`, `alert-bot`...
fn is_bot_username(username: &str) -> bool {
    let token_bot = ["project_", "group_"].iter().any(|prefix| {
        username.strip_prefix(prefix).is_some_and(|rest| {
            let digits = rest.chars().take_while(char::is_ascii_digit).count();
            digits > 0 && rest[digits..].starts_with("_bot")
        })
    });
    token_bot || username.ends_with("-bot") || username.ends_with("[bot]")
}

/// An award emoji given or taken back: feedback when it is on a comment of a
/// merge request (one of reviewd's line comments, the intake decides).
fn emoji(mut hook: Hook) -> Result<WebhookEvent, InvalidPayload> {
    let awardable = hook
        .object_attributes
        .awardable_type
        .take()
        .unwrap_or_default();
    if awardable != "Note" {
        return Ok(WebhookEvent::Ignored(format!(
            "emoji on a {awardable}, not on a comment"
        )));
    }
    if let Some(noteable) = hook.note.as_ref().and_then(|n| n.noteable_type.as_deref())
        && noteable != "MergeRequest"
    {
        return Ok(WebhookEvent::Ignored(format!(
            "emoji on a comment on a {noteable}, not on a merge request"
        )));
    }
    // `event_type` since GitLab 16.2; the first payloads had `object_attributes.action`.
    let action = match hook.event_type.take() {
        Some(action) => action,
        None => required(hook.object_attributes.action.take(), "event_type")?,
    };
    let withdrawn = match action.as_str() {
        "award" => false,
        "revoke" => true,
        other => {
            return Ok(WebhookEvent::Ignored(format!(
                "emoji `{other}` events are not feedback"
            )));
        }
    };
    let platform_project_id = project_id(&mut hook)?;
    let iid = hook.merge_request.and_then(|mr| mr.iid);
    Ok(WebhookEvent::Feedback(FeedbackEvent {
        platform_type: PlatformType::Gitlab,
        platform_project_id,
        iid: required(iid, "merge_request.iid")?.0,
        comment_body: required(hook.note.and_then(|n| n.note), "note.note")?,
        kind: FeedbackEventKind::Reaction {
            name: required(hook.object_attributes.name, "object_attributes.name")?,
            username: required(hook.user.and_then(|u| u.username), "user.username")?,
            withdrawn,
        },
    }))
}

fn only_assignment_changed(hook: &Hook) -> bool {
    hook.changes.as_ref().is_some_and(|changes| {
        !changes.is_empty()
            && changes
                .keys()
                .all(|k| ASSIGNMENT_FIELDS.contains(&k.as_str()))
    })
}
