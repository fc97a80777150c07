//! An SMTP server stand-in for the email notifier's tests: an in-process tokio
//! server on `127.0.0.1` speaking enough SMTP for lettre (EHLO with `AUTH PLAIN
//! LOGIN`, no STARTTLS, MAIL/RCPT/DATA with dot-unstuffing, RSET, NOOP, QUIT). It
//! records each accepted message, can insist on credentials, answer a chosen command
//! with a chosen code, or never answer at all.
//!
//! ```ignore
//! let smtp = FakeSmtp::builder().credentials("bot", "pw").reply("RCPT", 451).start().await;
//! // ... point the adapter at 127.0.0.1:smtp.port() ...
//! assert!(smtp.messages().await.is_empty());
//! ```

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

/// The pseudo-command of the reply that ends a message (after `<CRLF>.<CRLF>`).
pub const END_OF_DATA: &str = ".";
/// The pseudo-command of the server's greeting, for [`FakeSmtpBuilder::stall_on`].
pub const GREETING: &str = "GREETING";

/// A message the server accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceivedMail {
    /// The `MAIL FROM` address.
    pub from: String,
    /// The `RCPT TO` addresses.
    pub recipients: Vec<String>,
    /// The message as sent after `DATA`, dot-unstuffed, without the final `.` line.
    pub data: String,
    /// The user that logged in on the connection, if any.
    pub authenticated_as: Option<String>,
}

impl ReceivedMail {
    /// The value of the first header called `name` (case-insensitive), unfolded.
    #[must_use]
    pub fn header(&self, name: &str) -> Option<String> {
        let head = self.data.split("\r\n\r\n").next().unwrap_or("");
        let mut found: Option<String> = None;
        for line in head.split("\r\n") {
            if line.starts_with([' ', '\t']) {
                if let Some(value) = found.as_mut() {
                    value.push(' ');
                    value.push_str(line.trim());
                }
                continue;
            }
            if found.is_some() {
                break;
            }
            if let Some((key, value)) = line.split_once(':')
                && key.eq_ignore_ascii_case(name)
            {
                found = Some(value.trim().to_owned());
            }
        }
        found
    }

    /// Everything after the header block.
    #[must_use]
    pub fn body(&self) -> &str {
        self.data
            .split_once("\r\n\r\n")
            .map_or("", |(_, body)| body)
    }
}

#[derive(Default)]
struct Recorded {
    messages: Vec<ReceivedMail>,
    commands: Vec<String>,
    connections: usize,
}

#[derive(Clone, Default)]
struct Behaviour {
    credentials: Option<(String, String)>,
    replies: HashMap<String, u16>,
    stall_on: Option<String>,
}

/// Options of a [`FakeSmtp`].
#[derive(Default)]
pub struct FakeSmtpBuilder {
    behaviour: Behaviour,
}

impl FakeSmtpBuilder {
    /// Accept `AUTH` with this pair only (535 otherwise), and refuse `MAIL` before
    /// a successful login (530).
    #[must_use]
    pub fn credentials(mut self, user: &str, password: &str) -> Self {
        self.behaviour.credentials = Some((user.to_owned(), password.to_owned()));
        self
    }

    /// Answer `command` (`"MAIL"`, `"RCPT"`, `"DATA"`, [`END_OF_DATA`], ...) with
    /// `code` instead of going on. A refused `DATA` reads no message.
    #[must_use]
    pub fn reply(mut self, command: &str, code: u16) -> Self {
        self.behaviour
            .replies
            .insert(command.to_ascii_uppercase(), code);
        self
    }

    /// Never answer `command` (or, with [`GREETING`], never greet): for timeouts.
    #[must_use]
    pub fn stall_on(mut self, command: &str) -> Self {
        self.behaviour.stall_on = Some(command.to_ascii_uppercase());
        self
    }

    /// Binds `127.0.0.1:0` and starts serving.
    ///
    /// # Panics
    /// The port cannot be bound.
    pub async fn start(self) -> FakeSmtp {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let recorded = Arc::new(Mutex::new(Recorded::default()));
        let behaviour = Arc::new(self.behaviour);
        let task = tokio::spawn(serve(listener, behaviour, Arc::clone(&recorded)));
        FakeSmtp {
            addr,
            recorded,
            task,
        }
    }
}

/// A running fake SMTP server; stops (connections included) when dropped.
pub struct FakeSmtp {
    addr: SocketAddr,
    recorded: Arc<Mutex<Recorded>>,
    task: JoinHandle<()>,
}

impl FakeSmtp {
    #[must_use]
    pub fn builder() -> FakeSmtpBuilder {
        FakeSmtpBuilder::default()
    }

    /// A server that accepts any message without login.
    pub async fn start() -> FakeSmtp {
        Self::builder().start().await
    }

    #[must_use]
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The messages accepted so far, oldest first.
    pub async fn messages(&self) -> Vec<ReceivedMail> {
        self.recorded.lock().unwrap().messages.clone()
    }

    /// Every command line received so far (AUTH exchanges as `AUTH <mechanism>`
    /// only), across connections.
    pub async fn commands(&self) -> Vec<String> {
        self.recorded.lock().unwrap().commands.clone()
    }

    /// How many connections were accepted.
    #[must_use]
    pub fn connections(&self) -> usize {
        self.recorded.lock().unwrap().connections
    }
}

impl Drop for FakeSmtp {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(listener: TcpListener, behaviour: Arc<Behaviour>, recorded: Arc<Mutex<Recorded>>) {
    // Connections live in the set, so aborting this task ends them too.
    let mut connections = JoinSet::new();
    while let Ok((stream, _)) = listener.accept().await {
        recorded.lock().unwrap().connections += 1;
        connections.spawn(session(
            stream,
            Arc::clone(&behaviour),
            Arc::clone(&recorded),
        ));
        while connections.try_join_next().is_some() {}
    }
}

struct Session {
    reader: BufReader<OwnedReadHalf>,
    writer: OwnedWriteHalf,
    behaviour: Arc<Behaviour>,
    recorded: Arc<Mutex<Recorded>>,
    user: Option<String>,
    from: Option<String>,
    recipients: Vec<String>,
}

async fn session(stream: TcpStream, behaviour: Arc<Behaviour>, recorded: Arc<Mutex<Recorded>>) {
    let (read, writer) = stream.into_split();
    let mut s = Session {
        reader: BufReader::new(read),
        writer,
        behaviour,
        recorded,
        user: None,
        from: None,
        recipients: Vec::new(),
    };
    // Any I/O error ends the session, as a real server would.
    let _ = s.run().await;
}

impl Session {
    async fn run(&mut self) -> std::io::Result<()> {
        self.stall_if(GREETING).await;
        self.write("220 fake-smtp ESMTP ready").await?;
        while let Some(line) = self.read_line().await? {
            let (verb, args) = match line.split_once(' ') {
                Some((v, a)) => (v.to_ascii_uppercase(), a.trim().to_owned()),
                None => (line.trim().to_ascii_uppercase(), String::new()),
            };
            let logged = if verb == "AUTH" {
                format!("AUTH {}", args.split(' ').next().unwrap_or(""))
            } else {
                line.clone()
            };
            self.recorded.lock().unwrap().commands.push(logged);
            self.stall_if(&verb).await;
            if let Some(code) = self.behaviour.replies.get(&verb) {
                self.write(&format!("{code} fake-smtp refuses {verb}"))
                    .await?;
                continue;
            }
            match verb.as_str() {
                "EHLO" => {
                    self.write("250-fake-smtp greets you\r\n250-8BITMIME\r\n250-SIZE 10485760\r\n250 AUTH PLAIN LOGIN")
                        .await?;
                }
                "HELO" => self.write("250 fake-smtp").await?,
                "AUTH" => self.auth(&args).await?,
                "MAIL" => self.mail(&args).await?,
                "RCPT" => self.rcpt(&args).await?,
                "DATA" => self.data().await?,
                "RSET" => {
                    self.from = None;
                    self.recipients.clear();
                    self.write("250 2.0.0 OK").await?;
                }
                "NOOP" => self.write("250 2.0.0 OK").await?,
                "QUIT" => {
                    self.write("221 2.0.0 Bye").await?;
                    return Ok(());
                }
                _ => self.write("502 5.5.2 Command not recognised").await?,
            }
        }
        Ok(())
    }

    async fn stall_if(&self, command: &str) {
        if self.behaviour.stall_on.as_deref() == Some(command) {
            std::future::pending::<()>().await;
        }
    }

    async fn write(&mut self, reply: &str) -> std::io::Result<()> {
        self.writer.write_all(reply.as_bytes()).await?;
        self.writer.write_all(b"\r\n").await?;
        self.writer.flush().await
    }

    /// One line without its line ending; `None` at the end of the stream.
    async fn read_line(&mut self) -> std::io::Result<Option<String>> {
        let mut raw = Vec::new();
        if self.reader.read_until(b'\n', &mut raw).await? == 0 {
            return Ok(None);
        }
        let line = String::from_utf8_lossy(&raw);
        Ok(Some(line.trim_end_matches(['\r', '\n']).to_owned()))
    }

    async fn auth(&mut self, args: &str) -> std::io::Result<()> {
        let mut parts = args.split_whitespace();
        let mechanism = parts.next().unwrap_or("").to_ascii_uppercase();
        let initial = parts.next().map(str::to_owned);
        let decode = |text: &str| {
            STANDARD
                .decode(text.trim())
                .ok()
                .map(|b| String::from_utf8_lossy(&b).into_owned())
        };
        let pair = match mechanism.as_str() {
            "PLAIN" => {
                let response = match initial {
                    Some(r) => r,
                    None => {
                        self.write("334 ").await?;
                        self.read_line().await?.unwrap_or_default()
                    }
                };
                decode(&response).and_then(|plain| {
                    let mut fields = plain.split('\0');
                    let _authorization_id = fields.next()?;
                    Some((fields.next()?.to_owned(), fields.next()?.to_owned()))
                })
            }
            "LOGIN" => {
                let user = match initial {
                    Some(u) => u,
                    None => {
                        self.write("334 VXNlcm5hbWU6").await?;
                        self.read_line().await?.unwrap_or_default()
                    }
                };
                self.write("334 UGFzc3dvcmQ6").await?;
                let password = self.read_line().await?.unwrap_or_default();
                decode(&user).zip(decode(&password))
            }
            _ => {
                return self
                    .write("504 5.5.4 Unrecognised authentication type")
                    .await;
            }
        };
        match (pair, &self.behaviour.credentials) {
            (Some(given), Some(expected)) if given == *expected => {
                self.user = Some(given.0);
                self.write("235 2.7.0 Authentication successful").await
            }
            _ => {
                self.write("535 5.7.8 Authentication credentials invalid")
                    .await
            }
        }
    }

    async fn mail(&mut self, args: &str) -> std::io::Result<()> {
        if self.behaviour.credentials.is_some() && self.user.is_none() {
            return self.write("530 5.7.0 Authentication required").await;
        }
        match address(args, "FROM:") {
            Some(from) => {
                self.from = Some(from);
                self.recipients.clear();
                self.write("250 2.1.0 OK").await
            }
            None => self.write("501 5.5.4 Syntax: MAIL FROM:<address>").await,
        }
    }

    async fn rcpt(&mut self, args: &str) -> std::io::Result<()> {
        if self.from.is_none() {
            return self.write("503 5.5.1 MAIL first").await;
        }
        match address(args, "TO:") {
            Some(to) => {
                self.recipients.push(to);
                self.write("250 2.1.5 OK").await
            }
            None => self.write("501 5.5.4 Syntax: RCPT TO:<address>").await,
        }
    }

    async fn data(&mut self) -> std::io::Result<()> {
        if self.recipients.is_empty() {
            return self.write("503 5.5.1 RCPT first").await;
        }
        self.write("354 End data with <CR><LF>.<CR><LF>").await?;
        let mut lines = Vec::new();
        loop {
            let Some(line) = self.read_line().await? else {
                return Ok(());
            };
            if line == "." {
                break;
            }
            // A client doubles every leading dot (RFC 5321 4.5.2): undo it.
            lines.push(
                line.strip_prefix('.')
                    .map_or_else(|| line.clone(), str::to_owned),
            );
        }
        self.stall_if(END_OF_DATA).await;
        if let Some(code) = self.behaviour.replies.get(END_OF_DATA) {
            return self
                .write(&format!("{code} fake-smtp refuses the message"))
                .await;
        }
        let mail = ReceivedMail {
            from: self.from.take().unwrap_or_default(),
            recipients: std::mem::take(&mut self.recipients),
            data: lines.join("\r\n"),
            authenticated_as: self.user.clone(),
        };
        self.recorded.lock().unwrap().messages.push(mail);
        self.write("250 2.0.0 OK: queued").await
    }
}

/// The address of `FROM:<a@b> SIZE=..` (or `TO:<a@b>`).
fn address(args: &str, prefix: &str) -> Option<String> {
    let head = args.get(..prefix.len())?;
    if !head.eq_ignore_ascii_case(prefix) {
        return None;
    }
    let rest = &args[prefix.len()..];
    let rest = rest.trim_start();
    let inner = rest.strip_prefix('<')?.split('>').next()?;
    Some(inner.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_headers_parse() {
        assert_eq!(
            address("FROM:<bot@example.com> SIZE=12", "FROM:").as_deref(),
            Some("bot@example.com")
        );
        assert_eq!(address("to: <a@b.c>", "TO:").as_deref(), Some("a@b.c"));
        assert_eq!(address("TO:a@b.c", "TO:"), None);
        let mail = ReceivedMail {
            from: String::new(),
            recipients: vec![],
            data: "Subject: Hello\r\n there\r\nTo: a@b.c\r\n\r\nbody\r\n..x".into(),
            authenticated_as: None,
        };
        assert_eq!(mail.header("subject").as_deref(), Some("Hello there"));
        assert_eq!(mail.header("To").as_deref(), Some("a@b.c"));
        assert_eq!(mail.body(), "body\r\n..x");
    }
}
