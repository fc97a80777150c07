//! The `LearningRepository` contract: a project's learnings, oldest first, added,
//! rewritten and deleted through their project only.

use super::{Stores, assert_not_found, seed};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::conversation::{LearningSource, NewLearning};
use uuid::Uuid;

pub async fn run(s: &Stores) {
    learnings_are_kept_per_project(s).await;
}

async fn learnings_are_kept_per_project(s: &Stores) {
    let project = seed::project(s).await;
    let other = seed::project(s).await;
    let new = |project: ProjectId, text: &str| NewLearning {
        project_id: project,
        text: text.into(),
        source: LearningSource::Command,
        author: Some("ana".into()),
        mr_iid: Some(3),
    };
    let first = s
        .learnings
        .add_learning(new(project.id, "We validate ids in the router."))
        .await
        .unwrap();
    let second = s
        .learnings
        .add_learning(new(project.id, "Errors are logged once."))
        .await
        .unwrap();
    s.learnings
        .add_learning(new(other.id, "Another team's lesson."))
        .await
        .unwrap();
    let listed = s.learnings.learnings(project.id).await.unwrap();
    assert_eq!(
        listed.iter().map(|l| l.id).collect::<Vec<_>>(),
        [first.id, second.id]
    );
    assert_eq!(listed[0].source, LearningSource::Command);
    assert_eq!(listed[0].mr_iid, Some(3));
    let edited = s
        .learnings
        .edit_learning(project.id, first.id, "Ids are validated by the router.")
        .await
        .unwrap();
    assert_eq!(edited.text, "Ids are validated by the router.");
    assert_eq!(
        s.learnings
            .get_learning(project.id, first.id)
            .await
            .unwrap()
            .text,
        edited.text
    );
    // Another project's id is not found through this one.
    assert_not_found(s.learnings.get_learning(other.id, first.id).await);
    assert_not_found(s.learnings.edit_learning(other.id, first.id, "x").await);
    assert_not_found(s.learnings.delete_learning(other.id, first.id).await);
    s.learnings
        .delete_learning(project.id, first.id)
        .await
        .unwrap();
    assert_not_found(s.learnings.delete_learning(project.id, first.id).await);
    assert_eq!(s.learnings.learnings(project.id).await.unwrap().len(), 1);
    assert_not_found(
        s.learnings
            .add_learning(new(ProjectId(Uuid::new_v4()), "x"))
            .await,
    );
}
