//! `email`: a plain-text message over SMTP (lettre). `smtp_secure` means TLS from
//! the first byte (port 465 by default); otherwise STARTTLS when the server offers
//! it and plain SMTP when it does not (port 587 by default). Certificates are
//! always verified (against the Mozilla roots of webpki-roots).
//!
//! The transport (and its connection pool) is kept while the SMTP settings stay the
//! same, so a batch of recipients reuses one connection; changed settings build a
//! new one.

use crate::errors::scrub;
use async_trait::async_trait;
use lettre::message::Mailbox;
use lettre::message::header::ContentType;
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use reviewd_domain::model::notification::{Channel, Notification, NotificationConfig, Recipient};
use reviewd_domain::ports::{Notifier, NotifyError};
use std::sync::Mutex;
use std::time::Duration;

/// The SMTP submission port with TLS from the first byte (RFC 8314).
const IMPLICIT_TLS_PORT: u16 = 465;
/// The SMTP submission port with STARTTLS.
const SUBMISSION_PORT: u16 = 587;

type Transport = AsyncSmtpTransport<Tokio1Executor>;

pub struct SmtpNotifier {
    timeout: Duration,
    transport: Mutex<Option<(Settings, Transport)>>,
}

/// What a transport is built from (compared to reuse one; never printed).
#[derive(Clone, PartialEq, Eq)]
struct Settings {
    host: String,
    port: u16,
    secure: bool,
    credentials: Option<(String, String)>,
}

impl SmtpNotifier {
    /// `timeout` bounds connecting, each SMTP reply, and the whole delivery.
    #[must_use]
    pub fn new(timeout: Duration) -> Self {
        Self {
            timeout,
            transport: Mutex::new(None),
        }
    }

    fn transport(&self, settings: &Settings) -> Result<Transport, NotifyError> {
        let mut cached = self
            .transport
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((known, transport)) = cached.as_ref()
            && known == settings
        {
            return Ok(transport.clone());
        }
        let tls_parameters = TlsParameters::new(settings.host.clone()).map_err(|e| {
            NotifyError::NotConfigured(format!("cannot set up TLS for the SMTP host: {e}"))
        })?;
        let tls = if settings.secure {
            Tls::Wrapper(tls_parameters)
        } else {
            Tls::Opportunistic(tls_parameters)
        };
        let mut builder = Transport::builder_dangerous(settings.host.as_str())
            .port(settings.port)
            .tls(tls)
            .timeout(Some(self.timeout));
        if let Some((user, password)) = &settings.credentials {
            builder = builder.credentials(Credentials::new(user.clone(), password.clone()));
        }
        let transport = builder.build();
        *cached = Some((settings.clone(), transport.clone()));
        Ok(transport)
    }
}

fn set(v: Option<&str>) -> Option<&str> {
    v.map(str::trim).filter(|v| !v.is_empty())
}

fn settings(config: &NotificationConfig) -> Result<Settings, NotifyError> {
    let host = set(config.smtp_host.as_deref())
        .ok_or_else(|| NotifyError::NotConfigured("the SMTP host is not set".into()))?;
    let user = set(config.smtp_username.as_deref());
    let password = config
        .smtp_password
        .as_ref()
        .map(|p| p.expose())
        .filter(|p| !p.is_empty());
    let credentials = match (user, password) {
        (Some(u), Some(p)) => Some((u.to_owned(), p.to_owned())),
        (None, None) => None,
        (Some(_), None) => {
            return Err(NotifyError::NotConfigured(
                "the SMTP username is set but the password is not".into(),
            ));
        }
        (None, Some(_)) => {
            return Err(NotifyError::NotConfigured(
                "the SMTP password is set but the username is not".into(),
            ));
        }
    };
    let default_port = if config.smtp_secure {
        IMPLICIT_TLS_PORT
    } else {
        SUBMISSION_PORT
    };
    Ok(Settings {
        host: host.to_owned(),
        port: config.smtp_port.filter(|p| *p != 0).unwrap_or(default_port),
        secure: config.smtp_secure,
        credentials,
    })
}

/// Subject = the title; the body is the text, then the link on its own paragraph.
pub(crate) fn message(from: &str, to: &str, n: &Notification) -> Result<Message, NotifyError> {
    let from: Mailbox = from.trim().parse().map_err(|_| {
        NotifyError::NotConfigured("the sender address (email_from) is not valid".into())
    })?;
    let to: Mailbox = to
        .trim()
        .parse()
        .map_err(|_| NotifyError::Rejected(format!("{to:?} is not a valid email address")))?;
    let mut body = n.text.clone();
    if let Some(url) = &n.url {
        body.push_str("\n\n");
        body.push_str(url);
    }
    Message::builder()
        .from(from)
        .to(to)
        .subject(n.title.as_str())
        .header(ContentType::TEXT_PLAIN)
        .body(body)
        .map_err(|e| NotifyError::Rejected(format!("cannot build the message: {e}")))
}

/// 4xx replies and network trouble are worth another attempt; 5xx replies (a
/// refused login, recipient or message) are not.
fn smtp_error(e: &lettre::transport::smtp::Error, settings: &Settings) -> NotifyError {
    let password = settings
        .credentials
        .as_ref()
        .map_or("", |(_, p)| p.as_str());
    let text = scrub(
        &format!("SMTP {}:{}: {e}", settings.host, settings.port),
        &[password],
    );
    if e.is_permanent() || e.is_client() {
        NotifyError::Rejected(text)
    } else {
        NotifyError::Unavailable(text)
    }
}

#[async_trait]
impl Notifier for SmtpNotifier {
    fn channel(&self) -> Channel {
        Channel::Email
    }

    async fn send(
        &self,
        config: &NotificationConfig,
        recipient: &Recipient,
        notification: &Notification,
    ) -> Result<(), NotifyError> {
        let Recipient::Email(to) = recipient else {
            return Err(NotifyError::NotConfigured(
                "an email delivery needs an address".into(),
            ));
        };
        let settings = settings(config)?;
        let from = config
            .email_from
            .as_deref()
            .filter(|f| !f.trim().is_empty())
            .ok_or_else(|| {
                NotifyError::NotConfigured("the sender address (email_from) is not set".into())
            })?;
        let message = message(from, to, notification)?;
        let transport = self.transport(&settings)?;
        match tokio::time::timeout(self.timeout, transport.send(message)).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(smtp_error(&e, &settings)),
            Err(_) => Err(NotifyError::Unavailable(format!(
                "SMTP {}:{}: no answer within {:?}",
                settings.host, settings.port, self.timeout
            ))),
        }
    }
}
