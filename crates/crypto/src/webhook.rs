//! The domain's `WebhookVerifier`: a delivery's token or body signature checked against
//! a webhook secret in constant time.

use crate::{constant_time_eq, hmac_sha256_hex};
use reviewd_domain::model::WebhookProof;
use reviewd_domain::ports::WebhookVerifier;

#[derive(Debug, Clone, Copy, Default)]
pub struct HmacWebhookVerifier;

impl WebhookVerifier for HmacWebhookVerifier {
    fn proves(&self, secret: &str, proof: &WebhookProof<'_>) -> bool {
        match proof {
            WebhookProof::Token(token) => constant_time_eq(secret.as_bytes(), token.as_bytes()),
            WebhookProof::Signature { hex, body } => constant_time_eq(
                hmac_sha256_hex(secret.as_bytes(), body).as_bytes(),
                hex.to_ascii_lowercase().as_bytes(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_or_a_signature_proves_only_its_own_secret() {
        let verifier = HmacWebhookVerifier;
        assert!(verifier.proves("s3cret", &WebhookProof::Token("s3cret")));
        assert!(!verifier.proves("s3cret", &WebhookProof::Token("s3cre")));
        assert!(!verifier.proves("s3cret", &WebhookProof::Token("")));
        let body = br#"{"action":"opened"}"#;
        let hex = hmac_sha256_hex(b"s3cret", body);
        let upper = hex.to_ascii_uppercase();
        for sent in [hex.as_str(), upper.as_str()] {
            assert!(verifier.proves("s3cret", &WebhookProof::Signature { hex: sent, body }));
        }
        assert!(!verifier.proves("other", &WebhookProof::Signature { hex: &hex, body }));
        let tampered = br#"{"action":"closed"}"#;
        assert!(!verifier.proves(
            "s3cret",
            &WebhookProof::Signature {
                hex: &hex,
                body: tampered
            }
        ));
    }
}
