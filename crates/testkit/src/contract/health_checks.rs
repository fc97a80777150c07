//! The `HealthCheckRepository` contract: results read back as saved, the latest
//! per (type, name) ordered by type and name, and a history newest first, filtered
//! and bounded.

use super::Stores;
use chrono::{DateTime, TimeZone, Utc};
use reviewd_domain::model::health::{CheckResult, CheckType, HealthHistoryFilter, HealthStatus};

pub async fn run(s: &Stores) {
    // First: it reads every result of the store.
    latest_is_one_result_per_type_and_name(s).await;
    history_is_newest_first_filtered_and_bounded(s).await;
}

fn at(day: u32, hour: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2002, 5, day, hour, 0, 0).unwrap()
}

fn result(
    check_type: CheckType,
    name: &str,
    status: HealthStatus,
    checked_at: DateTime<Utc>,
) -> CheckResult {
    CheckResult {
        check_type,
        check_name: name.to_owned(),
        status,
        details: serde_json::json!({ "message": format!("{name} is {}", status.as_str()), "n": 1 }),
        response_time: 12,
        checked_at,
    }
}

async fn latest_is_one_result_per_type_and_name(s: &Stores) {
    use CheckType::{Database, Gitlab};
    use HealthStatus::{Degraded, Healthy, Unhealthy};
    let newest_db = result(Database, "primary", Unhealthy, at(1, 11));
    let x = result(Gitlab, "gitlab-x", Healthy, at(1, 9));
    let y = result(Gitlab, "gitlab-y", Degraded, at(1, 8));
    s.health_checks
        .save(&[
            result(Database, "primary", Healthy, at(1, 10)),
            y.clone(),
            newest_db.clone(),
        ])
        .await
        .unwrap();
    s.health_checks
        .save(&[result(Gitlab, "gitlab-x", Unhealthy, at(1, 7)), x.clone()])
        .await
        .unwrap();
    s.health_checks.save(&[]).await.unwrap();
    assert_eq!(
        s.health_checks.latest().await.unwrap(),
        vec![newest_db, x, y]
    );
}

async fn history_is_newest_first_filtered_and_bounded(s: &Stores) {
    use CheckType::{AiProvider, DiskSpace};
    use HealthStatus::{Healthy, Unhealthy};
    let rows: Vec<CheckResult> = (0..4)
        .map(|h| {
            let status = if h % 2 == 0 { Healthy } else { Unhealthy };
            result(AiProvider, "openai", status, at(20, h))
        })
        .chain([result(DiskSpace, "data", Healthy, at(20, 5))])
        .collect();
    s.health_checks.save(&rows).await.unwrap();
    let window = HealthHistoryFilter {
        start_date: Some(at(20, 0)),
        end_date: Some(at(20, 23)),
        limit: 100,
        ..HealthHistoryFilter::default()
    };
    let read = |f: HealthHistoryFilter| async move { s.health_checks.history(&f).await.unwrap() };

    let all = read(window.clone()).await;
    let times: Vec<DateTime<Utc>> = all.iter().map(|r| r.checked_at).collect();
    assert_eq!(times, [5, 3, 2, 1, 0].map(|h| at(20, h)).to_vec());
    assert_eq!(all[0], rows[4], "read back as saved");

    let ai_unhealthy = read(HealthHistoryFilter {
        check_type: Some(AiProvider),
        status: Some(Unhealthy),
        ..window.clone()
    })
    .await;
    assert_eq!(ai_unhealthy, vec![rows[3].clone(), rows[1].clone()]);
    let bounded = read(HealthHistoryFilter {
        start_date: Some(at(20, 1)),
        end_date: Some(at(20, 2)),
        ..window.clone()
    })
    .await;
    assert_eq!(
        bounded,
        vec![rows[2].clone(), rows[1].clone()],
        "both ends included"
    );
    let two = read(HealthHistoryFilter {
        limit: 2,
        ..window.clone()
    })
    .await;
    assert_eq!(two.len(), 2);
    let at_least_one = read(HealthHistoryFilter { limit: 0, ..window }).await;
    assert_eq!(
        at_least_one,
        vec![rows[4].clone()],
        "a limit of 0 reads one"
    );
}
