//! Lists at a million reviews: `GET /api/reviews` with its stats (unfiltered, by
//! project, by status and dates), `/api/reviews/:id`, `/api/projects/paginated`,
//! `/api/notifications` and the dashboard's overview page, each called back to back
//! by one logged-in client; p50 and p99 of the answer.
//!
//! The data comes from `scripts/bench-seed.sh` (1M reviews, 10M comments, 5k
//! projects at `BENCH_LISTS_SCALE=1`, the default), loaded once into a PostgreSQL
//! cluster kept under `/var/tmp/reviewd-bench-lists/` (`BENCH_LISTS_DIR`): seeding takes about 11
//! minutes and 9 GB. The cluster is seeded again when `seed.sql` or the scale
//! change, or when its data is more than a day old (the seed dates its reviews
//! from the moment it loads them, and the overview shows today's); migrations
//! added meanwhile run on it at the server's start.

use crate::helpers::Session;
use crate::stack::Stack;
use crate::stores::Postgres;
use crate::table::{Row, Table, ms};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

/// Calls timed per list, after as many unmeasured ones.
const CALLS: usize = 200;
const WARM_UP: usize = 20;
/// Seeded data older than this is loaded again.
const MAX_DATA_AGE: Duration = Duration::from_secs(24 * 3600);

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the repository")
        .to_path_buf()
}

/// A key for what the seeded data depends on: the seed and the scale. Migrations
/// added since the data was loaded run on it when the server starts, as they would
/// on a team's database.
fn data_key(scale: &str) -> String {
    let seed = std::fs::read(repository().join("tests/benches/seed.sql")).expect("the seed");
    let mut hasher = DefaultHasher::new();
    (scale, seed).hash(&mut hasher);
    format!("{:016x}", hasher.finish())
}

/// The kept cluster's directory for this data, others' removed (each holds ~9 GB).
/// Under `/var/tmp` (kept across restarts): PostgreSQL runs as `postgres`, which
/// cannot enter root's home.
fn cluster_dir(key: &str) -> PathBuf {
    let parent = std::env::var_os("BENCH_LISTS_DIR").map_or_else(
        || PathBuf::from("/var/tmp/reviewd-bench-lists"),
        PathBuf::from,
    );
    std::fs::create_dir_all(&parent).expect("the bench cache");
    for e in std::fs::read_dir(&parent)
        .expect("the bench cache")
        .flatten()
    {
        if e.file_name() != key {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
    parent.join(key)
}

/// Whether the marker says the data was loaded within [`MAX_DATA_AGE`].
fn fresh(marker: &Path) -> bool {
    std::fs::metadata(marker)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_some_and(|age| age < MAX_DATA_AGE)
}

fn seed(url: &str, scale: &str) {
    println!("lists: seeding at scale {scale} (about 11 minutes at 1.0)");
    let status = Command::new("bash")
        .arg(repository().join("scripts/bench-seed.sh"))
        .args([url, "--scale", scale])
        .status()
        .expect("scripts/bench-seed.sh runs");
    assert!(status.success(), "scripts/bench-seed.sh failed");
}

/// p50 and p99 (µs) of `CALLS` calls of `path`, each answered 200.
async fn time(session: &Session, path: &str) -> (u64, u64) {
    let mut took = Vec::with_capacity(CALLS);
    for i in 0..WARM_UP + CALLS {
        let started = Instant::now();
        let response = session.get(path).await;
        let status = response.status();
        // A page that sent the client to the login form would be timed as the form.
        assert!(
            path.starts_with(response.url().path()),
            "{path} was redirected to {}",
            response.url()
        );
        let body = response.bytes().await.expect("a body");
        let elapsed = started.elapsed();
        assert_eq!(
            status,
            200,
            "{path}: {}",
            String::from_utf8_lossy(&body[..body.len().min(300)])
        );
        if i >= WARM_UP {
            took.push(elapsed);
        }
    }
    let h = crate::load::histogram_of(&took);
    (h.value_at_quantile(0.5), h.value_at_quantile(0.99))
}

pub async fn run(stack: &mut Stack, table: &mut Table) {
    let scale = std::env::var("BENCH_LISTS_SCALE").unwrap_or_else(|_| "1.0".to_owned());
    let dir = cluster_dir(&data_key(&scale));
    let marker = dir.join("seeded");
    let mut pg = Postgres::start_with(&dir, crate::stack::PG_SETTINGS);
    let url = pg.url();
    let server = stack.server("lists", &url, &[]).await;
    if !fresh(&marker) {
        let _ = std::fs::remove_file(&marker);
        seed(&url, &scale);
        std::fs::write(&marker, &scale).expect("the seed marker");
    }
    let app = &server.app;
    let reviews = app.sql("SELECT count(*) FROM reviews");
    let comments = app.sql("SELECT count(*) FROM review_comments");
    let projects = app.sql("SELECT count(*) FROM projects");
    // Project 1 of the seed holds 5 % of the reviews; review 1 is the newest.
    let big = app.sql("SELECT md5('p1')::uuid");
    let newest = app.sql("SELECT md5('r1')::uuid");
    let week_ago = (chrono::Utc::now() - chrono::Days::new(7)).format("%Y-%m-%d");
    let session = app.root().await;
    let lists = [
        (
            "GET /api/reviews (page 1 and stats)",
            "/api/reviews".to_owned(),
        ),
        (
            "GET /api/reviews?projectId= (the project of 5 % of the reviews)",
            format!("/api/reviews?projectId={big}"),
        ),
        (
            "GET /api/reviews?status=failed&startDate= (the last 7 days)",
            format!("/api/reviews?status=failed&startDate={week_ago}"),
        ),
        (
            "GET /api/reviews/:id (10 comments)",
            format!("/api/reviews/{newest}"),
        ),
        (
            "GET /api/projects/paginated (page 1)",
            "/api/projects/paginated".to_owned(),
        ),
        (
            "GET /api/projects/paginated?search=api",
            "/api/projects/paginated?search=api".to_owned(),
        ),
        (
            "GET /api/notifications (page 1)",
            "/api/notifications".to_owned(),
        ),
        ("dashboard overview page (/)", "/".to_owned()),
    ];
    table.push(Row::info(
        "lists",
        "seeded data",
        format!("{reviews} reviews, {comments} comments, {projects} projects (scale {scale})"),
    ));
    for (measure, path) in lists {
        let (p50, p99) = time(&session, &path).await;
        table.push(
            Row::info(
                "lists",
                format!("{measure}, {CALLS} calls one after another"),
                format!("p50 {}, p99 {}", ms(p50), ms(p99)),
            )
            .target("p99 < 20 ms", p99 < 20_000),
        );
    }
    drop(server);
    pg.stop();
}
