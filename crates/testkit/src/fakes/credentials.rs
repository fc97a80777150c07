use async_trait::async_trait;
use reviewd_domain::model::WebhookProof;
use reviewd_domain::ports::{CredentialError, PasswordHasher, TokenHasher, WebhookVerifier};
use std::sync::atomic::{AtomicU64, Ordering};

/// Fast "hashing" for domain tests, salted with a counter so equal passwords
/// differ as they do under argon2 (`fake$<salt>$<hex of the password>`); never use
/// outside tests.
#[derive(Default)]
pub struct FakePasswordHasher {
    salt: AtomicU64,
}

fn hex(text: &str) -> String {
    text.bytes().map(|b| format!("{b:02x}")).collect()
}

#[async_trait]
impl PasswordHasher for FakePasswordHasher {
    async fn hash(&self, password: &str) -> Result<String, CredentialError> {
        let salt = self.salt.fetch_add(1, Ordering::Relaxed) + 1;
        Ok(format!("fake${salt}${}", hex(password)))
    }

    async fn verify(&self, password: &str, hash: &str) -> Result<bool, CredentialError> {
        let stored = hash
            .strip_prefix("fake$")
            .and_then(|rest| rest.split_once('$'))
            .filter(|(salt, _)| salt.parse::<u64>().is_ok())
            .map(|(_, stored)| stored)
            .ok_or(CredentialError::MalformedHash)?;
        Ok(stored == hex(password))
    }
}

/// Sequential tokens (`<prefix>tok1`, ...) and readable hashes (`h(<token>)`).
#[derive(Default)]
pub struct FakeTokenHasher {
    next: AtomicU64,
}

impl TokenHasher for FakeTokenHasher {
    fn generate(&self, prefix: &str) -> String {
        format!(
            "{prefix}tok{}",
            self.next.fetch_add(1, Ordering::Relaxed) + 1
        )
    }

    fn hash(&self, token: &str) -> String {
        format!("h({token})")
    }
}

/// Readable webhook proofs: a token proves the secret equal to it, a signature proves
/// `secret` when it reads `sig(<secret>:<body>)`.
#[derive(Debug, Default, Clone, Copy)]
pub struct FakeWebhookVerifier;

impl FakeWebhookVerifier {
    /// The signature this fake accepts for `body` under `secret`.
    #[must_use]
    pub fn sign(secret: &str, body: &[u8]) -> String {
        format!("sig({secret}:{})", String::from_utf8_lossy(body))
    }
}

impl WebhookVerifier for FakeWebhookVerifier {
    fn proves(&self, secret: &str, proof: &WebhookProof<'_>) -> bool {
        match proof {
            WebhookProof::Token(token) => *token == secret,
            WebhookProof::Signature { hex, body } => *hex == Self::sign(secret, body),
        }
    }
}
