//! The `SettingsRepository` contract: a fresh store holds the global settings the
//! migrations seed, and no AI configuration.

use super::Stores;
use reviewd_domain::model::GlobalSettings;
use uuid::Uuid;

pub async fn run(s: &Stores) {
    a_fresh_store_has_the_seeded_global_settings(s).await;
    a_fresh_store_has_no_ai_configuration(s).await;
}

async fn a_fresh_store_has_the_seeded_global_settings(s: &Stores) {
    let strings = |items: &[&str]| items.iter().map(|&i| i.to_owned()).collect::<Vec<_>>();
    assert_eq!(
        s.settings.global().await.unwrap(),
        GlobalSettings {
            auto_review: true,
            send_to_platform: true,
            file_ignore_patterns: strings(&[
                "*.lock",
                "package-lock.json",
                "pnpm-lock.yaml",
                "*.min.js",
                "*.min.css",
                "*.map",
            ]),
            review_commands: strings(&["/review"]),
        }
    );
}

async fn a_fresh_store_has_no_ai_configuration(s: &Stores) {
    assert!(!s.settings.ai_config_exists(Uuid::new_v4()).await.unwrap());
    assert_eq!(s.settings.default_ai_config_id().await.unwrap(), None);
}
