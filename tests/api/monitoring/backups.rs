//! Daily backups: a restorable dump, old ones pruned, a failed one explained.

use super::*;

#[tokio::test]
async fn a_daily_backup_is_a_restorable_dump_and_old_ones_are_pruned() {
    let first = TestApp::spawn().await;
    first.sql("INSERT INTO system_metrics (cpu_usage_percent, cpu_count, memory_used_bytes, memory_total_bytes, uptime_seconds) VALUES (12.5, 1, 1, 2, 1)");
    // Two replicas sharing one backup volume, as in a typical deployment.
    let backups = std::env::temp_dir().join(format!("reviewd-backups-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&backups).unwrap();
    std::fs::write(backups.join("reviewd-20200101T020000Z.dump"), b"old").unwrap();
    std::fs::write(backups.join("keep-me.txt"), b"not a backup").unwrap();
    let vars = [
        ("PERIODIC_JOBS_ENABLED", "true".to_owned()),
        ("AUTO_BACKUP_ENABLED", "true".to_owned()),
        ("BACKUP_RETENTION_DAYS", "7".to_owned()),
        ("BACKUP_DIR", backups.display().to_string()),
    ];
    // A replica started after 02:00 runs the day's missed backup; the other does not
    // run a second one.
    let _a = TestApp::spawn_sharing(&first, &vars).await;
    let _b = TestApp::spawn_sharing(&first, &vars).await;
    wait_until("the backup run", Duration::from_secs(60), || {
        first.sql(
            "SELECT count(*) FROM job_runs WHERE name = 'database.backup' AND status <> 'running'",
        ) == "1"
    })
    .await;
    assert_eq!(
        first.sql("SELECT status FROM job_runs WHERE name = 'database.backup'"),
        "succeeded",
        "{}",
        first.sql("SELECT message FROM job_runs WHERE name = 'database.backup'")
    );
    let mut names: Vec<String> = std::fs::read_dir(&backups)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    assert_eq!(
        names.len(),
        2,
        "one new backup and the foreign file: {names:?}"
    );
    assert_eq!(names[0], "keep-me.txt");
    assert!(names[1].starts_with("reviewd-2") && names[1].ends_with(".dump"));
    assert_ne!(
        names[1], "reviewd-20200101T020000Z.dump",
        "the expired one is pruned"
    );
    // The archive restores: pg_restore reads its table of contents.
    let out = std::process::Command::new("pg_restore")
        .arg("--list")
        .arg(backups.join(&names[1]))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let toc = String::from_utf8_lossy(&out.stdout);
    assert!(toc.contains("TABLE DATA public system_metrics"), "{toc}");
    assert!(toc.contains("TABLE public users"));
    std::fs::remove_dir_all(&backups).unwrap();
}

#[tokio::test]
async fn a_failed_dump_reports_why_and_leaves_no_partial_file() {
    let dir = std::env::temp_dir().join(format!("reviewd-backup-fail-{}", uuid::Uuid::new_v4()));
    let err = reviewd_runtime::backup::run(
        "postgres://nobody:pw@127.0.0.1:1/none",
        &dir,
        chrono::Utc::now(),
    )
    .await
    .unwrap_err();
    assert!(err.starts_with("pg_dump exited with"), "{err}");
    assert!(!err.contains("pw@"), "no password in the message: {err}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
