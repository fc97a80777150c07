//! A reviewd core wired on the in-memory adapters of this crate: no database, no
//! network, and a clock that only moves when a test (or a wait) moves it. The domain's
//! tests and the background runtime's run on it.

use crate::MemoryStore;
use crate::contract::{Stores, seed};
use crate::fakes::FakeClock;
use crate::fakes::ai::{SameAi, ScriptedAi};
use crate::fakes::hosting::{MrFixture, ProjectFixture, ScriptedClients, ScriptedPlatform};
use crate::fakes::notifier::{FakeVapidKeys, RecordingObserver};
use crate::fakes::queue::MemoryQueue;
use reviewd_domain::model::runner::{
    RunnerFileResult, RunnerMetrics, RunnerOutcome, RunnerRegistration, RunnerResult,
};
use reviewd_domain::model::{BuiltinAi, PlatformType, Project, ReviewTask, SecretString};
use reviewd_domain::ports::Notifier;
use reviewd_domain::ports::{Clock, ProjectRef};
use reviewd_domain::services::{
    AiConfigService, ConversationParts, ConversationService, EngineSettings, FeedbackService,
    NotificationService, NotifySettings, ProjectService, ReviewEngine, RunOutcome, RunnerService,
    RunnerSettings, TaskService,
};
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

/// The name of the server worker that [`World::run`] runs tasks as.
pub const WORKER: &str = "worker-a";

pub struct World {
    pub clock: Arc<FakeClock>,
    pub store: MemoryStore,
    pub stores: Stores,
    pub platform: ScriptedPlatform,
    pub ai: Arc<ScriptedAi>,
    /// Serves every AI configuration with `ai`, recording which were asked for.
    pub providers: Arc<SameAi>,
    pub ai_configs: Arc<AiConfigService>,
    pub queue: Arc<MemoryQueue>,
    pub tasks: Arc<TaskService>,
    pub projects: Arc<ProjectService>,
    pub engine: Arc<ReviewEngine>,
    pub observer: Arc<RecordingObserver>,
    pub feedback: Arc<FeedbackService>,
    /// Answers conversations; the engine runs their tasks with it.
    pub talk: Arc<ConversationService>,
}

impl Default for World {
    fn default() -> Self {
        Self::new()
    }
}

impl World {
    #[must_use]
    pub fn new() -> Self {
        Self::with(ScriptedAi::default(), EngineSettings::default())
    }

    #[must_use]
    pub fn with(ai: ScriptedAi, settings: EngineSettings) -> Self {
        Self::on_clock(ai, settings, Arc::new(FakeClock::default()))
    }

    /// As [`World::with`], on `clock` (for example [`FakeClock::on_tokio_time`], for a
    /// test of a loop that waits between its steps).
    #[must_use]
    pub fn on_clock(ai: ScriptedAi, settings: EngineSettings, clock: Arc<FakeClock>) -> Self {
        let store = MemoryStore::new(clock.clone());
        let stores = Stores::memory(&store);
        let platform = ScriptedPlatform::new(PlatformType::Gitlab);
        let ai = Arc::new(ai.on_clock(clock.clone()));
        let providers = Arc::new(SameAi::new(ai.clone()));
        let ai_configs = Arc::new(AiConfigService::new(
            stores.ai_configs.clone(),
            providers.clone(),
            builtin_ai(),
        ));
        let queue = Arc::new(MemoryQueue::new(clock.clone()));
        let tasks = Arc::new(TaskService::new(stores.tasks.clone(), queue.clone()));
        let projects = Arc::new(ProjectService::new(
            stores.projects.clone(),
            stores.platform_configs.clone(),
            stores.settings.clone(),
            Arc::new(ScriptedClients::new(platform.clone())),
        ));
        let observer = Arc::new(RecordingObserver::default());
        let feedback = Arc::new(FeedbackService::new(
            stores.feedback.clone(),
            projects.clone(),
        ));
        let talk = Arc::new(
            ConversationService::new(ConversationParts {
                conversations: stores.conversations.clone(),
                learnings: stores.learnings.clone(),
                tasks: tasks.clone(),
                task_records: stores.tasks.clone(),
                reviews: stores.reviews.clone(),
                feedback_store: stores.feedback.clone(),
                projects: projects.clone(),
                settings: stores.settings.clone(),
                ai: ai_configs.clone(),
                clock: clock.clone(),
            })
            .with_feedback(feedback.clone()),
        );
        let engine = Arc::new(
            ReviewEngine::new(
                stores.tasks.clone(),
                stores.reviews.clone(),
                projects.clone(),
                stores.catalog.clone(),
                ai_configs.clone(),
                settings,
            )
            .observed_by(observer.clone())
            .tracks_feedback(feedback.clone())
            .answers_with(talk.clone())
            .learns_from(stores.learnings.clone())
            .reads_uploads(stores.analysis.clone()),
        );
        Self {
            clock,
            store,
            stores,
            platform,
            ai,
            providers,
            ai_configs,
            queue,
            tasks,
            projects,
            engine,
            observer,
            feedback,
            talk,
        }
    }

    /// A project on the platform, synced into the store under a config of its own.
    pub async fn project(&self, fixture: ProjectFixture) -> (Project, ProjectRef) {
        let on_platform = self.platform.add_project(fixture);
        let config = seed::platform_config(&self.stores).await;
        let platform_project = {
            use reviewd_domain::ports::HostingPlatform;
            self.platform.get_project(&on_platform).await.unwrap()
        };
        let project = self
            .stores
            .projects
            .upsert_synced(config.id, &platform_project)
            .await
            .unwrap();
        (project, on_platform)
    }

    /// Queues an automatic review of the MR at `head` and returns its task.
    pub async fn enqueue(&self, project: &Project, iid: i64, head: &str) -> ReviewTask {
        let enqueued = self
            .tasks
            .enqueue(seed::new_task(project, iid, head))
            .await
            .unwrap();
        enqueued.task().clone()
    }

    /// Runs one attempt of the task as this world's worker, [`WORKER`].
    pub async fn run(&self, task: &ReviewTask) -> RunOutcome {
        self.engine.run(task.id, WORKER).await.unwrap()
    }

    pub async fn task(&self, task: &ReviewTask) -> ReviewTask {
        self.stores.tasks.get(task.id).await.unwrap()
    }

    /// The runner service over this world's store, engine and queue.
    #[must_use]
    pub fn runner_service(&self) -> RunnerService {
        RunnerService::new(
            self.stores.runners.clone(),
            self.stores.tasks.clone(),
            self.tasks.clone(),
            self.engine.clone(),
            self.projects.clone(),
            RunnerSettings {
                task_lease: Duration::from_secs(600),
                heartbeat_timeout: Duration::from_secs(30),
                claim_grace: Duration::from_secs(10),
                retry_delay: Duration::from_secs(5),
                prepared_max_age: Duration::from_secs(300),
                prepare_concurrency: 2,
            },
            self.clock.clone(),
        )
    }

    #[must_use]
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.clock.now()
    }
}

/// The `PROVIDERA_*` configuration of every world.
#[must_use]
pub fn builtin_ai() -> BuiltinAi {
    BuiltinAi {
        endpoint: Some("http://ai.invalid/v1".into()),
        api_key: Some(SecretString::new("sk-test")),
        model: "gpt-4o-mini".into(),
        max_concurrency: 3,
        prices: reviewd_domain::model::AiPrices::default(),
    }
}

/// A unified diff adding `lines` new lines to a file of one old line.
#[must_use]
pub fn added_lines(lines: &[&str]) -> String {
    let mut diff = format!("@@ -1,1 +1,{} @@\n context\n", lines.len() + 1);
    for l in lines {
        diff.push('+');
        diff.push_str(l);
        diff.push('\n');
    }
    diff
}

/// A model answer with comments `(line, severity, message)` on the file.
#[must_use]
pub fn answer(summary: &str, comments: &[(u32, &str, &str)]) -> String {
    let comments: Vec<_> = comments
        .iter()
        .map(|(line, severity, message)| {
            serde_json::json!({"line": line, "severity": severity, "message": message})
        })
        .collect();
    serde_json::json!({"summary": summary, "comments": comments}).to_string()
}

/// Whether a request is the round's last call, the MR's summary.
#[must_use]
pub fn is_summary(request: &reviewd_domain::ports::AiRequest) -> bool {
    request
        .json_schema
        .as_ref()
        .is_some_and(|(name, _)| name == "mr_summary")
}

/// A summary call's answer: `summary`, and each file of the prompt as `changed`.
#[must_use]
pub fn summary_answer(request: &reviewd_domain::ports::AiRequest, summary: &str) -> String {
    let mut answer = crate::summary_answer(&request.user);
    answer["summary"] = serde_json::json!(summary);
    answer.to_string()
}

/// The file path the prompt of a request is about.
#[must_use]
pub fn prompt_file(request: &reviewd_domain::ports::AiRequest) -> String {
    request
        .user
        .lines()
        .find_map(|l| l.strip_prefix("File under review: "))
        .and_then(|l| l.rsplit_once(" (").map(|(path, _)| path.to_owned()))
        .unwrap_or_default()
}

/// Notifications over the world's store through `notifiers`, waiting on `clock`:
/// three attempts a delivery, 2 s before the second.
#[must_use]
pub fn notification_service(
    world: &World,
    notifiers: Vec<Arc<dyn Notifier>>,
    clock: Arc<dyn Clock>,
) -> NotificationService {
    NotificationService::new(
        world.stores.notifications.clone(),
        world.stores.review_queries.clone(),
        notifiers,
        Arc::new(FakeVapidKeys::default()),
        clock,
        NotifySettings {
            max_attempts: 3,
            retry_base: Duration::from_secs(2),
            app_url: "https://reviewd.example.com".into(),
            system_name: "reviewd".into(),
            push_allow_private: false,
        },
    )
}

/// A runner's registration under API key `key`, taking up to `capacity` tasks.
#[must_use]
pub fn runner_registration(id: &str, key: Uuid, capacity: i32) -> RunnerRegistration {
    RunnerRegistration {
        id: id.into(),
        name: format!("runner {id}"),
        version: "1.0.0".into(),
        max_concurrent_jobs: capacity,
        tags: vec![],
        api_key_id: Some(key),
    }
}

/// A runner's result: one file `a.rs` reviewed without comments, rated A.
#[must_use]
pub fn runner_success(runner_id: &str) -> RunnerResult {
    RunnerResult {
        runner_id: runner_id.into(),
        status: RunnerOutcome::Success,
        files: vec![RunnerFileResult {
            file_path: "a.rs".into(),
            status: RunnerOutcome::Success,
            comments: vec![],
            summary: Some("Fine.".into()),
            error: None,
            context: None,
        }],
        total_comments: 0,
        rating: Some("A".into()),
        metrics: RunnerMetrics {
            duration_ms: 10,
            container_prepare_ms: 1,
            clone_ms: 1,
            review_ms: 7,
            submit_ms: 1,
            tokens_used: None,
            prompt_tokens: None,
            completion_tokens: None,
            cached_tokens: None,
        },
        error: None,
        logs: None,
        summary: None,
        context: None,
    }
}

/// MR `iid` at `head`, titled `MR <iid>`, adding one line to `a.rs`.
#[must_use]
pub fn mr(iid: i64, head: &str) -> MrFixture {
    MrFixture::new(iid)
        .head(head)
        .title(&format!("MR {iid}"))
        .file("a.rs", &added_lines(&["x"]))
}

/// A world with one project of `n` MRs (`mr`, heads `h1`...), each with a queued task.
pub async fn world_with_tasks(n: i64) -> (World, Vec<reviewd_domain::model::ReviewTask>) {
    let world = World::new();
    let fixture = (1..=n).fold(ProjectFixture::new("g/app"), |p, iid| {
        p.mr(mr(iid, &format!("h{iid}")))
    });
    let (project, _) = world.project(fixture).await;
    let mut tasks = Vec::new();
    for iid in 1..=n {
        tasks.push(world.enqueue(&project, iid, &format!("h{iid}")).await);
    }
    (world, tasks)
}
