use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

const NONCE_LEN: usize = 12;
/// Marks the format so a later key rotation can tell versions apart.
const VERSION_PREFIX: &str = "v1:";

#[derive(Debug, thiserror::Error)]
pub enum SecretBoxError {
    #[error("stored secret is not in the expected format")]
    Malformed,
    #[error("stored secret cannot be decrypted with the configured key")]
    WrongKey,
}

/// AES-256-GCM for secrets kept in the database (platform tokens, webhook secrets,
/// AI keys...). Ciphertexts are `v1:` + base64(nonce || ciphertext || tag).
#[derive(Clone)]
pub struct SecretBox {
    cipher: Aes256Gcm,
}

impl std::fmt::Debug for SecretBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretBox(***)")
    }
}

impl SecretBox {
    /// From `ENCRYPTION_KEY` when set (any string; hashed to 256 bits), else derived
    /// from `AUTH_SECRET` under a distinct label so the two uses never share a key.
    #[must_use]
    pub fn from_config(encryption_key: Option<&str>, auth_secret: &str) -> Self {
        let key: [u8; 32] = match encryption_key {
            Some(k) => Sha256::digest(k.as_bytes()).into(),
            None => derive(auth_secret, b"reviewd/secret-box/v1"),
        };
        Self::from_key(&key)
    }

    #[must_use]
    pub fn from_key(key: &[u8; 32]) -> Self {
        match Aes256Gcm::new_from_slice(key) {
            Ok(cipher) => Self { cipher },
            Err(_) => unreachable!("a 32-byte key is valid for AES-256"),
        }
    }

    /// Encrypts with a fresh random nonce.
    #[must_use]
    pub fn seal(&self, plaintext: &str) -> String {
        let nonce_bytes: [u8; NONCE_LEN] = crate::random_bytes();
        let nonce = Nonce::from(nonce_bytes);
        let sealed = match self.cipher.encrypt(&nonce, plaintext.as_bytes()) {
            Ok(c) => c,
            Err(_) => unreachable!("AES-GCM encryption fails only for inputs over 64 GiB"),
        };
        let mut out = nonce_bytes.to_vec();
        out.extend_from_slice(&sealed);
        format!("{VERSION_PREFIX}{}", STANDARD.encode(out))
    }

    /// # Errors
    /// `Malformed` for text not produced by [`SecretBox::seal`], `WrongKey` when the
    /// authentication tag does not verify (another key, or tampering).
    pub fn open(&self, sealed: &str) -> Result<String, SecretBoxError> {
        let body = sealed
            .strip_prefix(VERSION_PREFIX)
            .ok_or(SecretBoxError::Malformed)?;
        let bytes = STANDARD
            .decode(body)
            .map_err(|_| SecretBoxError::Malformed)?;
        if bytes.len() < NONCE_LEN + 16 {
            return Err(SecretBoxError::Malformed);
        }
        let (nonce, ciphertext) = bytes.split_at(NONCE_LEN);
        let nonce: [u8; NONCE_LEN] = nonce.try_into().map_err(|_| SecretBoxError::Malformed)?;
        let plain = self
            .cipher
            .decrypt(&Nonce::from(nonce), ciphertext)
            .map_err(|_| SecretBoxError::WrongKey)?;
        String::from_utf8(plain).map_err(|_| SecretBoxError::Malformed)
    }
}

/// A 256-bit key for one purpose, derived from a server secret.
#[must_use]
pub fn derive(secret: &str, label: &[u8]) -> [u8; 32] {
    let mut mac = match <Hmac<Sha256> as hmac::KeyInit>::new_from_slice(secret.as_bytes()) {
        Ok(mac) => mac,
        Err(_) => unreachable!("HMAC takes keys of any length"),
    };
    mac.update(label);
    mac.finalize().into_bytes().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_detects_wrong_key_and_tampering() {
        let a = SecretBox::from_config(None, "an auth secret of at least thirty-two chars");
        let b =
            SecretBox::from_config(Some("other"), "an auth secret of at least thirty-two chars");
        let sealed = a.seal("glpat-abc");
        assert!(!sealed.contains("glpat"));
        assert_ne!(sealed, a.seal("glpat-abc"), "nonces must differ");
        assert_eq!(a.open(&sealed).ok().as_deref(), Some("glpat-abc"));
        assert!(matches!(b.open(&sealed), Err(SecretBoxError::WrongKey)));
        let mut tampered = sealed.clone();
        tampered.pop();
        tampered.push('A');
        assert!(a.open(&tampered).is_err());
        assert!(matches!(a.open("plain"), Err(SecretBoxError::Malformed)));
    }
}
