//! Which configuration a review goes to, and one in use that is not deleted.

use super::*;

#[tokio::test]
async fn a_review_goes_to_its_projects_configuration_else_the_default_else_providera() {
    let world = World::new();
    let (project, _) = world
        .project(ProjectFixture::new("g/app").mr(one_file_mr(1)))
        .await;
    let builtin = world.ai_configs.target(None).await.unwrap();
    assert_eq!(
        (
            builtin.source,
            builtin.name.as_str(),
            builtin.model.as_str()
        ),
        (AiSource::Builtin, "providerA", "gpt-4o-mini"),
        "nothing stored: the PROVIDERA_* configuration"
    );

    let a = create(&world, "a", true).await;
    let b = create(&world, "b", false).await;
    assert_eq!(
        world.ai_configs.target(None).await.unwrap().model,
        "model-a"
    );
    assert_eq!(
        world.ai_configs.target(Some(b.id)).await.unwrap().model,
        "model-b"
    );
    assert_eq!(
        world
            .ai_configs
            .target(Some(Uuid::new_v4()))
            .await
            .unwrap()
            .model,
        "model-a",
        "a configuration deleted meanwhile: the default"
    );

    // `isDefault: false` on the default leaves none: PROVIDERA_* again.
    let patch = AiConfigPatch {
        is_default: Some(false),
        ..AiConfigPatch::default()
    };
    assert!(
        !world
            .ai_configs
            .update(a.id, patch)
            .await
            .unwrap()
            .is_default
    );
    assert_eq!(
        world.ai_configs.target(None).await.unwrap().source,
        AiSource::Builtin
    );
    world.ai_configs.set_default(b.id).await.unwrap();
    assert!(!world.ai_configs.get(a.id).await.unwrap().is_default);
    bind(&world, project.id, Some(a.id)).await;
    let resolved = world.projects.resolved_config(project.id).await.unwrap();
    assert_eq!(
        (resolved.ai_config_id, resolved.ai_config_inherited),
        (Some(a.id), false)
    );

    // Deleting the default hands it to no one.
    world.ai_configs.delete(b.id).await.unwrap();
    assert!(
        world
            .ai_configs
            .list()
            .await
            .unwrap()
            .iter()
            .all(|c| !c.is_default)
    );
    assert_eq!(
        world.ai_configs.target(None).await.unwrap().source,
        AiSource::Builtin
    );
}

#[tokio::test]
async fn a_configuration_in_use_is_not_deleted_and_the_refusal_names_the_projects() {
    let world = World::new();
    let config = create(&world, "a", true).await;
    let (api, _) = world.project(ProjectFixture::new("g/api")).await;
    let (web, _) = world.project(ProjectFixture::new("g/web")).await;
    let (inheriting, _) = world.project(ProjectFixture::new("g/docs")).await;
    bind(&world, web.id, Some(config.id)).await;
    bind(&world, api.id, Some(config.id)).await;

    match world.ai_configs.delete(config.id).await {
        Err(ServiceError::BadRequest { code, message }) => {
            assert_eq!(code, ErrorCode::ProjectsLinked);
            assert!(
                message.contains("2 project(s)") && message.contains("g/api, g/web"),
                "{message}"
            );
            assert!(
                !message.contains("g/docs"),
                "an inheriting project does not block"
            );
        }
        other => panic!("expected PROJECTS_LINKED, got {other:?}"),
    }
    bind(&world, api.id, None).await;
    bind(&world, web.id, None).await;
    world.ai_configs.delete(config.id).await.unwrap();
    assert_eq!(
        world
            .projects
            .get(inheriting.id)
            .await
            .unwrap()
            .ai_config_id,
        None
    );
    assert!(matches!(
        world.ai_configs.delete(config.id).await,
        Err(ServiceError::NotFound(_))
    ));
}
