//! The credential contracts (`reviewd_testkit::contract::credentials`) against
//! argon2id and the HMAC token hasher, the suites the domain's fakes also pass.

use reviewd_crypto::{Argon2PasswordHasher, HmacTokenHasher};
use reviewd_testkit::contract::credentials;

#[tokio::test]
async fn password_hasher() {
    credentials::password_hasher(&Argon2PasswordHasher::fast_for_tests().unwrap()).await;
}

#[test]
fn token_hasher() {
    credentials::token_hasher(&HmacTokenHasher::new(b"contract-test-key"));
}
