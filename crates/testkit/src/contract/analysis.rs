//! The `AnalysisRepository` contract: uploads kept per project and commit, their
//! findings read back in upload order, the reviews at a commit, the latest
//! uploads of a project, an unknown project refused.

use super::{Stores, assert_not_found, seed};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::grade::Severity;
use reviewd_domain::model::review::ReviewStatus;
use reviewd_domain::ports::NewUpload;
use reviewd_domain::review::tools::ToolFinding;
use uuid::Uuid;

pub async fn run(s: &Stores) {
    uploads_are_kept_per_project_and_commit(s).await;
}

fn finding(rule: &str, line: u32) -> ToolFinding {
    ToolFinding {
        tool: "semgrep".into(),
        rule: rule.into(),
        path: "src/app.py".into(),
        line,
        severity: Severity::Error,
        message: format!("{rule} at {line}"),
    }
}

async fn uploads_are_kept_per_project_and_commit(s: &Stores) {
    let project = seed::project(s).await;
    let other = seed::project(s).await;
    let upload = |project: ProjectId, commit: &str, findings: Vec<ToolFinding>| NewUpload {
        project_id: project,
        commit_sha: commit.into(),
        tools: vec!["semgrep".into()],
        findings,
    };
    let first = s
        .analysis
        .add_upload(upload(
            project.id,
            "aaa",
            vec![finding("a", 1), finding("b", 2)],
        ))
        .await
        .unwrap();
    assert_eq!(
        (first.finding_count, first.tools.clone()),
        (2, vec!["semgrep".to_owned()])
    );
    s.analysis
        .add_upload(upload(project.id, "aaa", vec![finding("c", 3)]))
        .await
        .unwrap();
    s.analysis
        .add_upload(upload(project.id, "bbb", vec![finding("d", 4)]))
        .await
        .unwrap();
    s.analysis
        .add_upload(upload(other.id, "aaa", vec![finding("e", 5)]))
        .await
        .unwrap();

    let found = s.analysis.findings_for(project.id, "aaa").await.unwrap();
    let rules: Vec<&str> = found.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(rules, vec!["a", "b", "c"], "that commit's, in upload order");
    assert_eq!(found[0], finding("a", 1), "kept whole");
    assert!(
        s.analysis
            .findings_for(project.id, "ccc")
            .await
            .unwrap()
            .is_empty()
    );

    let recent = s.analysis.recent_uploads(project.id, 2).await.unwrap();
    let commits: Vec<&str> = recent.iter().map(|u| u.commit_sha.as_str()).collect();
    assert_eq!(commits, vec!["bbb", "aaa"], "newest first, limited");

    assert!(
        s.analysis
            .reviews_at(project.id, "aaa")
            .await
            .unwrap()
            .is_empty()
    );
    let review = seed::review(s, &project, 1, "aaa").await;
    assert_eq!(
        s.analysis.reviews_at(project.id, "aaa").await.unwrap(),
        vec![(review.id, ReviewStatus::Pending)]
    );
    assert!(
        s.analysis
            .reviews_at(other.id, "aaa")
            .await
            .unwrap()
            .is_empty()
    );

    assert_not_found(
        s.analysis
            .add_upload(upload(ProjectId(Uuid::new_v4()), "aaa", vec![]))
            .await,
    );
}
