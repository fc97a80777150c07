//! The load generator: HTTP/1.1 keep-alive connections on hyper, closed loop (C
//! connections sending back to back) or open loop (a fixed offered rate, latency
//! measured from each request's intended send time, so a stalled server is charged
//! for every request it delayed: no coordinated omission).

use bytes::Bytes;
use hdrhistogram::Histogram;
use http::{Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

pub type HttpClient = Client<HttpConnector, Full<Bytes>>;

/// Request number `n` (each run numbers from a fresh start the caller offsets).
pub type MakeRequest = Arc<dyn Fn(u64) -> Request<Full<Bytes>> + Send + Sync>;

pub fn client() -> HttpClient {
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    Client::builder(TokioExecutor::new())
        .pool_max_idle_per_host(1024)
        .build(connector)
}

/// What one load run saw.
pub struct Outcome {
    pub answered: u64,
    /// Answers by status; 0 counts requests that got no answer.
    pub statuses: BTreeMap<u16, u64>,
    /// Latency in µs (open loop: from the intended send time).
    pub latency: Histogram<u64>,
    /// Open loop: how late the generator itself sent, in µs (its own error).
    pub send_lag: Histogram<u64>,
    pub elapsed: Duration,
    /// Open loop: each request's due time (µs after the run's start) and latency (µs),
    /// in due order; empty for a closed loop.
    pub trace: Vec<(u64, u64)>,
    /// CPU seconds the benchmark process (client and fakes) and the server used.
    pub client_cpu: f64,
    pub server_cpu: f64,
}

impl Outcome {
    pub fn rate(&self) -> f64 {
        self.answered as f64 / self.elapsed.as_secs_f64()
    }

    pub fn count(&self, status: StatusCode) -> u64 {
        self.statuses.get(&status.as_u16()).copied().unwrap_or(0)
    }

    /// `p` in 0..=100, in µs.
    pub fn p(&self, p: f64) -> u64 {
        self.latency.value_at_quantile(p / 100.0)
    }

    /// Open loop: runs of requests slower than `slow_us` whose due times lie within
    /// `gap_us` of each other, as (first due, last due, requests, worst latency), µs.
    pub fn slow_runs(&self, slow_us: u64, gap_us: u64) -> Vec<(u64, u64, usize, u64)> {
        let mut runs: Vec<(u64, u64, usize, u64)> = Vec::new();
        for &(due, latency) in self.trace.iter().filter(|(_, l)| *l >= slow_us) {
            match runs.last_mut() {
                Some(run) if due <= run.1 + gap_us => {
                    *run = (run.0, due, run.2 + 1, run.3.max(latency));
                }
                _ => runs.push((due, due, 1, latency)),
            }
        }
        runs
    }

    /// The CPU both sides used, as a share of the machine's cores over the run.
    pub fn cpu_note(&self) -> String {
        let cores = std::thread::available_parallelism().map_or(1, usize::from) as f64;
        let wall = self.elapsed.as_secs_f64() * cores;
        format!(
            "CPU: server {:.0} %, bench process {:.0} % of {cores} cores",
            100.0 * self.server_cpu / wall,
            100.0 * self.client_cpu / wall
        )
    }
}

pub fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 120_000_000, 3).expect("histogram bounds")
}

struct Tally {
    latency: Histogram<u64>,
    send_lag: Histogram<u64>,
    statuses: BTreeMap<u16, u64>,
    trace: Vec<(u64, u64)>,
}

impl Tally {
    fn new() -> Tally {
        Tally {
            latency: histogram(),
            send_lag: histogram(),
            statuses: BTreeMap::new(),
            trace: Vec::new(),
        }
    }
}

/// Sends one request, reads the whole answer; its status (0: none).
async fn exchange(client: &HttpClient, request: Request<Full<Bytes>>) -> u16 {
    match client.request(request).await {
        Ok(response) => {
            let status = response.status().as_u16();
            match response.into_body().collect().await {
                Ok(_) => status,
                Err(_) => 0,
            }
        }
        Err(_) => 0,
    }
}

/// CPU seconds (user + system) of process `pid` so far, from `/proc/<pid>/stat`.
pub fn cpu_seconds(pid: &str) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    let Some(after) = stat.rfind(')').and_then(|i| stat.get(i + 2..)) else {
        return 0.0;
    };
    let fields: Vec<&str> = after.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the state.
    let ticks: f64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<f64>().ok())
        .sum();
    // Linux reports them in USER_HZ, 100 on every architecture it runs on.
    ticks / 100.0
}

struct CpuClock {
    server: String,
    start: (f64, f64),
}

impl CpuClock {
    fn start(server_pid: u32) -> CpuClock {
        let server = server_pid.to_string();
        let start = (cpu_seconds("self"), cpu_seconds(&server));
        CpuClock { server, start }
    }

    fn stop(&self) -> (f64, f64) {
        (
            cpu_seconds("self") - self.start.0,
            cpu_seconds(&self.server) - self.start.1,
        )
    }
}

/// `connections` loops, each sending the next request when its last one is answered,
/// for `duration`.
pub async fn closed(
    client: &HttpClient,
    make: MakeRequest,
    connections: usize,
    duration: Duration,
    server_pid: u32,
) -> Outcome {
    let next = Arc::new(AtomicU64::new(0));
    let cpu = CpuClock::start(server_pid);
    let started = Instant::now();
    let end = started + duration;
    let loops = (0..connections).map(|_| {
        let (client, make, next) = (client.clone(), make.clone(), next.clone());
        tokio::spawn(async move {
            let mut tally = Tally::new();
            while Instant::now() < end {
                let request = make(next.fetch_add(1, Ordering::Relaxed));
                let sent = Instant::now();
                let status = exchange(&client, request).await;
                tally.latency.saturating_record(micros(sent.elapsed()));
                *tally.statuses.entry(status).or_default() += 1;
            }
            tally
        })
    });
    let tallies = futures_util::future::join_all(loops).await;
    let elapsed = started.elapsed();
    let (client_cpu, server_cpu) = cpu.stop();
    outcome(
        tallies.into_iter().map(|t| t.expect("a load loop")),
        elapsed,
        client_cpu,
        server_cpu,
    )
}

/// `rate` requests a second for `duration`, each sent at its due time whatever the
/// answers to earlier ones (at most `in_flight` at once: more wait, and their wait
/// counts in their latency).
pub async fn open(
    client: &HttpClient,
    make: MakeRequest,
    rate: f64,
    duration: Duration,
    in_flight: usize,
    server_pid: u32,
) -> Outcome {
    let total = (rate * duration.as_secs_f64()) as u64;
    let started = Instant::now() + Duration::from_millis(20);
    let due = move |i: u64| started + Duration::from_secs_f64(i as f64 / rate);
    // A thread of its own wakes at each due time: tokio's timer has a 1 ms grain,
    // which would add up to 1 ms to every latency measured from the due time.
    let (ticks, mut due_now) = tokio::sync::mpsc::unbounded_channel::<u64>();
    let stop = Arc::new(AtomicBool::new(false));
    let ticker = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            for i in 0..total {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let wait = due(i).saturating_duration_since(Instant::now());
                if !wait.is_zero() {
                    std::thread::sleep(wait);
                }
                if ticks.send(i).is_err() {
                    return;
                }
            }
        })
    };
    let tally = Arc::new(Mutex::new(Tally::new()));
    let limit = Arc::new(Semaphore::new(in_flight));
    let cpu = CpuClock::start(server_pid);
    let mut requests = tokio::task::JoinSet::new();
    while let Some(i) = due_now.recv().await {
        let request = make(i);
        let (client, tally, limit) = (client.clone(), tally.clone(), limit.clone());
        let intended = due(i);
        requests.spawn(async move {
            let lag = micros(Instant::now().saturating_duration_since(intended));
            let _slot = limit.acquire_owned().await;
            let status = exchange(&client, request).await;
            let latency = micros(Instant::now().saturating_duration_since(intended));
            let mut tally = tally.lock().expect("the tally");
            tally.latency.saturating_record(latency);
            tally.send_lag.saturating_record(lag);
            tally
                .trace
                .push((micros(intended.saturating_duration_since(started)), latency));
            *tally.statuses.entry(status).or_default() += 1;
        });
        // Reap finished requests as we go, so the set stays small.
        while requests.try_join_next().is_some() {}
    }
    stop.store(true, Ordering::Relaxed);
    let _ = ticker.join();
    while requests.join_next().await.is_some() {}
    let elapsed = started.elapsed();
    let (client_cpu, server_cpu) = cpu.stop();
    let tally = Arc::try_unwrap(tally)
        .ok()
        .expect("every request finished")
        .into_inner()
        .expect("the tally");
    outcome([tally], elapsed, client_cpu, server_cpu)
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX).max(1)
}

fn outcome(
    tallies: impl IntoIterator<Item = Tally>,
    elapsed: Duration,
    client_cpu: f64,
    server_cpu: f64,
) -> Outcome {
    let mut all = Tally::new();
    for t in tallies {
        all.latency.add(&t.latency).expect("same bounds");
        all.send_lag.add(&t.send_lag).expect("same bounds");
        all.trace.extend(t.trace);
        for (status, n) in t.statuses {
            *all.statuses.entry(status).or_default() += n;
        }
    }
    all.trace.sort_unstable();
    Outcome {
        trace: all.trace,
        answered: all
            .statuses
            .iter()
            .filter(|(s, _)| **s != 0)
            .map(|(_, n)| n)
            .sum(),
        statuses: all.statuses,
        latency: all.latency,
        send_lag: all.send_lag,
        elapsed,
        client_cpu,
        server_cpu,
    }
}

/// Sends one request; its status and body (status 0 and no body: no answer).
pub async fn fetch(client: &HttpClient, request: Request<Full<Bytes>>) -> (u16, Bytes) {
    match client.request(request).await {
        Ok(response) => {
            let status = response.status().as_u16();
            match response.into_body().collect().await {
                Ok(body) => (status, body.to_bytes()),
                Err(_) => (0, Bytes::new()),
            }
        }
        Err(_) => (0, Bytes::new()),
    }
}

/// The latencies of many calls, in µs.
pub fn histogram_of(latencies: &[Duration]) -> Histogram<u64> {
    let mut h = histogram();
    for l in latencies {
        h.saturating_record(micros(*l));
    }
    h
}
