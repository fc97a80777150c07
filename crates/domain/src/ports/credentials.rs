//! Hashing of passwords and bearer tokens. Kept behind ports so the domain holds
//! no crypto crate and tests can use fast fakes.

use async_trait::async_trait;

#[derive(Debug, thiserror::Error)]
pub enum CredentialError {
    /// The stored hash cannot be parsed.
    #[error("malformed password hash")]
    MalformedHash,
    #[error("credential backend failed: {0}")]
    Backend(String),
}

/// Slow, salted password hashing (argon2id in production).
#[async_trait]
pub trait PasswordHasher: Send + Sync {
    /// # Errors
    /// `Backend` if hashing fails.
    async fn hash(&self, password: &str) -> Result<String, CredentialError>;

    /// Whether `password` matches `hash`, in time independent of where they differ.
    ///
    /// # Errors
    /// `MalformedHash` for a hash it cannot read.
    async fn verify(&self, password: &str, hash: &str) -> Result<bool, CredentialError>;
}

/// Random bearer tokens (session cookies, API keys) and their keyed, fast hashes.
/// Tokens carry enough entropy that a slow hash is unnecessary.
pub trait TokenHasher: Send + Sync {
    /// A new random token starting with `prefix`.
    fn generate(&self, prefix: &str) -> String;

    /// The value stored for `token`; equal tokens give equal hashes.
    fn hash(&self, token: &str) -> String;
}

/// Whether a webhook delivery proves it was sent by the holder of a config's webhook
/// secret: the secret itself in a header (hostA), or the HMAC of the body under it
/// (hostB). Compared in time independent of where they differ.
pub trait WebhookVerifier: Send + Sync {
    fn proves(&self, secret: &str, proof: &crate::model::WebhookProof<'_>) -> bool;
}
