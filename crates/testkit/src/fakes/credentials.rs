use async_trait::async_trait;
use reviewd_domain::ports::{CredentialError, PasswordHasher, TokenHasher};
use std::sync::atomic::{AtomicU64, Ordering};

/// Reversible "hashing" that keeps domain tests fast; never use outside tests.
#[derive(Default)]
pub struct FakePasswordHasher;

#[async_trait]
impl PasswordHasher for FakePasswordHasher {
    async fn hash(&self, password: &str) -> Result<String, CredentialError> {
        Ok(format!("fake${password}"))
    }

    async fn verify(&self, password: &str, hash: &str) -> Result<bool, CredentialError> {
        let stored = hash
            .strip_prefix("fake$")
            .ok_or(CredentialError::MalformedHash)?;
        Ok(stored == password)
    }
}

/// Sequential tokens (`<prefix>tok1`, ...) and readable hashes.
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
