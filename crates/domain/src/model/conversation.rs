//! Conversations: a comment in a merge request that speaks to reviewd (a command,
//! a mention, a reply in one of its threads), and what reviewd did about it. Each is
//! recorded once per platform comment, so a redelivered webhook finds the record
//! instead of asking twice; its answer is a queued task like a review.

use super::ids::ProjectId;
use super::named_values::text_enum;
use chrono::{DateTime, Utc};
use uuid::Uuid;

text_enum!(
    /// How a comment reached reviewd.
    Addressed {
        // `/reviewd <command>`, `@<bot> <command>` or a review command (`/review`).
        Command => "command",
        // The bot named outside a command: a question to answer.
        Mention => "mention",
        // A reply in a thread (one of reviewd's, the task checks).
        Reply => "reply",
    }
);

text_enum!(
    /// Where a conversation stands.
    ConversationStatus {
        // Recorded, its task queued or running.
        Queued => "queued",
        // Answered (the command done, its acknowledgement posted).
        Answered => "answered",
        // The author may not talk to reviewd here: refused once, politely.
        Refused => "refused",
        // Nothing to say: a bot, a thread not reviewd's, a refusal already given,
        // a rate limit reached.
        Ignored => "ignored",
        // The answer could not be given (its error says why).
        Failed => "failed",
    }
);

/// Who wrote a comment, as the webhook names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommentAuthor {
    /// The platform's user id (GitLab's numeric id; GitHub's too), when given.
    pub id: Option<String>,
    pub username: String,
    /// The platform marks the account a bot (GitHub `type: Bot`, GitLab bot users).
    pub is_bot: bool,
}

/// A comment to record as a conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewConversation {
    pub project_id: ProjectId,
    pub mr_iid: i64,
    /// The platform's id of the comment: one conversation per comment.
    pub note_id: String,
    /// The thread it was made in (GitLab discussion id; on GitHub the id of the
    /// review comment that started the thread), if any.
    pub thread_id: Option<String>,
    pub author: CommentAuthor,
    pub body: String,
    pub addressed: Addressed,
    /// The command's name as said (`pause`, `ask`...), for commands.
    pub command: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversation {
    pub id: Uuid,
    pub project_id: ProjectId,
    pub mr_iid: i64,
    pub note_id: String,
    pub thread_id: Option<String>,
    pub author: CommentAuthor,
    pub body: String,
    pub addressed: Addressed,
    pub command: Option<String>,
    pub status: ConversationStatus,
    /// What reviewd posted (or would have, for a project that does not post).
    pub answer: Option<String>,
    /// The platform's id of the posted answer.
    pub answer_note_id: Option<String>,
    /// Why it failed, or why it was ignored.
    pub detail: Option<String>,
    pub created_at: DateTime<Utc>,
    pub answered_at: Option<DateTime<Utc>>,
}

/// How a conversation ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConversationEnd {
    pub status: ConversationStatus,
    pub answer: Option<String>,
    pub answer_note_id: Option<String>,
    pub detail: Option<String>,
}

/// What the team told reviewd about one merge request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MrControls {
    /// No automatic reviews until resumed.
    pub paused: bool,
    /// Never reviewed, automatically or on request.
    pub ignored: bool,
    /// When an outsider was told, once, that only developers can ask.
    pub refused_at: Option<DateTime<Utc>>,
    /// Who changed them last (a platform username).
    pub changed_by: Option<String>,
    pub updated_at: Option<DateTime<Utc>>,
}

/// A change to an MR's controls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlChange {
    Pause,
    Resume,
    Ignore,
}

text_enum!(
    /// Where a learning came from.
    LearningSource {
        // `remember <lesson>` in a merge request.
        Command => "command",
        // Offered by the model when a reply explained a team convention.
        Model => "model",
        // Written in the dashboard or through the API.
        Api => "api",
    }
);

/// A project's lesson, sent with its prompts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Learning {
    pub id: Uuid,
    pub project_id: ProjectId,
    pub text: String,
    pub source: LearningSource,
    /// Who taught it (a platform username, or a dashboard user's).
    pub author: Option<String>,
    /// The merge request it was learnt in.
    pub mr_iid: Option<i64>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewLearning {
    pub project_id: ProjectId,
    pub text: String,
    pub source: LearningSource,
    pub author: Option<String>,
    pub mr_iid: Option<i64>,
}

/// How many conversations a person and a merge request started lately: what the
/// rate limits count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RecentTalk {
    pub in_mr: u32,
    pub by_author: u32,
}
