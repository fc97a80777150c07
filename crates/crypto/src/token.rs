use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use reviewd_domain::ports::TokenHasher;
use sha2::Sha256;
use subtle::ConstantTimeEq;

type HmacSha256 = Hmac<Sha256>;

/// Tokens of 256 random bits; stored as HMAC-SHA256 under a server key, so a copy of
/// the database alone can neither use nor forge a session or API key.
#[derive(Clone)]
pub struct HmacTokenHasher {
    key: Vec<u8>,
}

impl HmacTokenHasher {
    /// `key` is derived from `AUTH_SECRET`; changing it logs everyone out and voids keys.
    #[must_use]
    pub fn new(key: &[u8]) -> Self {
        Self { key: key.to_vec() }
    }

    fn mac(&self) -> HmacSha256 {
        // HMAC accepts keys of any length, so this cannot fail.
        match <HmacSha256 as KeyInit>::new_from_slice(&self.key) {
            Ok(mac) => mac,
            Err(_) => unreachable!("HMAC takes keys of any length"),
        }
    }
}

impl TokenHasher for HmacTokenHasher {
    fn generate(&self, prefix: &str) -> String {
        let bytes: [u8; 32] = crate::random_bytes();
        format!("{prefix}{}", URL_SAFE_NO_PAD.encode(bytes))
    }

    fn hash(&self, token: &str) -> String {
        let mut mac = self.mac();
        mac.update(token.as_bytes());
        hex(&mac.finalize().into_bytes())
    }
}

/// Lower-case hex HMAC-SHA256 of `body` under `key`: GitHub's `X-Hub-Signature-256`
/// (after `sha256=`), and the signature of reviewd's own outbound webhooks.
#[must_use]
pub fn hmac_sha256_hex(key: &[u8], body: &[u8]) -> String {
    let mut mac = match <HmacSha256 as KeyInit>::new_from_slice(key) {
        Ok(mac) => mac,
        Err(_) => unreachable!("HMAC takes keys of any length"),
    };
    mac.update(body);
    hex(&mac.finalize().into_bytes())
}

/// Compares two byte strings in time that depends only on their lengths.
#[must_use]
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && bool::from(a.ct_eq(b))
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_prefixed_and_hash_by_key() {
        let hasher = HmacTokenHasher::new(b"k1");
        let t1 = hasher.generate("rvd_");
        let t2 = hasher.generate("rvd_");
        assert!(t1.starts_with("rvd_") && t1.len() == 4 + 43);
        assert_ne!(t1, t2);
        assert_eq!(hasher.hash(&t1), hasher.hash(&t1));
        assert_ne!(hasher.hash(&t1), HmacTokenHasher::new(b"k2").hash(&t1));
        assert_eq!(hasher.hash(&t1).len(), 64);
    }

    #[test]
    fn hmac_matches_githubs_documented_example() {
        // From GitHub's "Validating webhook deliveries" documentation.
        assert_eq!(
            hmac_sha256_hex(b"It's a Secret to Everybody", b"Hello, World!"),
            "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
        );
    }

    #[test]
    fn constant_time_eq_matches_eq() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
    }
}
