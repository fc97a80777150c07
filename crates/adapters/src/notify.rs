//! Review events to notifications, off the review's path: each finished review is
//! handed to a task of its own, so a slow or failing channel never delays a review.

use reviewd_domain::model::ReviewId;
use reviewd_domain::model::review::ReviewStatus;
use reviewd_domain::ports::ReviewObserver;
use reviewd_domain::services::NotificationService;
use std::sync::Arc;

pub struct NotifyOnFinish(pub Arc<NotificationService>);

impl ReviewObserver for NotifyOnFinish {
    fn review_finished(&self, review_id: ReviewId, status: ReviewStatus) {
        let service = self.0.clone();
        tokio::spawn(async move { service.review_finished(review_id, status).await });
    }
}
