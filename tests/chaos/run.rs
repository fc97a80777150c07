//! One scenario's world: its own PostgreSQL and Redis, its replicas, the fakes, the
//! project set up through the API, the webhooks sent and what they were answered,
//! and the tally at the end.

use crate::agent::Agent;
use crate::helpers::{ROOT_EMAIL, ROOT_PASSWORD, Session, TestApp};
use crate::outside::{Outside, TOKEN, WEBHOOK_SECRET, files_of};
use crate::replica::Replica;
use crate::repository::Repository;
use crate::stores::{Postgres, Redis, free_port, tail};
use crate::tally::{self, HEADER, Row, TABLE};
use chrono::{DateTime, Utc};
use futures_util::{StreamExt, stream};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The lease (`QUEUE_RECLAIM_IDLE_SECS`): short, so takeovers show within a scenario.
pub const LEASE: Duration = Duration::from_secs(4);

/// How long a silent runner is still counted online (`RUNNER_HEARTBEAT_TIMEOUT_MS`);
/// the sweep runs every half of it.
pub const RUNNER_SILENCE: Duration = Duration::from_secs(4);

/// How long after the fault every MR must have its outcome (`CHAOS_DEADLINE_SECS`).
fn deadline() -> Duration {
    Duration::from_secs(crate::env_number("CHAOS_DEADLINE_SECS", 120))
}

pub struct Setup {
    pub replicas: usize,
    pub ai_latency: Duration,
    /// Extra wait of each comment post's answer.
    pub post_delay: Duration,
    /// Whether Redis keeps the queue on disk.
    pub appendonly: bool,
    /// `REVIEW_TIMEOUT_MINUTES`, when the scenario needs a short one.
    pub review_timeout_minutes: Option<&'static str>,
    /// Runner agents, each taking up to this many tasks at once; with any, the MRs
    /// are real commits of a local repository, the replicas leave fresh tasks to the
    /// runners (`RUNNER_CLAIM_GRACE_MS`) and sweep silent ones.
    pub runners: Vec<usize>,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            replicas: 1,
            ai_latency: Duration::from_secs(1),
            post_delay: Duration::ZERO,
            appendonly: true,
            review_timeout_minutes: None,
            runners: Vec::new(),
        }
    }
}

pub struct Run {
    pub name: &'static str,
    pub mrs: i64,
    dir: PathBuf,
    pub outside: Outside,
    /// The replicas; the suite's API calls go to the last one unless told otherwise
    /// ([`Run::ask`]).
    pub replicas: Vec<Replica>,
    /// The runner agents, started once the project is set up.
    pub agents: Vec<Agent>,
    pub pg: Postgres,
    pub redis: Redis,
    pub app: TestApp,
    session: Option<Session>,
    /// Every webhook answer: when, and its status (0: no answer).
    answers: Vec<(Instant, u16)>,
    /// When a store was down (plus a short grace for reconnecting).
    outages: Vec<(Instant, Instant)>,
    fault_end: Option<DateTime<Utc>>,
}

impl Run {
    /// Starts everything and sets the project up through the API: root login, a
    /// hostA config pointing at the fake GitLab, the project synced.
    pub async fn start(name: &'static str, mrs: i64, setup: Setup) -> Run {
        let dir =
            std::env::temp_dir().join(format!("reviewd-chaos-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).expect("the scenario's directory");
        // PostgreSQL runs as `postgres`, which must reach its directories inside.
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let pg = Postgres::start(&dir);
        let redis = Redis::start(&dir, setup.appendonly);
        let repository = (!setup.runners.is_empty()).then(|| {
            let files: Vec<Vec<String>> = (1..=mrs).map(files_of).collect();
            Repository::create(&dir, mrs, &files)
        });
        let outside =
            Outside::start(mrs, setup.ai_latency, setup.post_delay, repository.as_ref()).await;
        let mut replicas = Vec::new();
        for i in 0..setup.replicas {
            let port = free_port();
            let env = server_env(&pg, &redis, &outside, port, &dir, &setup);
            let name = format!(
                "replica-{}",
                char::from(b'a' + u8::try_from(i).unwrap_or(0))
            );
            replicas.push(Replica::new(&name, port, env, &dir));
        }
        for replica in &mut replicas {
            replica.start().await;
        }
        let app = TestApp {
            base_url: replicas.last().expect("a replica").base_url(),
            queue_prefix: "reviewd:".to_owned(),
            _db: None,
            database_url: pg.url(),
        };
        let mut run = Run {
            name,
            mrs,
            dir,
            outside,
            replicas,
            agents: Vec::new(),
            pg,
            redis,
            app,
            session: None,
            answers: Vec::new(),
            outages: Vec::new(),
            fault_end: None,
        };
        run.set_up_project().await;
        if let Some(repository) = repository {
            run.start_agents(&repository, &setup.runners).await;
        }
        run
    }

    /// Points the project at the repository, makes an API key and starts one agent
    /// per entry of `jobs`; waits until every one is online.
    async fn start_agents(&mut self, repository: &Repository, jobs: &[usize]) {
        self.app.sql(&format!(
            "UPDATE projects SET web_url = '{}'",
            repository.url
        ));
        let key = self
            .session
            .as_ref()
            .expect("the root session")
            .post("/api/api-keys", json!({ "name": "runners" }))
            .await;
        assert_eq!(key.status(), StatusCode::CREATED, "the runners' API key");
        let key: Value = key.json().await.expect("JSON");
        let key = key["data"]["apiKey"]["key"].as_str().expect("a key");
        for (i, jobs) in jobs.iter().enumerate() {
            let name = format!("runner-{}", char::from(b'a' + u8::try_from(i).unwrap_or(0)));
            let mut agent = Agent::new(&name, &self.app.base_url, key, *jobs, &self.dir);
            agent.start();
            self.agents.push(agent);
        }
        let names: Vec<String> = self.agents.iter().map(|a| a.name.clone()).collect();
        let app = &self.app;
        self.wait_until("runners online", Duration::from_secs(60), || {
            let online = app.sql("SELECT count(*) FROM runners WHERE status = 'online'");
            let all = online == names.len().to_string();
            async move { all }
        })
        .await;
    }

    /// Tasks runner `runner` holds, and in which phase (`fetching`, `reviewing`...).
    pub fn held_by_runner(&self, runner: &str) -> Vec<(String, String)> {
        let rows = self.app.sql(&format!(
            "SELECT id || ' ' || coalesce(runner_phase, '') FROM review_tasks \
             WHERE status = 'processing' AND runner_id = '{runner}' ORDER BY id"
        ));
        rows.lines()
            .filter_map(|l| {
                let (id, phase) = l.split_once(' ')?;
                Some((id.to_owned(), phase.to_owned()))
            })
            .collect()
    }

    async fn set_up_project(&mut self) {
        let root = self.app.root().await;
        let config = root
            .post(
                "/api/platform-configs",
                json!({ "name": "GitLab", "platformType": "hostA", "baseUrl": self.outside.proxy.url,
                        "accessToken": TOKEN, "webhookSecret": WEBHOOK_SECRET }),
            )
            .await;
        assert_eq!(config.status(), StatusCode::OK, "the platform config");
        let config: Value = config.json().await.expect("JSON");
        let sync = root
            .post(
                "/api/projects/sync/platform",
                json!({ "platformConfigId": config["data"]["config"]["id"] }),
            )
            .await;
        assert_eq!(sync.status(), StatusCode::OK, "the project sync");
        self.session = Some(root);
    }

    /// GitLab's webhook of MR `iid`, signed with the project's secret.
    fn webhook_request(&self, client: &reqwest::Client, iid: i64) -> reqwest::RequestBuilder {
        client
            .post(self.app.url("/api/webhook/hostA"))
            .header("X-Gitlab-Token", WEBHOOK_SECRET)
            .json(&self.outside.webhook(iid))
    }

    /// Sends the webhook of each MR in `iids`; returns the statuses (0: no answer).
    pub async fn send_webhooks(&mut self, iids: impl IntoIterator<Item = i64>) -> Vec<u16> {
        let client = webhook_client();
        let mut statuses = Vec::new();
        for iid in iids {
            let answer = self.webhook_request(&client, iid).send().await;
            let status = answer.map_or(0, |r| r.status().as_u16());
            self.answers.push((Instant::now(), status));
            statuses.push(status);
        }
        statuses
    }

    /// Sends the webhooks of `iids`, `at_once` in flight at a time (GitLab's bursts);
    /// returns the statuses in no particular order (0: no answer).
    pub async fn send_webhooks_concurrently(&mut self, iids: Vec<i64>, at_once: usize) -> Vec<u16> {
        let client = webhook_client();
        let requests: Vec<_> = iids
            .iter()
            .map(|iid| self.webhook_request(&client, *iid))
            .collect();
        let answers: Vec<(Instant, u16)> = stream::iter(requests)
            .map(|request| async move {
                let status = request.send().await.map_or(0, |r| r.status().as_u16());
                (Instant::now(), status)
            })
            .buffer_unordered(at_once)
            .collect()
            .await;
        self.answers.extend(answers.iter().copied());
        answers.into_iter().map(|(_, status)| status).collect()
    }

    /// Sends the webhooks of `iids`, `at_once` in flight at a time, and kills the
    /// first replica with SIGKILL as soon as `kill_after` of them were answered 200,
    /// while the others are in flight. Returns each MR with its answer (0: none, the
    /// kill cut it off).
    pub async fn send_webhooks_and_kill(
        &mut self,
        iids: Vec<i64>,
        at_once: usize,
        kill_after: usize,
    ) -> Vec<(i64, u16)> {
        let client = webhook_client();
        let requests: Vec<_> = iids
            .iter()
            .map(|iid| (*iid, self.webhook_request(&client, *iid)))
            .collect();
        let mut answers = stream::iter(requests)
            .map(|(iid, request)| async move {
                (iid, request.send().await.map_or(0, |r| r.status().as_u16()))
            })
            .buffer_unordered(at_once);
        let (mut statuses, mut accepted) = (Vec::new(), 0);
        while let Some((iid, status)) = answers.next().await {
            self.answers.push((Instant::now(), status));
            statuses.push((iid, status));
            accepted += usize::from(status == 200);
            if accepted == kill_after && status == 200 {
                self.replicas[0].kill();
            }
        }
        statuses
    }

    /// Marks a store outage from `from` to now, plus `grace` for reconnecting.
    pub fn outage(&mut self, from: Instant, grace: Duration) {
        self.outages.push((from, Instant::now() + grace));
    }

    /// The fault is over: recovery is counted from here.
    pub fn fault_ended(&mut self) {
        self.fault_end = Some(Utc::now());
    }

    /// `GET url`'s body as root; `None` while the API cannot answer.
    pub async fn get(&mut self, url: &str) -> Option<Value> {
        if self.session.is_none() {
            self.session = self.login().await;
        }
        let session = self.session.as_ref()?;
        let answer = tokio::time::timeout(
            Duration::from_secs(5),
            session.request(Method::GET, url).send(),
        )
        .await
        .ok()?
        .ok()?;
        if answer.status() == StatusCode::UNAUTHORIZED {
            self.session = self.login().await;
            return None;
        }
        if answer.status() != StatusCode::OK {
            return None;
        }
        answer.json().await.ok()
    }

    /// Every task, as the API lists them; `None` while the API cannot answer.
    pub async fn tasks(&mut self) -> Option<Vec<Value>> {
        let mut all = Vec::new();
        for page in 1.. {
            let url = format!("/api/reviews/tasks?page={page}&pageSize=100");
            let body = self.get(&url).await?;
            all.extend(body["data"]["items"].as_array()?.iter().cloned());
            if body["meta"]["pagination"]["totalPages"].as_u64()? <= page {
                break;
            }
        }
        Some(all)
    }

    async fn login(&self) -> Option<Session> {
        let session = self.app.client();
        let answer = session
            .request(Method::POST, "/api/auth/login")
            .json(&json!({ "email": ROOT_EMAIL, "password": ROOT_PASSWORD }))
            .send()
            .await
            .ok()?;
        (answer.status() == StatusCode::OK).then_some(session)
    }

    /// Tasks in `processing` held by replica `replica` (by its consumer name,
    /// `{machine name}-{PORT}`), or by anyone.
    pub fn processing(&self, replica: Option<usize>) -> Vec<String> {
        let held = replica.map_or_else(String::new, |i| {
            format!(" AND worker_id LIKE '%-{}'", self.replicas[i].port)
        });
        let rows = self.app.sql(&format!(
            "SELECT id FROM review_tasks WHERE status = 'processing'{held} ORDER BY id"
        ));
        rows.lines().map(str::to_owned).collect()
    }

    /// Polls `ready` every 20 ms until it holds; panics after `limit`.
    pub async fn wait_until<F: Future<Output = bool>>(
        &self,
        what: &str,
        limit: Duration,
        mut ready: impl FnMut() -> F,
    ) {
        let deadline = Instant::now() + limit;
        while !ready().await {
            if Instant::now() > deadline {
                self.fail(&[format!("no {what} after {limit:?}")]);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Waits until a review is running and the AI has been asked: the moment to
    /// strike mid-review. Returns the replica running the most reviews (which one
    /// gets work first is the queue's choice).
    pub async fn wait_mid_review(&self) -> usize {
        let limit = Duration::from_secs(60);
        let deadline = Instant::now() + limit;
        loop {
            let asked = self
                .outside
                .ai
                .received_requests()
                .await
                .is_some_and(|r| !r.is_empty());
            let busiest = (0..self.replicas.len())
                .map(|i| (self.processing(Some(i)).len(), i))
                .max()
                .unwrap_or_default();
            if asked && busiest.0 > 0 {
                println!(
                    "{}: striking with {} reviews running on {}",
                    self.name, busiest.0, self.replicas[busiest.1].name
                );
                return busiest.1;
            }
            if Instant::now() > deadline {
                self.fail(&[format!("no review running after {limit:?}")]);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Asks replica `replica` from now on (the other one is about to be faulted).
    pub fn ask(&mut self, replica: usize) {
        self.app.base_url = self.replicas[replica].base_url();
        self.session = None;
    }

    /// Waits until every MR has its outcome and no task is left running (or the
    /// deadline passes), then a little more for late posts, and counts.
    pub async fn settle(&mut self) -> Row {
        let until = Instant::now() + deadline();
        let mut tasks = Vec::new();
        while Instant::now() < until {
            if let Some(listed) = self.tasks().await {
                tasks = listed;
                let mut row = Row {
                    mrs: self.mrs,
                    ..Row::default()
                };
                tally::outcomes(&mut row, &tasks);
                if row.no_outcome == 0 && row.stuck == 0 {
                    break;
                }
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        // A replica that lost its task may still be finishing: anything it posts
        // now must be counted.
        tokio::time::sleep(Duration::from_secs(2)).await;
        tasks = self.tasks().await.unwrap_or(tasks);
        let mut row = Row {
            name: self.name.to_owned(),
            mrs: self.mrs,
            ..Row::default()
        };
        tally::outcomes(&mut row, &tasks);
        tally::comments(&mut row, &self.outside);
        tally::gates(&mut row, &self.outside);
        row.unexpected_5xx = tally::unexpected_5xx(&self.answers, &self.outages);
        row.recovery = self.fault_end.map(|end| {
            let last = tasks
                .iter()
                .filter_map(|t| t["completedAt"].as_str()?.parse::<DateTime<Utc>>().ok())
                .max();
            last.and_then(|last| (last - end).to_std().ok())
                .unwrap_or_default()
        });
        row
    }

    /// Records the row, then fails with the logs when it (or `extra`) shows a
    /// broken promise; removes the scenario's files when all held (unless
    /// `CHAOS_KEEP=1`).
    pub fn conclude(self, row: &Row, extra: &[String]) {
        println!("{HEADER}\n{}", row.line());
        TABLE.lock().map(|mut t| t.push(row.line())).ok();
        let mut violations = row.violations();
        violations.extend(extra.iter().cloned());
        if !violations.is_empty() {
            self.fail(&violations);
        }
        let dir = self.dir.clone();
        drop(self);
        if std::env::var("CHAOS_KEEP").is_ok_and(|v| v == "1") {
            println!("{}: files kept in {}", row.name, dir.display());
        } else {
            let _ = std::fs::remove_dir_all(dir);
        }
    }

    /// Panics with `why` and the end of every log (the files are kept).
    pub fn fail(&self, why: &[String]) -> ! {
        let mut logs = String::new();
        for replica in &self.replicas {
            logs.push_str(&format!(
                "\n--- {} ({})\n{}\n",
                replica.name,
                replica.log.display(),
                replica.tail(40)
            ));
        }
        for agent in &self.agents {
            logs.push_str(&format!(
                "\n--- {} ({})\n{}\n",
                agent.name,
                agent.log.display(),
                agent.tail(20)
            ));
        }
        logs.push_str(&format!("\n--- postgres\n{}\n", tail(&self.pg.log, 10)));
        logs.push_str(&format!("\n--- redis\n{}\n", tail(&self.redis.log, 10)));
        panic!(
            "{}: {}\n(files in {}){logs}",
            self.name,
            why.join("; "),
            self.dir.display()
        );
    }
}

/// What sends GitLab's webhooks: an answer within 10 s, or none (status 0).
fn webhook_client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .expect("an HTTP client")
}

/// The replica's environment: as `TestApp::start` sets it, on this scenario's
/// stores and fakes, with workers on and short delays.
fn server_env(
    pg: &Postgres,
    redis: &Redis,
    outside: &Outside,
    port: u16,
    dir: &std::path::Path,
    setup: &Setup,
) -> Vec<(String, String)> {
    let scratch = dir.join(format!("server-{port}"));
    let mut env = vec![
        ("DATABASE_URL", pg.url()),
        ("DATABASE_POOL_SIZE", "8".to_owned()),
        ("QUEUE_STORE_URL", redis.url()),
        (
            "AUTH_SECRET",
            "an-auth-secret-for-the-chaos-suite-0123456789".to_owned(),
        ),
        ("ROOT_EMAIL", ROOT_EMAIL.to_owned()),
        ("ROOT_PASSWORD", ROOT_PASSWORD.to_owned()),
        ("HOSTNAME", "127.0.0.1".to_owned()),
        ("PORT", port.to_string()),
        ("APP_URL", "http://reviewd.test".to_owned()),
        ("HTTP_WORKERS", "2".to_owned()),
        ("NODE_ENV", "test".to_owned()),
        ("LOG_LEVEL", "info".to_owned()),
        ("PROVIDERA_ENDPOINT", format!("{}/v1", outside.ai.uri())),
        ("PROVIDERA_API_KEY", "sk-fake".to_owned()),
        ("PROVIDERA_MODEL", "fake-model".to_owned()),
        ("OUTBOUND_RETRY_BASE_MS", "10".to_owned()),
        ("OUTBOUND_TIMEOUT_SECS", "10".to_owned()),
        ("QUEUE_RETRY_DELAY_SECS", "1".to_owned()),
        ("QUEUE_RECLAIM_IDLE_SECS", LEASE.as_secs().to_string()),
        ("QUEUE_ORPHAN_AGE_SECS", "5".to_owned()),
        ("RUNNER_CLAIM_GRACE_MS", "0".to_owned()),
        ("REVIEW_WORKERS_ENABLED", "true".to_owned()),
        ("PERIODIC_JOBS_ENABLED", "false".to_owned()),
        ("LOG_DIR", scratch.join("logs").display().to_string()),
        ("BACKUP_DIR", scratch.join("backups").display().to_string()),
    ];
    if !setup.runners.is_empty() {
        let silence = RUNNER_SILENCE.as_millis().to_string();
        env.extend([
            // Fresh tasks wait for a runner with room while one is online.
            ("RUNNER_CLAIM_GRACE_MS", "60000".to_owned()),
            ("RUNNER_HEARTBEAT_TIMEOUT_MS", silence),
            // The sweep of silent runners is a periodic job.
            ("PERIODIC_JOBS_ENABLED", "true".to_owned()),
        ]);
    }
    if let Some(minutes) = setup.review_timeout_minutes {
        env.push(("REVIEW_TIMEOUT_MINUTES", minutes.to_owned()));
    }
    env.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}
