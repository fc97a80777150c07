//! Reviews requested by a person (`POST /api/reviews/trigger-manual-review`).

use super::ServiceError;
use super::projects::ProjectService;
use super::tasks::DEFAULT_MAX_ATTEMPTS;
use super::tasks::{Enqueued, TaskService};
use crate::ErrorCode;
use crate::model::ProjectId;
use crate::model::{NewReviewTask, Principal, TriggeredBy};
use crate::ports::{CatalogRepository, SettingsRepository};
use std::sync::Arc;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct ManualReviewRequest {
    pub project_id: ProjectId,
    pub mr_iid: i64,
    pub send_to_platform: Option<bool>,
    pub template_id: Option<Uuid>,
}

pub struct ManualReviewService {
    projects: Arc<ProjectService>,
    settings: Arc<dyn SettingsRepository>,
    tasks: Arc<TaskService>,
    catalog: Arc<dyn CatalogRepository>,
}

impl ManualReviewService {
    pub fn new(
        projects: Arc<ProjectService>,
        settings: Arc<dyn SettingsRepository>,
        tasks: Arc<TaskService>,
        catalog: Arc<dyn CatalogRepository>,
    ) -> Self {
        Self {
            projects,
            settings,
            tasks,
            catalog,
        }
    }

    /// Checks that the MR exists on the platform (its head is the dedup key) and
    /// queues a manual review, even when auto-review is off.
    ///
    /// # Errors
    /// `NotFound` for an unknown project, template or MR; `BadRequest` for a disabled
    /// project; platform failures.
    pub async fn trigger(
        &self,
        caller: &Principal,
        request: ManualReviewRequest,
    ) -> Result<Enqueued, ServiceError> {
        if request.mr_iid <= 0 {
            return Err(ServiceError::invalid("mrIid", "must be a positive number"));
        }
        let (project, platform) = self.projects.with_platform(request.project_id).await?;
        if let Some(template) = request.template_id
            && self
                .catalog
                .template_content(Some(template))
                .await?
                .is_none()
        {
            return Err(ServiceError::NotFound("template"));
        }
        if !project.enabled {
            return Err(ServiceError::BadRequest {
                code: ErrorCode::ProjectDisabled,
                message: "reviews are disabled for this project; enable it first".into(),
            });
        }
        let mr = platform
            .get_merge_request(&project.platform_ref(), request.mr_iid)
            .await?;
        let global = self.settings.global().await?;
        let task = NewReviewTask {
            triggered_by: TriggeredBy::Manual,
            project_id: project.id,
            mr_iid: request.mr_iid,
            head_sha: mr.head_sha,
            send_to_platform: request
                .send_to_platform
                .or(project.send_to_platform)
                .unwrap_or(global.send_to_platform),
            template_id: request.template_id.or(project.template_id),
            requested_by: Some(caller.user.id),
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            conversation_id: None,
            full_review: false,
        };
        self.tasks.enqueue(task).await
    }
}
