//! `TestApp`: the real server on a fresh database, plus request helpers.

use reqwest::{Client, Method, RequestBuilder, Response, StatusCode};
use reviewd_server::{Application, Config};
use reviewd_testkit::{TestDb, test_redis_url};
use serde_json::{Value, json};
use std::collections::HashMap;

pub const ROOT_EMAIL: &str = "root@reviewd.test";
pub const ROOT_PASSWORD: &str = "root-password-1";

pub struct TestApp {
    pub base_url: String,
    /// The app's Redis key prefix, for tests that look at (or break) the queue.
    pub queue_prefix: String,
    /// Kept so the database lives as long as the app (`None` when sharing another's).
    pub _db: Option<TestDb>,
    pub database_url: String,
}

impl TestApp {
    /// The server on a fresh database, without review workers (tests of the API see
    /// tasks stay queued).
    pub async fn spawn() -> TestApp {
        Self::spawn_with(&[]).await
    }

    /// As [`TestApp::spawn`], with extra or overriding variables.
    pub async fn spawn_with(extra: &[(&str, String)]) -> TestApp {
        let db = TestDb::new().await;
        let url = db.url().to_owned();
        let prefix = format!("reviewd-test:{}:", uuid::Uuid::new_v4().simple());
        Self::start(Some(db), url, prefix, extra).await
    }

    /// A second server on the same database and queue (another replica).
    pub async fn spawn_sharing(other: &TestApp, extra: &[(&str, String)]) -> TestApp {
        Self::start(
            None,
            other.database_url.clone(),
            other.queue_prefix.clone(),
            extra,
        )
        .await
    }

    async fn start(
        db: Option<TestDb>,
        database_url: String,
        queue_prefix: String,
        extra: &[(&str, String)],
    ) -> TestApp {
        let scratch =
            std::env::temp_dir().join(format!("reviewd-api-{}", uuid::Uuid::new_v4().simple()));
        let mut vars: HashMap<&str, String> = HashMap::from([
            ("DATABASE_URL", database_url.clone()),
            ("DATABASE_POOL_SIZE", "4".to_owned()),
            ("QUEUE_STORE_URL", test_redis_url()),
            ("QUEUE_KEY_PREFIX", queue_prefix.clone()),
            (
                "AUTH_SECRET",
                "an-auth-secret-for-the-api-tests-0123456789".to_owned(),
            ),
            ("ROOT_EMAIL", ROOT_EMAIL.to_owned()),
            ("ROOT_PASSWORD", ROOT_PASSWORD.to_owned()),
            ("HOSTNAME", "127.0.0.1".to_owned()),
            ("APP_URL", "http://reviewd.test".to_owned()),
            ("PORT", "0".to_owned()),
            ("HTTP_WORKERS", "1".to_owned()),
            ("NODE_ENV", "test".to_owned()),
            ("WEBHOOK_BASE_URL", "https://reviewd.example.com".to_owned()),
            ("OUTBOUND_RETRY_BASE_MS", "10".to_owned()),
            ("OUTBOUND_TIMEOUT_SECS", "5".to_owned()),
            ("LOG_DIR", scratch.join("logs").display().to_string()),
            ("BACKUP_DIR", scratch.join("backups").display().to_string()),
        ]);
        vars.insert("REVIEW_WORKERS_ENABLED", "false".to_owned());
        vars.insert("PERIODIC_JOBS_ENABLED", "false".to_owned());
        vars.insert("QUEUE_RETRY_DELAY_SECS", "0".to_owned());
        for (k, v) in extra {
            vars.insert(k, v.clone());
        }
        let config = Config::from_lookup(|k| vars.get(k).cloned()).expect("test configuration");
        let app = Application::build(config).await.expect("the server starts");
        let base_url = format!("http://127.0.0.1:{}", app.port());
        tokio::spawn(app.run_until_stopped());
        TestApp {
            base_url,
            queue_prefix,
            _db: db,
            database_url,
        }
    }

    /// Runs SQL on the app's database with `psql`; returns the unaligned rows.
    pub fn sql(&self, query: &str) -> String {
        psql(&self.database_url, query)
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    /// A client that keeps cookies, not logged in.
    pub fn client(&self) -> Session {
        let jar = std::sync::Arc::new(reqwest::cookie::Jar::default());
        Session {
            client: Client::builder()
                .cookie_provider(jar.clone())
                .build()
                .unwrap(),
            base: self.base_url.clone(),
            bearer: None,
            jar,
        }
    }

    /// A client logged in with a session cookie.
    pub async fn login(&self, email: &str, password: &str) -> Session {
        let s = self.client();
        let r = s
            .post(
                "/api/auth/login",
                json!({ "email": email, "password": password }),
            )
            .await;
        assert_eq!(r.status(), StatusCode::OK, "login of {email}");
        s
    }

    pub async fn root(&self) -> Session {
        self.login(ROOT_EMAIL, ROOT_PASSWORD).await
    }

    /// Creates a user with `role` (as root) and returns a logged-in session of theirs.
    pub async fn user_with_role(&self, role: &str) -> Session {
        let email = format!("{role}-{}@reviewd.test", uuid::Uuid::new_v4().simple());
        let r = self
            .root()
            .await
            .post("/api/users", json!({ "email": email, "name": role, "password": "a-good-password", "role": role }))
            .await;
        assert_eq!(r.status(), StatusCode::CREATED);
        self.login(&email, "a-good-password").await
    }

    /// A client that sends `Authorization: Bearer <key>` and no cookies.
    pub fn with_api_key(&self, key: &str) -> Session {
        Session {
            client: Client::new(),
            base: self.base_url.clone(),
            bearer: Some(key.to_owned()),
            jar: std::sync::Arc::default(),
        }
    }
}

pub struct Session {
    pub client: Client,
    base: String,
    bearer: Option<String>,
    jar: std::sync::Arc<reqwest::cookie::Jar>,
}

impl Session {
    /// The `Cookie` header this session sends to `base` (for a client of its own).
    pub fn cookie_header(&self, base: &str) -> String {
        use reqwest::cookie::CookieStore;
        self.jar
            .cookies(&base.parse().unwrap())
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default()
    }

    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        let r = self.client.request(method, format!("{}{path}", self.base));
        match &self.bearer {
            Some(key) => r.bearer_auth(key),
            None => r,
        }
    }

    pub async fn get(&self, path: &str) -> Response {
        self.request(Method::GET, path).send().await.unwrap()
    }

    pub async fn post(&self, path: &str, body: Value) -> Response {
        self.request(Method::POST, path)
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    pub async fn patch(&self, path: &str, body: Value) -> Response {
        self.request(Method::PATCH, path)
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    pub async fn delete(&self, path: &str) -> Response {
        self.request(Method::DELETE, path).send().await.unwrap()
    }
}

/// Asserts the status and the error body's code; returns the body.
pub async fn expect_error(response: Response, status: StatusCode, code: &str) -> Value {
    assert_eq!(response.status(), status);
    let body: Value = response.json().await.expect("an error body is JSON");
    assert_eq!(body["error"]["code"], code, "body: {body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty())
    );
    body
}

pub async fn json(response: Response, status: StatusCode) -> Value {
    assert_eq!(response.status(), status);
    response.json().await.unwrap()
}

/// Creates a hostA config for `fake` (as root) and returns its id.
pub async fn create_gitlab_config(app: &TestApp, fake: &reviewd_testkit::FakeGitlab) -> String {
    let body = json(
        app.root()
            .await
            .post(
                "/api/platform-configs",
                json!({ "name": "GitLab", "platformType": "hostA", "baseUrl": fake.base_url(),
                        "accessToken": fake.token, "webhookSecret": "hook-secret-a" }),
            )
            .await,
        StatusCode::OK,
    )
    .await;
    body["data"]["config"]["id"].as_str().unwrap().to_owned()
}

/// Creates a hostB config for `fake` (as root) and returns its id.
pub async fn create_github_config(app: &TestApp, fake: &reviewd_testkit::FakeGithub) -> String {
    let body = json(
        app.root()
            .await
            .post(
                "/api/platform-configs",
                json!({ "name": "GitHub", "platformType": "hostB", "baseUrl": fake.base_url(),
                        "accessToken": fake.token, "webhookSecret": "hook-secret-b" }),
            )
            .await,
        StatusCode::OK,
    )
    .await;
    body["data"]["config"]["id"].as_str().unwrap().to_owned()
}

/// Runs `query` with psql on the database at `database_url`; its output, trimmed.
/// Panics with psql's error when the query fails.
pub fn psql(database_url: &str, query: &str) -> String {
    let out = std::process::Command::new("psql")
        .arg(database_url)
        .args(["-qtAX", "-v", "ON_ERROR_STOP=1", "-c", query])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{query}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}
