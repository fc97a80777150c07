//! One conversation being answered: what the task learnt about it, what the
//! comment asks, and what the answer does.

use crate::model::Project;
use crate::model::conversation::{Conversation, MrControls};
use crate::model::diff::CommentThread;
use crate::ports::{HostingPlatform, ProjectRef};
use crate::review::commands::Command;
use std::sync::Arc;

/// One conversation being answered, with what the task learnt about it.
pub(super) struct Talk {
    pub(super) conversation: Conversation,
    pub(super) project: Project,
    pub(super) platform: Arc<dyn HostingPlatform>,
    pub(super) target: ProjectRef,
    /// reviewd's own username on the platform.
    pub(super) bot: String,
    pub(super) controls: MrControls,
}

/// What the comment asks of reviewd.
pub(super) enum Asked {
    Command(Command),
    /// A mention outside reviewd's threads: a question about the MR.
    Question,
    /// A word in one of reviewd's threads: about its finding.
    InThread(Box<CommentThread>),
}

/// What the answer does besides being posted.
#[derive(Default)]
pub(super) struct Answer {
    pub(super) text: String,
    /// The thread's finding was conceded wrong: resolve the thread.
    pub(super) concede: bool,
}

impl Answer {
    pub(super) fn says(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            concede: false,
        }
    }
}
