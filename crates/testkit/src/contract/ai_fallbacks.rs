//! The fallback lists of the `AiConfigRepository` contract: stored in the order
//! given, read by `get`, `list` and `default_config`, replaced whole, kept by other
//! changes, and left by a deleted configuration.

use super::{Stores, seed};
use reviewd_domain::model::{AiConfigChanges, NewAiConfig};
use uuid::Uuid;

pub async fn run(s: &Stores) {
    let [b, c, d] = [(); 3].map(|()| seed::new_ai_config(false));
    let mut ids = Vec::new();
    for new in [b, c, d] {
        ids.push(s.ai_configs.create(new).await.unwrap().id);
    }
    let a = s
        .ai_configs
        .create(NewAiConfig {
            fallback_ids: vec![ids[2], ids[0]],
            ..seed::new_ai_config(true)
        })
        .await
        .unwrap();
    assert_eq!(a.fallback_ids, [ids[2], ids[0]], "in the order given");
    let read = |id: Uuid| async move { s.ai_configs.get(id).await.unwrap().fallback_ids };
    assert_eq!(read(a.id).await, [ids[2], ids[0]]);
    let default = s.ai_configs.default_config().await.unwrap().unwrap();
    assert_eq!(default.fallback_ids, [ids[2], ids[0]]);
    let listed = s.ai_configs.list().await.unwrap();
    let in_list = listed.iter().find(|c| c.id == a.id).unwrap();
    assert_eq!(in_list.fallback_ids, [ids[2], ids[0]]);
    assert!(
        read(ids[0]).await.is_empty(),
        "a fallback has none of its own"
    );

    let change = |list: Option<Vec<Uuid>>, name: Option<String>| AiConfigChanges {
        fallback_ids: list,
        name,
        ..AiConfigChanges::default()
    };
    let replaced = s
        .ai_configs
        .update(a.id, change(Some(vec![ids[1], ids[2], ids[0]]), None))
        .await
        .unwrap();
    assert_eq!(replaced.fallback_ids, [ids[1], ids[2], ids[0]]);
    let renamed = s
        .ai_configs
        .update(a.id, change(None, Some("renamed".into())))
        .await
        .unwrap();
    assert_eq!(renamed.fallback_ids, [ids[1], ids[2], ids[0]], "kept");
    let defaulted = s.ai_configs.set_default(a.id).await.unwrap();
    assert_eq!(defaulted.fallback_ids.len(), 3);

    s.ai_configs.delete(ids[2]).await.unwrap();
    assert_eq!(read(a.id).await, [ids[1], ids[0]], "the deleted one leaves");
    let cleared = s
        .ai_configs
        .update(a.id, change(Some(Vec::new()), None))
        .await
        .unwrap();
    assert!(cleared.fallback_ids.is_empty());
    assert!(read(a.id).await.is_empty());
    s.ai_configs.delete(a.id).await.unwrap();
}
