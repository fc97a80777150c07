//! One-shot messages carried across a redirect ("Project settings saved.") in a
//! short-lived cookie, hex-encoded so any text is a valid cookie value.

use actix_web::HttpRequest;
use actix_web::cookie::{Cookie, SameSite, time};

const COOKIE: &str = "reviewd_flash";

/// A message for the next page, and whether it reports a failure.
#[derive(Debug, Clone)]
pub struct Flash {
    pub message: String,
    pub is_error: bool,
}

pub fn cookie(message: &str, is_error: bool) -> Cookie<'static> {
    let mut value = String::from(if is_error { "e" } else { "i" });
    // At most 400 bytes, cut at a character boundary (else the message would not decode).
    let mut end = message.len().min(400);
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    for b in message.as_bytes().iter().take(end) {
        value.push_str(&format!("{b:02x}"));
    }
    Cookie::build(COOKIE, value)
        .path("/")
        .http_only(true)
        .same_site(SameSite::Lax)
        .max_age(time::Duration::seconds(60))
        .finish()
}

pub fn read(req: &HttpRequest) -> Option<Flash> {
    let raw = req.cookie(COOKIE)?;
    let value = raw.value();
    let is_error = value.starts_with('e');
    let hex = value.get(1..)?;
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect();
    let message = String::from_utf8(bytes?).ok()?;
    Some(Flash { message, is_error })
}

/// The cookie that removes a shown message.
pub fn removal() -> Cookie<'static> {
    let mut c = Cookie::build(COOKIE, "").path("/").finish();
    c.make_removal();
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    #[test]
    fn any_text_survives_the_round_trip() {
        let text = "Saved \"<b>ünïcode</b>\"; a=b, c";
        let c = cookie(text, true);
        let req = TestRequest::default().cookie(c).to_http_request();
        let flash = read(&req).expect("a flash");
        assert_eq!(flash.message, text);
        assert!(flash.is_error);
    }

    #[test]
    fn a_long_message_is_cut_between_characters() {
        let text = "“".repeat(200);
        let req = TestRequest::default()
            .cookie(cookie(&text, false))
            .to_http_request();
        let shown = read(&req).expect("a flash").message;
        assert!(!shown.is_empty() && text.starts_with(&shown));
    }

    #[test]
    fn a_tampered_cookie_is_ignored() {
        let req = TestRequest::default()
            .cookie(Cookie::new(COOKIE, "izz"))
            .to_http_request();
        assert!(read(&req).is_none());
    }
}
