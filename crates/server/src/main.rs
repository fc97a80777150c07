//! `reviewd serve` runs the server (the API and the dashboard); `reviewd migrate`
//! applies database migrations; `reviewd eval` scores the reviewer on a set of
//! cases. Commands only: the server is built by this crate's library (`startup`), the
//! API is `reviewd-api`, the pages `reviewd-web`, the eval `reviewd-eval`.

mod eval;

use clap::{Parser, Subcommand};
use reviewd_server::{Application, Config, startup, telemetry};
use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[derive(Parser)]
#[command(
    name = "reviewd",
    version,
    about = "Self-hosted AI reviews of merge and pull requests"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Apply migrations, then serve the API and the dashboard.
    Serve,
    /// Apply pending database migrations and exit.
    Migrate,
    /// Run the review engine on a set of cases and score its findings (no
    /// database, Redis or platform needed).
    Eval(eval::EvalArgs),
    /// Write a project's reviews that readers judged as eval cases (reads
    /// `DATABASE_URL`; the commits come from a local clone).
    ExportEval(eval::ExportArgs),
}

/// Exit status for configuration and start-up failures.
const EXIT_CONFIG: u8 = 2;

#[actix_web::main]
async fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Eval(args) => eval::main(args).await,
        Command::ExportEval(args) => eval::export(args).await,
        Command::Migrate => {
            let config = match Config::from_env() {
                Ok(config) => config,
                Err(err) => return fail(&err),
            };
            let _logs = telemetry::init(&config);
            match startup::migrate(&config).await {
                Ok(applied) => {
                    println!("reviewd: {} migration(s) applied", applied.len());
                    ExitCode::SUCCESS
                }
                Err(err) => fail(&err),
            }
        }
        Command::Serve => {
            let config = match Config::from_env() {
                Ok(config) => config,
                Err(err) => return fail(&err),
            };
            let _logs = telemetry::init(&config);
            let app = match Application::build(config).await {
                Ok(app) => app,
                Err(err) => return fail(&err),
            };
            match app.run_until_stopped().await {
                Ok(()) => ExitCode::SUCCESS,
                Err(err) => {
                    eprintln!("reviewd: server error: {err}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

/// One line on stderr, naming the variable at fault; never a secret value.
fn fail(err: &dyn std::fmt::Display) -> ExitCode {
    eprintln!("reviewd: {err}");
    ExitCode::from(EXIT_CONFIG)
}
