use argon2::password_hash::{PasswordHasher as _, PasswordVerifier as _};
use argon2::{Algorithm, Argon2, Params, Version};
use async_trait::async_trait;
use reviewd_domain::ports::{CredentialError, PasswordHasher};

/// argon2id with OWASP's recommended parameters (19 MiB, 2 passes, 1 lane), run on
/// tokio's blocking pool so a login never stalls the request threads.
#[derive(Clone)]
pub struct Argon2PasswordHasher {
    params: Params,
}

impl Argon2PasswordHasher {
    /// Production parameters.
    #[must_use]
    pub fn new() -> Self {
        Self {
            params: Params::default(),
        }
    }

    /// Cheapest valid parameters, for tests that create many users.
    ///
    /// # Errors
    /// Never in practice; the parameters are constants within argon2's bounds.
    pub fn fast_for_tests() -> Result<Self, CredentialError> {
        let params = Params::new(Params::MIN_M_COST, 1, 1, None)
            .map_err(|e| CredentialError::Backend(e.to_string()))?;
        Ok(Self { params })
    }

    fn argon2(&self) -> Argon2<'static> {
        Argon2::new(Algorithm::Argon2id, Version::V0x13, self.params.clone())
    }
}

impl Default for Argon2PasswordHasher {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl PasswordHasher for Argon2PasswordHasher {
    async fn hash(&self, password: &str) -> Result<String, CredentialError> {
        let argon2 = self.argon2();
        let password = password.to_owned();
        tokio::task::spawn_blocking(move || {
            let salt: [u8; 16] = crate::random_bytes();
            argon2
                .hash_password_with_salt(password.as_bytes(), &salt)
                .map(|hash| hash.to_string())
                .map_err(|e| CredentialError::Backend(e.to_string()))
        })
        .await
        .map_err(|e| CredentialError::Backend(e.to_string()))?
    }

    async fn verify(&self, password: &str, hash: &str) -> Result<bool, CredentialError> {
        // Parameters are read from the stored hash, so older hashes keep verifying
        // after the defaults change.
        let argon2 = Argon2::default();
        let password = password.to_owned();
        let hash = hash.to_owned();
        tokio::task::spawn_blocking(move || {
            match argon2.verify_password(password.as_bytes(), hash.as_str()) {
                Ok(()) => Ok(true),
                Err(argon2::password_hash::Error::PasswordInvalid) => Ok(false),
                Err(_) => Err(CredentialError::MalformedHash),
            }
        })
        .await
        .map_err(|e| CredentialError::Backend(e.to_string()))?
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_are_salted_and_verify() -> Result<(), CredentialError> {
        let hasher = Argon2PasswordHasher::fast_for_tests()?;
        let a = hasher.hash("correct horse").await?;
        let b = hasher.hash("correct horse").await?;
        assert!(a.starts_with("$argon2id$"));
        assert_ne!(a, b, "two hashes of one password must differ by salt");
        assert!(hasher.verify("correct horse", &a).await?);
        assert!(!hasher.verify("correct horsf", &a).await?);
        assert!(matches!(
            hasher.verify("x", "not-a-hash").await,
            Err(CredentialError::MalformedHash)
        ));
        Ok(())
    }
}
