//! A fresh, migrated database per test, cloned from a template that is migrated once.

use diesel::connection::SimpleConnection;
use diesel::{Connection, RunQueryDsl};
use diesel_async::AsyncPgConnection;
use diesel_async::async_connection_wrapper::AsyncConnectionWrapper;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::Path;
use tokio::sync::OnceCell;

const DEFAULT_ADMIN_URL: &str = "postgres://postgres:postgres@127.0.0.1:5432/postgres";
const DEFAULT_REDIS_URL: &str = "redis://127.0.0.1:6379";

type SyncPg = AsyncConnectionWrapper<AsyncPgConnection>;

static TEMPLATE: OnceCell<String> = OnceCell::const_new();

/// The Redis server tests use (`REVIEWD_TEST_REDIS_URL`, default the local one).
#[must_use]
pub fn test_redis_url() -> String {
    std::env::var("REVIEWD_TEST_REDIS_URL").unwrap_or_else(|_| DEFAULT_REDIS_URL.to_owned())
}

fn admin_url() -> String {
    std::env::var("REVIEWD_TEST_DATABASE_URL").unwrap_or_else(|_| DEFAULT_ADMIN_URL.to_owned())
}

/// The URL of database `name` on the admin URL's server.
fn url_for(name: &str) -> String {
    let admin = admin_url();
    let (base, query) = admin
        .split_once('?')
        .map_or((admin.as_str(), None), |(b, q)| (b, Some(q)));
    let server = base.rsplit_once('/').map_or(base, |(server, _)| server);
    match query {
        Some(q) => format!("{server}/{name}?{q}"),
        None => format!("{server}/{name}"),
    }
}

/// A migrated database of its own, dropped (with `FORCE`) when the value is dropped.
pub struct TestDb {
    name: String,
    url: String,
}

impl TestDb {
    /// # Panics
    /// When the test server cannot be reached or the migrations fail: the test
    /// cannot run and says why.
    pub async fn new() -> TestDb {
        let template = TEMPLATE.get_or_init(create_template).await.clone();
        let name = format!("reviewd_test_{}", uuid::Uuid::new_v4().simple());
        let sql = format!("CREATE DATABASE \"{name}\" TEMPLATE \"{template}\"");
        run_admin(sql).await;
        let url = url_for(&name);
        TestDb { name, url }
    }

    /// A database of its own with nothing in it, not even the migrations: what a
    /// backup is restored into.
    ///
    /// # Panics
    /// When the test server cannot be reached.
    pub async fn empty() -> TestDb {
        let name = format!("reviewd_test_{}", uuid::Uuid::new_v4().simple());
        run_admin(format!("CREATE DATABASE \"{name}\"")).await;
        let url = url_for(&name);
        TestDb { name, url }
    }

    /// Connection URL of this test's database.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A pool on this database.
    pub async fn pool(&self) -> reviewd_store_postgres::PgPool {
        reviewd_store_postgres::connect(&self.url, 4, std::time::Duration::from_secs(10))
            .await
            .expect("connect to the test database")
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let sql = format!("DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)", self.name);
        // Drop runs inside the test's runtime, which cannot block on itself: use a thread.
        let _ = std::thread::spawn(move || admin_execute(&sql)).join();
    }
}

/// Runs `statements` (one or more, `;`-separated) on the pool: a test's seed rows,
/// or a change made behind the repositories' backs.
///
/// # Panics
/// When a statement fails, naming it: the test cannot go on.
pub async fn execute_sql(pool: &reviewd_store_postgres::PgPool, statements: &str) {
    use diesel_async::SimpleAsyncConnection;
    let mut conn = pool.get().await.expect("a connection from the test pool");
    if let Err(e) = conn.batch_execute(statements).await {
        panic!("{statements}: {e}");
    }
}

async fn run_admin(sql: String) {
    tokio::task::spawn_blocking(move || {
        admin_execute(&sql).expect("admin statement on the test server")
    })
    .await
    .expect("admin thread");
}

fn admin_execute(sql: &str) -> Result<(), String> {
    let mut conn = SyncPg::establish(&admin_url())
        .map_err(|e| format!("connect to {}: {e}", redact(&admin_url())))?;
    conn.batch_execute(sql).map_err(|e| format!("{sql}: {e}"))
}

fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => format!("{}://***{}", &url[..s], &url[at..]),
        _ => url.to_owned(),
    }
}

/// Migrates a template named after the migrations' content, once per content: test
/// processes running together share it, and a changed migration gets a new one.
async fn create_template() -> String {
    tokio::task::spawn_blocking(|| {
        let name = format!("reviewd_tpl_{:016x}", migrations_fingerprint());
        let mut admin = SyncPg::establish(&admin_url())
            .unwrap_or_else(|e| panic!("connect to the test server {}: {e}", redact(&admin_url())));
        admin
            .batch_execute("SELECT pg_advisory_lock(7407001)")
            .expect("template lock");
        let exists: bool = diesel::select(diesel::dsl::sql::<diesel::sql_types::Bool>(&format!(
            "EXISTS (SELECT 1 FROM pg_database WHERE datname = '{name}')"
        )))
        .get_result(&mut admin)
        .expect("look up the template");
        if !exists {
            let building = format!("{name}_building");
            // Separate statements: several in one batch would run as one transaction,
            // which CREATE/DROP DATABASE refuse.
            admin
                .batch_execute(&format!(
                    "DROP DATABASE IF EXISTS \"{building}\" WITH (FORCE)"
                ))
                .expect("drop a half-built template");
            admin
                .batch_execute(&format!("CREATE DATABASE \"{building}\""))
                .expect("create the template");
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(reviewd_store_postgres::run_migrations(&url_for(&building)))
                .expect("migrate the template");
            admin
                .batch_execute(&format!(
                    "ALTER DATABASE \"{building}\" RENAME TO \"{name}\""
                ))
                .expect("publish the template");
        }
        admin
            .batch_execute("SELECT pg_advisory_unlock(7407001)")
            .expect("template unlock");
        name
    })
    .await
    .expect("template thread")
}

fn migrations_fingerprint() -> u64 {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../migrations");
    let mut files: Vec<_> = walk(&dir);
    files.sort();
    let mut hasher = DefaultHasher::new();
    for file in files {
        file.strip_prefix(&dir).unwrap_or(&file).hash(&mut hasher);
        std::fs::read(&file).unwrap_or_default().hash(&mut hasher);
    }
    hasher.finish()
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .flat_map(|e| {
            if e.path().is_dir() {
                walk(&e.path())
            } else {
                vec![e.path()]
            }
        })
        .collect()
}
