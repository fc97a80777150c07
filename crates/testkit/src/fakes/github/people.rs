//! Who acts on the fake GitHub and how GitHub's JSON names them: the token's owner, an App's
//! bot, other readers; and a comment with its author and reactions summary, as listed.

use super::app::AppShared;
use super::wire::bearer;
use crate::fakes::hosted::HostedComment;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use wiremock::Request;

/// Who the fake's token belongs to: what GitHub's routes act as.
pub(super) const TOKEN_OWNER: &str = "reviewd-bot";

/// The reactions GitHub offers, in the order its summaries list them.
pub(super) const REACTIONS: [&str; 8] = [
    "+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes",
];

/// A user as comments and reactions name their author: the token's owner keeps
/// its id, anyone else gets one made from the login; an App's bot
/// (`{slug}[bot]`) is a `Bot`.
pub(super) fn user_named(login: &str) -> Value {
    let id = if login == TOKEN_OWNER {
        42
    } else {
        login.bytes().fold(1_000_000_u64, |id, b| {
            (id * 31 + u64::from(b)) % 90_000_000 + 1_000_000
        })
    };
    match login.strip_suffix("[bot]") {
        Some(slug) => json!({
            "login": login, "id": id, "node_id": format!("BOT_{id}"), "type": "Bot", "site_admin": false,
            "html_url": format!("https://github.example.com/apps/{slug}"),
        }),
        None => {
            json!({ "login": login, "id": id, "node_id": format!("U_{id}"), "type": "User", "site_admin": false })
        }
    }
}

/// Who a request acts as: the App's bot for an installation token, else the
/// token's owner.
pub(super) fn actor(app: &AppShared, request: &Request) -> String {
    bearer(request)
        .and_then(|token| app.lock().unwrap().bot_login(token))
        .unwrap_or_else(|| TOKEN_OWNER.to_owned())
}

/// The `reactions` summary GitHub puts on a comment.
pub(super) fn reaction_summary(full_name: &str, comment: &HostedComment) -> Value {
    let kind = if comment.anchor.is_some() {
        "pulls"
    } else {
        "issues"
    };
    let mut summary = json!({
        "url": format!("https://github.example.com/api/v3/repos/{full_name}/{kind}/comments/{}/reactions", comment.id),
        "total_count": comment.reactions.len(),
    });
    for name in REACTIONS {
        summary[name] = json!(
            comment
                .reactions
                .iter()
                .filter(|(_, n, _)| n == name)
                .count()
        );
    }
    summary
}

/// Who the fake's token belongs to, as comments name their author.
pub(super) fn bot_user() -> Value {
    json!({ "login": "reviewd-bot", "id": 42, "type": "User", "site_admin": false })
}

/// Who wrote the comments posted through GitHub's routes with an installation
/// token (the App's bot), by comment id. The shared store keeps those, as the
/// token owner's, without an author.
pub(super) type Authors = Arc<Mutex<HashMap<u64, String>>>;

/// The author of what a request posts, as [`Authors`] keeps it: the App's bot
/// for an installation token, `None` for the token's owner.
pub(super) fn bot_of(app: &AppShared, request: &Request) -> Option<String> {
    Some(actor(app, request)).filter(|login| login != TOKEN_OWNER)
}

/// A comment as GitHub lists it: a review comment (`/pulls/{n}/comments`) with its
/// path, line, side and review (and `in_reply_to_id` for a reply), or an issue
/// comment (`/issues/{n}/comments`); each with its reactions summary. `authors`
/// names the App's comments.
pub(super) fn github_comment(
    full_name: &str,
    comment: &HostedComment,
    authors: &HashMap<u64, String>,
) -> Value {
    let (id, number) = (comment.id, comment.number);
    let (node_id, anchor) = match comment.anchor {
        Some(_) => (format!("PRRC_{id}"), format!("discussion_r{id}")),
        None => (format!("IC_{id}"), format!("issuecomment-{id}")),
    };
    let (user, association) = match authors.get(&id) {
        Some(bot) => (user_named(bot), "NONE"),
        None => (bot_user(), "OWNER"),
    };
    let mut json = json!({
        "id": id, "node_id": node_id, "body": comment.body, "user": user,
        "html_url": format!("https://github.example.com/{full_name}/pull/{number}#{anchor}"),
        "created_at": comment.created_at(), "updated_at": comment.created_at(),
        "author_association": association, "reactions": reaction_summary(full_name, comment),
    });
    if let Some(Value::Object(fields)) = &comment.anchor {
        for (key, value) in fields {
            json[key] = value.clone();
        }
    }
    // After the anchor, which a reply shares with the comment it answers.
    if let Some(author) = &comment.author {
        json["user"] = user_named(author);
        let association = if author == TOKEN_OWNER {
            "OWNER"
        } else {
            "NONE"
        };
        json["author_association"] = json!(association);
    }
    if let Some(root) = comment.in_reply_to {
        json["in_reply_to_id"] = json!(root);
    }
    json
}
