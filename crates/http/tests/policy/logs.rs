//! Retries and the final failure logged without the query.

use super::*;

/// Log lines written while it is the default subscriber.
#[derive(Clone, Default)]
struct Logs(Arc<Mutex<Vec<u8>>>);

impl Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(start_paused = true)]
async fn retries_and_the_final_failure_are_logged_without_the_query() {
    let logs = Logs::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let server = Script::new(&[UNAVAILABLE]);
    server
        .run(&RetryPolicy::default(), Method::GET, false)
        .await
        .unwrap_err();

    let text = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert_eq!(text.matches("http.retrying").count(), 2, "{text}");
    assert_eq!(text.matches("http.call_failed").count(), 1, "{text}");
    assert!(
        text.contains("https://gitlab.example/api/v4/projects"),
        "{text}"
    );
    assert!(
        !text.contains("secret"),
        "the query is never logged: {text}"
    );
}
