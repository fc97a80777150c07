//! The `CatalogRepository` contract: review templates (one global default) and
//! rules (by priority, global or per project), read back through the port and
//! through `ReviewQueries`' lists.

use super::{Stores, seed};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::review_views::TemplateItem;
use reviewd_domain::ports::{RepoError, RuleChanges, TemplateChanges};
use uuid::Uuid;

pub async fn run(s: &Stores) {
    a_fresh_store_has_no_default_template(s).await;
    a_new_default_replaces_the_old(s).await;
    templates_change_field_by_field(s).await;
    a_default_template_is_global(s).await;
    rules_apply_by_priority_to_their_projects(s).await;
    rules_change_field_by_field(s).await;
}

fn unique(what: &str) -> String {
    format!("{what}-{}", &Uuid::new_v4().simple().to_string()[..8])
}

fn template(name: &str, is_default: bool) -> TemplateChanges {
    TemplateChanges {
        name: Some(name.into()),
        description: Some(Some(format!("about {name}"))),
        content: Some(format!("Review {name} carefully.")),
        is_default: Some(is_default),
        project_id: None,
    }
}

fn rule(name: &str, priority: i32, project_id: Option<ProjectId>) -> RuleChanges {
    RuleChanges {
        rule_name: Some(name.into()),
        instructions: Some(format!("Check {name}.")),
        priority: Some(priority),
        project_id: Some(project_id),
        ..RuleChanges::default()
    }
}

async fn the_default(s: &Stores) -> Option<Uuid> {
    let content = s.catalog.template_content(None).await.unwrap();
    content.map(|(id, _)| id)
}

async fn listed(s: &Stores, id: Uuid) -> TemplateItem {
    let all = s.review_queries.templates().await.unwrap();
    all.into_iter().find(|t| t.id == id).unwrap()
}

async fn a_fresh_store_has_no_default_template(s: &Stores) {
    // The migrations seed no template: a fresh memory store is a fresh database.
    assert_eq!(the_default(s).await, None);
    assert!(s.review_queries.templates().await.unwrap().is_empty());
}

async fn a_new_default_replaces_the_old(s: &Stores) {
    let old = s
        .catalog
        .create_template(template(&unique("old"), true))
        .await
        .unwrap();
    assert!(old.is_default);
    assert_eq!(
        s.catalog.template_content(None).await.unwrap(),
        Some((old.id, format!("Review {} carefully.", old.name)))
    );
    let new = s
        .catalog
        .create_template(template(&unique("new"), true))
        .await
        .unwrap();
    assert_eq!(the_default(s).await, Some(new.id));
    assert!(!listed(s, old.id).await.is_default);
    let all = s.review_queries.templates().await.unwrap();
    assert_eq!(all[0].id, new.id, "the global default first");
    assert_eq!(all.iter().filter(|t| t.is_default).count(), 1);

    let content = s.catalog.template_content(Some(old.id)).await.unwrap();
    assert_eq!(content.map(|(id, _)| id), Some(old.id));
    let unknown = s.catalog.template_content(Some(Uuid::new_v4())).await;
    assert_eq!(unknown.unwrap(), None);
}

async fn templates_change_field_by_field(s: &Stores) {
    let created = s
        .catalog
        .create_template(template(&unique("plain"), false))
        .await
        .unwrap();
    let renamed = s
        .catalog
        .update_template(
            created.id,
            TemplateChanges {
                name: Some(format!("{}-renamed", created.name)),
                description: Some(None),
                ..TemplateChanges::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(renamed.name, format!("{}-renamed", created.name));
    assert_eq!((renamed.description, renamed.is_default), (None, false));
    assert_eq!(listed(s, created.id).await.name, renamed.name);
    let content = s.catalog.template_content(Some(created.id)).await.unwrap();
    assert_eq!(
        content.unwrap().1,
        format!("Review {} carefully.", created.name)
    );

    let promoted = TemplateChanges {
        is_default: Some(true),
        ..TemplateChanges::default()
    };
    let promoted = s
        .catalog
        .update_template(created.id, promoted)
        .await
        .unwrap();
    assert!(promoted.is_default);
    assert_eq!(the_default(s).await, Some(created.id));
    let all = s.review_queries.templates().await.unwrap();
    assert_eq!(all.iter().filter(|t| t.is_default).count(), 1);

    let unknown = s
        .catalog
        .update_template(Uuid::new_v4(), template("x", true))
        .await;
    assert!(matches!(unknown, Err(RepoError::NotFound)));
    assert_eq!(the_default(s).await, Some(created.id), "nothing changed");
}

async fn a_default_template_is_global(s: &Stores) {
    let project = seed::project(s).await;
    let before = the_default(s).await;
    let own = TemplateChanges {
        project_id: Some(Some(project.id)),
        ..template(&unique("own"), false)
    };
    let own = s.catalog.create_template(own).await.unwrap();
    assert_eq!(own.project_id, Some(project.id));

    let project_default = TemplateChanges {
        project_id: Some(Some(project.id)),
        ..template(&unique("bad"), true)
    };
    let refused = s.catalog.create_template(project_default).await;
    assert!(
        matches!(refused, Err(RepoError::Conflict(_))),
        "{refused:?}"
    );
    let promote = TemplateChanges {
        is_default: Some(true),
        ..TemplateChanges::default()
    };
    let refused = s.catalog.update_template(own.id, promote).await;
    assert!(
        matches!(refused, Err(RepoError::Conflict(_))),
        "{refused:?}"
    );
    assert_eq!(
        the_default(s).await,
        before,
        "a refused default replaces none"
    );

    let elsewhere = TemplateChanges {
        project_id: Some(Some(ProjectId::new_v4())),
        ..template(&unique("orphan"), false)
    };
    let refused = s.catalog.create_template(elsewhere).await;
    assert!(matches!(refused, Err(RepoError::NotFound)), "{refused:?}");
}

async fn rules_apply_by_priority_to_their_projects(s: &Stores) {
    let project = seed::project(s).await;
    let other = seed::project(s).await;
    let name = unique("rule");
    let mut ids = Vec::new();
    for (suffix, priority, owner) in [
        ("low", 1, Some(project.id)),
        ("high", 10, Some(project.id)),
        ("global", 5, None),
        ("tie-a", 3, None),
        ("tie-b", 3, Some(project.id)),
        ("other", 50, Some(other.id)),
    ] {
        let created = s
            .catalog
            .create_rule(rule(&format!("{name}-{suffix}"), priority, owner))
            .await
            .unwrap();
        assert!(created.enabled, "a rule is enabled unless told");
        ids.push(created.id);
    }
    let off = RuleChanges {
        enabled: Some(false),
        ..rule(&format!("{name}-off"), 100, None)
    };
    ids.push(s.catalog.create_rule(off).await.unwrap().id);
    let mine = |id: &Uuid| ids.contains(id);
    let suffix = |n: &str| n[name.len() + 1..].to_owned();

    let listed: Vec<String> = s
        .review_queries
        .rules()
        .await
        .unwrap()
        .into_iter()
        .filter(|r| mine(&r.id))
        .map(|r| suffix(&r.rule_name))
        .collect();
    assert_eq!(
        listed,
        ["off", "other", "high", "global", "tie-a", "tie-b", "low"]
    );

    let active = s.catalog.active_rules(project.id).await.unwrap();
    let active: Vec<String> = active
        .into_iter()
        .filter(|r| mine(&r.id))
        .map(|r| suffix(&r.rule_name))
        .collect();
    assert_eq!(active, ["high", "global", "tie-a", "tie-b", "low"]);

    let unknown = s
        .catalog
        .create_rule(rule("x", 0, Some(ProjectId::new_v4())))
        .await;
    assert!(matches!(unknown, Err(RepoError::NotFound)), "{unknown:?}");
}

async fn rules_change_field_by_field(s: &Stores) {
    let project = seed::project(s).await;
    let created = RuleChanges {
        file_type_patterns: Some(vec!["*.rs".into()]),
        ..rule(&unique("edit"), 2, Some(project.id))
    };
    let created = s.catalog.create_rule(created).await.unwrap();
    let changed = RuleChanges {
        priority: Some(7),
        instructions: Some("Look closer.".into()),
        ..RuleChanges::default()
    };
    let changed = s.catalog.update_rule(created.id, changed).await.unwrap();
    assert_eq!(
        (changed.priority, changed.rule_name.as_str()),
        (7, created.rule_name.as_str())
    );
    assert_eq!(changed.file_type_patterns, ["*.rs"]);
    assert_eq!(changed.project_id, Some(project.id));
    let active = s.catalog.active_rules(project.id).await.unwrap();
    let applied = active.iter().find(|r| r.id == created.id).unwrap();
    assert_eq!(
        (applied.instructions.as_str(), applied.priority),
        ("Look closer.", 7)
    );

    let disable = RuleChanges {
        enabled: Some(false),
        ..RuleChanges::default()
    };
    s.catalog.update_rule(created.id, disable).await.unwrap();
    let active = s.catalog.active_rules(project.id).await.unwrap();
    assert!(
        active.iter().all(|r| r.id != created.id),
        "a disabled rule applies nowhere"
    );

    let unknown = s
        .catalog
        .update_rule(Uuid::new_v4(), RuleChanges::default())
        .await;
    assert!(matches!(unknown, Err(RepoError::NotFound)));
    let orphan = RuleChanges {
        project_id: Some(Some(ProjectId::new_v4())),
        ..RuleChanges::default()
    };
    let orphan = s.catalog.update_rule(created.id, orphan).await;
    assert!(matches!(orphan, Err(RepoError::NotFound)), "{orphan:?}");
}
