//! Runner agents next to the server; one is killed with SIGKILL while it holds
//! tasks: the sweep finds it silent, gives its tasks back, and another runner
//! completes them.

use super::refused;
use crate::run::{RUNNER_SILENCE, Run, Setup};
use std::time::{Duration, Instant};

/// Slack over the runner silence for the sweep to give the tasks back: the last
/// heartbeat came up to 0.5 s before the kill, and the sweep runs every half silence
/// (2 s), looked at every quarter.
const SWEEP_SLACK: Duration = Duration::from_secs(5);

/// Two runners with room for every MR between them; the one holding the most tasks
/// is killed mid-review. Its tasks are queued again within the silence plus a
/// sweep and completed elsewhere (the other runner, or the server's workers when it
/// has no room), and nothing is posted twice.
pub async fn runner_killed(mrs: i64) {
    let jobs = usize::try_from(mrs).unwrap_or(1).div_ceil(2).max(1);
    let setup = Setup {
        ai_latency: Duration::from_secs(2),
        runners: vec![jobs, jobs],
        ..Setup::default()
    };
    let mut run = Run::start("runner killed mid-task", mrs, setup).await;
    let mut extra = refused(&run.send_webhooks(1..=mrs).await);
    let names: Vec<String> = run.agents.iter().map(|a| a.name.clone()).collect();
    let busiest = |run: &Run| {
        names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let held = run.held_by_runner(name);
                let reviewing = held
                    .iter()
                    .filter(|(_, phase)| phase == "reviewing")
                    .count();
                (reviewing, i, held)
            })
            .max_by_key(|(reviewing, i, _)| (*reviewing, *i))
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    let (victim, held) = loop {
        if let Some((reviewing, i, held)) = busiest(&run)
            && reviewing > 0
        {
            break (i, held);
        }
        if Instant::now() > deadline {
            run.fail(&["no runner reviewing after 60 s".to_owned()]);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let held: Vec<String> = held.into_iter().map(|(id, _)| id).collect();
    println!(
        "{}: killing {} holding {} tasks",
        run.name,
        run.agents[victim].name,
        held.len()
    );
    let killed = Instant::now();
    run.agents[victim].kill();
    run.fault_ended();
    let victim_name = run.agents[victim].name.clone();
    loop {
        let still = run.held_by_runner(&victim_name).len();
        if still == 0 {
            break;
        }
        if killed.elapsed() > RUNNER_SILENCE + SWEEP_SLACK {
            extra.push(format!(
                "{still} of the {} tasks {victim_name} held were not given back within {:?}",
                held.len(),
                RUNNER_SILENCE + SWEEP_SLACK
            ));
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    println!(
        "{}: {} tasks of {victim_name} given back after {:.1?} (silence {RUNNER_SILENCE:?})",
        run.name,
        held.len(),
        killed.elapsed()
    );
    let row = run.settle().await;
    // Who did the reviews in the end (the killed runner's calls were never reported):
    // the survivor, or the server's workers while the survivor had no room.
    let by = run.app.sql(
        "SELECT string_agg(provider || ': ' || n, ', ' ORDER BY provider) FROM \
         (SELECT provider, count(DISTINCT review_id) AS n FROM ai_call_logs GROUP BY provider) p",
    );
    println!("{}: reviews by {by}", run.name);
    run.conclude(&row, &extra);
}
