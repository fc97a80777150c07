//! Test support for reviewd: small working in-memory implementations of the ports
//! (for domain tests), [`TestDb`] (a migrated PostgreSQL database per test), and
//! fake GitLab/GitHub and OpenAI-compatible servers that answer with the real APIs'
//! JSON shapes.
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test support: a fake or fixture that cannot be set up fails the test that uses it"
)]

pub mod contract;
pub mod fakes;
pub mod memory;
pub mod repository;
mod test_db;
pub mod world;

pub use fakes::github::{FakeGithub, TokenMint, github_repo};
pub use fakes::gitlab::{FakeGitlab, gitlab_project};
pub use fakes::openai::{
    SUMMARY, USAGE, completion, fake_openai, file_prompts, is_summary_call, prompt_of,
    summary_answer,
};
pub use fakes::smtp::{FakeSmtp, FakeSmtpBuilder, ReceivedMail};
pub use memory::MemoryStore;
pub use test_db::{TestDb, execute_sql, test_redis_url};
