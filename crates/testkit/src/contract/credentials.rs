//! Password and token hashing: what the auth services rely on, whichever hasher
//! (argon2id and HMAC in production, the readable fakes in domain tests).

use reviewd_domain::ports::{CredentialError, PasswordHasher, TokenHasher};
use std::collections::HashSet;

/// Passwords that have broken hashers elsewhere: empty, long, non-ASCII, NUL,
/// and the separators a stored format might use.
const HOSTILE: [&str; 6] = [
    "",
    "pässwörd-\u{1F511}",
    "a\0b",
    "$argon2id$v=19$",
    "fake$x$y",
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
];

pub async fn password_hasher(hasher: &dyn PasswordHasher) {
    let hash = hasher.hash("correct horse").await.unwrap();
    assert_ne!(hash, "correct horse", "never the password itself");
    assert!(
        !hash.contains("correct horse"),
        "the password is not readable in {hash}"
    );
    assert!(hasher.verify("correct horse", &hash).await.unwrap());
    assert!(!hasher.verify("correct horsE", &hash).await.unwrap());
    assert!(!hasher.verify("", &hash).await.unwrap());

    let again = hasher.hash("correct horse").await.unwrap();
    assert_ne!(hash, again, "salted: equal passwords, different hashes");
    assert!(hasher.verify("correct horse", &again).await.unwrap());

    for password in HOSTILE {
        let hash = hasher.hash(password).await.unwrap();
        assert!(
            hasher.verify(password, &hash).await.unwrap(),
            "{password:?}"
        );
        assert!(
            !hasher.verify("other", &hash).await.unwrap(),
            "{password:?}"
        );
    }

    for malformed in ["", "not a hash", "$argon2id$v=19$broken"] {
        assert!(
            matches!(
                hasher.verify("correct horse", malformed).await,
                Err(CredentialError::MalformedHash)
            ),
            "{malformed:?} is refused as malformed, not as a wrong password"
        );
    }
}

pub fn token_hasher(hasher: &dyn TokenHasher) {
    let tokens: Vec<String> = (0..200).map(|_| hasher.generate("rvd_")).collect();
    assert!(tokens.iter().all(|t| t.starts_with("rvd_") && t.len() > 4));
    let distinct: HashSet<&String> = tokens.iter().collect();
    assert_eq!(distinct.len(), tokens.len(), "every token is new");
    assert!(
        hasher.generate("").len() > 1,
        "no prefix still makes a token"
    );

    let hashes: HashSet<String> = tokens.iter().map(|t| hasher.hash(t)).collect();
    assert_eq!(
        hashes.len(),
        tokens.len(),
        "different tokens, different hashes"
    );
    for token in tokens.iter().take(10) {
        let hash = hasher.hash(token);
        assert_eq!(hash, hasher.hash(token), "the same token, the same hash");
        assert_ne!(&hash, token, "the stored value is not the token");
    }
    for token in HOSTILE {
        assert_eq!(hasher.hash(token), hasher.hash(token), "{token:?}");
    }
}
