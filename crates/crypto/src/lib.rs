//! Cryptography of reviewd: argon2id password hashes, HMAC-keyed hashes of bearer
//! tokens, AES-256-GCM for secrets stored at rest, and random tokens. The domain
//! sees the first two through its `PasswordHasher` and `TokenHasher` ports.

mod password;
mod random;
mod secret_box;
mod token;
mod webhook;

pub use password::Argon2PasswordHasher;
pub use random::random_bytes;
pub use secret_box::{SecretBox, SecretBoxError, derive};
pub use token::{HmacTokenHasher, constant_time_eq, hmac_sha256_hex};
pub use webhook::HmacWebhookVerifier;
