//! A headless Chromium for one test: its own chromedriver on a free port, its own
//! profile, and the console's errors collected from chromedriver's log.

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Browser {
    pub client: Client,
    driver: Child,
    driver_url: String,
    base: String,
    profile: PathBuf,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `var`'s value, or `name` found on `PATH`: chromedriver wants Chromium's full
/// path, so `cargo test` alone works as `scripts/test.sh` does.
fn program(var: &str, name: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| {
        std::env::var_os("PATH")
            .iter()
            .flat_map(std::env::split_paths)
            .map(|dir| dir.join(name))
            .find(|path| path.is_file())
            .map_or_else(|| name.to_owned(), |path| path.display().to_string())
    })
}

impl Browser {
    /// A desktop browser (1280×900, the system's light theme) whose relative paths go to
    /// `base` (the app's URL).
    pub async fn start(base: &str) -> Browser {
        Self::start_with(base, (1280, 900), false).await
    }

    /// A browser of `size` (CSS pixels), in dark mode when `dark`.
    pub async fn start_with(base: &str, size: (u32, u32), dark: bool) -> Browser {
        let port = free_port();
        let chromedriver = program("REVIEWD_CHROMEDRIVER", "chromedriver");
        let driver = Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot start {chromedriver} ({e}): the browser tests need Debian's chromium and \
                     chromium-driver; ./scripts/test.sh installs them"
                )
            });
        let driver_url = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "chromedriver did not listen on {port}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let profile = std::env::temp_dir().join(format!(
            "reviewd-chromium-{}",
            uuid::Uuid::new_v4().simple()
        ));
        let mut args = vec![
            "--headless=new".to_owned(),
            "--no-sandbox".to_owned(),
            "--disable-dev-shm-usage".to_owned(),
            "--disable-gpu".to_owned(),
            "--no-first-run".to_owned(),
            "--disable-extensions".to_owned(),
            format!("--window-size={},{}", size.0, size.1),
            format!("--user-data-dir={}", profile.display()),
        ];
        if dark {
            args.push("--force-dark-mode".to_owned());
        }
        let mut caps = serde_json::Map::new();
        caps.insert(
            "goog:chromeOptions".to_owned(),
            json!({ "binary": program("REVIEWD_CHROMIUM", "chromium"), "args": args }),
        );
        caps.insert("goog:loggingPrefs".to_owned(), json!({ "browser": "ALL" }));
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let client = ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(&driver_url)
            .await
            .expect("a WebDriver session with headless Chromium");
        Browser {
            client,
            driver,
            driver_url,
            base: base.to_owned(),
            profile,
        }
    }

    pub async fn goto(&self, path: &str) {
        self.client
            .goto(&format!("{}{path}", self.base))
            .await
            .unwrap();
    }

    pub async fn path(&self) -> String {
        let url = self.client.current_url().await.unwrap();
        match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_owned(),
        }
    }

    /// Waits (up to 15 s) for an element matching `css`.
    pub async fn find(&self, css: &str) -> fantoccini::elements::Element {
        self.client
            .wait()
            .at_most(Duration::from_secs(15))
            .for_element(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("no element {css} on {}: {e}", self.base))
    }

    pub async fn exists(&self, css: &str) -> bool {
        self.client.find(Locator::Css(css)).await.is_ok()
    }

    pub async fn fill(&self, css: &str, value: &str) {
        let field = self.find(css).await;
        field.clear().await.unwrap();
        field.send_keys(value).await.unwrap();
    }

    pub async fn click(&self, css: &str) {
        self.find(css).await.click().await.unwrap();
    }

    /// Clicks the button or link whose text contains `text`, within `scope`.
    pub async fn click_text(&self, scope: &str, text: &str) {
        let xpath = format!("//*[self::button or self::a][contains(normalize-space(.), '{text}')]");
        // The page may render `scope` again between the two look-ups (a list that
        // refreshes itself), or a navigation may replace it: the element is looked
        // up afresh, a few times.
        let mut tries = 0;
        loop {
            let root = self.find(scope).await;
            let clicked = match root.find(Locator::XPath(&format!(".{xpath}"))).await {
                Ok(element) => element.click().await,
                Err(e) => Err(e),
            };
            match clicked {
                Ok(()) => return,
                // Found in the page being left: a navigation (a form's answer) was
                // under way. Look again in the page that replaces it.
                Err(e) if tries < 10 && left_behind(&e.to_string()) => {
                    tries += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                }
                Err(e) => panic!("no '{text}' in {scope}: {e}"),
            }
        }
    }

    /// Runs `script` (a function body) in the page and returns its value.
    pub async fn eval(&self, script: &str) -> Value {
        self.client.execute(script, vec![]).await.unwrap()
    }

    pub async fn text(&self, css: &str) -> String {
        self.find(css).await.text().await.unwrap()
    }

    /// Waits (up to `secs`) until the text of `css` contains `expected`.
    pub async fn wait_text(&self, css: &str, expected: &str, secs: u64) -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let text = match self.client.find(Locator::Css(css)).await {
                Ok(e) => e.text().await.unwrap_or_default(),
                Err(_) => String::new(),
            };
            if text.contains(expected) {
                return text;
            }
            if Instant::now() >= deadline {
                let source = self.client.source().await.unwrap_or_default();
                panic!(
                    "{css} never showed '{expected}' (last: '{text}', at {}); the page:\n{source}",
                    self.path().await
                );
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Saves a PNG of the page as `<name>.png` in `REVIEWD_SCREENSHOTS_DIR`, when set
    /// (`docs/dashboard/` holds the last ones taken).
    pub async fn screenshot(&self, name: &str) {
        let Ok(dir) = std::env::var("REVIEWD_SCREENSHOTS_DIR") else {
            return;
        };
        let png = self.client.screenshot().await.unwrap();
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(PathBuf::from(dir).join(format!("{name}.png")), png).unwrap();
    }

    /// The console's messages since the last call, as `(level, message)`.
    pub async fn console(&self) -> Vec<(String, String)> {
        let session = self.client.session_id().await.unwrap().unwrap();
        let body: Value = reqwest::Client::new()
            .post(format!("{}/session/{session}/se/log", self.driver_url))
            .json(&json!({ "type": "browser" }))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        body["value"]
            .as_array()
            .unwrap_or_else(|| panic!("chromedriver's log answer: {body}"))
            .iter()
            .map(|e| {
                (
                    e["level"].as_str().unwrap_or_default().to_owned(),
                    e["message"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    }

    /// Fails on any error in the console since the last look.
    pub async fn assert_no_console_errors(&self) {
        let errors: Vec<_> = self
            .console()
            .await
            .into_iter()
            .filter(|(level, _)| level == "SEVERE")
            .collect();
        assert!(errors.is_empty(), "JavaScript console errors: {errors:?}");
    }

    pub async fn close(mut self) {
        self.assert_no_console_errors().await;
        let _ = self.client.clone().close().await;
        let _ = self.driver.kill();
        let _ = self.driver.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.driver.kill();
    }
}

/// Whether a WebDriver error says the element belonged to a page that has gone
/// (rendered again, or navigated away from) rather than that it does not exist.
fn left_behind(error: &str) -> bool {
    error.contains("stale element")
        || error.contains("does not belong to the document")
        || error.contains("no such element")
}
