//! Unit tests of the notification rules: addresses, events, digests, push
//! endpoints and settings validation.

use super::dispatch::event_types;
use super::render::{render_digest, summarise};
use super::settings::{is_email, is_sender, validate};
use super::subscriptions::check_push_endpoint;
use crate::model::ReviewId;
use crate::model::notification::{Frequency, NotificationConfig, NotificationType, ReviewEvent};
use crate::services::ServiceError;
use chrono::Utc;

#[test]
pub(super) fn addresses_are_checked_as_a_mail_server_takes_them() {
    for ok in ["ops@example.com", "a.b+c@mail.example.co.uk"] {
        assert!(is_email(ok), "{ok}");
    }
    for bad in [
        "nobody",
        "a@b",
        "a b@example.com",
        "a@exa_mple.com",
        "a@example.com\t*",
        "@example.com",
    ] {
        assert!(!is_email(bad), "{bad}");
    }
    assert!(is_sender("reviewd <reviewd@example.com>"));
    assert!(is_sender("reviewd@example.com"));
    assert!(!is_sender("a <b> <reviewd@example.com>"));
    assert!(!is_sender("L0s@mCBBtqJ[_(3SR|&.\\\t\t*"));
}

pub(super) fn event(status: &str, score: Option<u32>) -> ReviewEvent {
    ReviewEvent {
        review_id: ReviewId::nil(),
        project_name: "svc".into(),
        mr_iid: 7,
        mr_title: "Add cache".into(),
        mr_url: "https://git.example.com/svc/-/merge_requests/7".into(),
        author: Some("dev".into()),
        status: status.into(),
        rating: score.map(|_| "C".into()),
        score,
        comment_count: 3,
        error_message: (status == "failed").then(|| "AI unavailable".into()),
    }
}

#[test]
pub(super) fn a_low_score_adds_a_rating_low_event_and_flags_are_obeyed() {
    let config = NotificationConfig::default();
    assert_eq!(
        event_types(&config, &event("completed", Some(69))),
        vec![
            NotificationType::ReviewCompleted,
            NotificationType::RatingLow
        ]
    );
    assert_eq!(
        event_types(&config, &event("completed", Some(70))),
        vec![NotificationType::ReviewCompleted],
        "at the threshold is not below it"
    );
    assert_eq!(
        event_types(&config, &event("failed", None)),
        vec![NotificationType::ReviewFailed]
    );
    let quiet = NotificationConfig {
        notify_on_review_completed: false,
        notify_on_rating_low: false,
        notify_on_review_failed: false,
        ..NotificationConfig::default()
    };
    assert!(event_types(&quiet, &event("completed", Some(10))).is_empty());
    assert!(event_types(&quiet, &event("failed", None)).is_empty());
}

#[test]
pub(super) fn a_digest_counts_the_period_and_lists_the_lowest_first() {
    let at = Utc::now();
    let events = vec![
        (
            NotificationType::ReviewCompleted,
            event("completed", Some(90)),
            at,
        ),
        (
            NotificationType::ReviewCompleted,
            event("completed", Some(40)),
            at,
        ),
        (
            NotificationType::RatingLow,
            event("completed", Some(40)),
            at,
        ),
        (NotificationType::ReviewFailed, event("failed", None), at),
    ];
    let d = summarise(&events, at);
    assert_eq!(
        (d.reviews_completed, d.reviews_failed, d.low_ratings),
        (2, 1, 1)
    );
    assert_eq!(
        d.lowest.iter().map(|e| e.score).collect::<Vec<_>>(),
        vec![Some(40), Some(90)]
    );
    let n = render_digest(Frequency::Weekly, &d, Utc::now());
    assert_eq!(n.kind, NotificationType::WeeklySummary);
    assert!(
        n.text.contains("2 review(s) completed, 1 failed, 1 below"),
        "{}",
        n.text
    );
    assert!(n.text.contains("AI unavailable"));
}

#[test]
pub(super) fn push_endpoints_must_be_public_https_push_services() {
    for ok in [
        "https://fcm.googleapis.com/fcm/send/abc",
        "https://updates.push.services.mozilla.com/wpush/v2/x",
        "https://web.push.apple.com:443/Q",
    ] {
        assert_eq!(check_push_endpoint(ok, false), Ok(()), "{ok}");
    }
    for bad in [
        "http://fcm.googleapis.com/fcm/send/abc",
        "https://127.0.0.1/x",
        "https://10.0.0.5:8500/v1/kv",
        "https://192.168.1.1/",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/x",
        "https://[fd00::1]/x",
        "https://localhost/x",
        "https://db.internal/x",
        "https://user@10.1.2.3/x",
        "ftp://push.example.com/x",
        "not a url",
    ] {
        assert!(check_push_endpoint(bad, false).is_err(), "{bad}");
    }
    assert_eq!(
        check_push_endpoint("http://127.0.0.1:9000/push", true),
        Ok(())
    );
}

#[test]
pub(super) fn bad_settings_are_named_field_by_field() {
    let config = NotificationConfig {
        rating_threshold: 101,
        email_recipients: vec!["ops@example.com".into(), "nobody".into()],
        webhook_urls: vec!["ftp://x".into()],
        ..NotificationConfig::default()
    };
    let Err(ServiceError::Invalid(errors)) = validate(&config) else {
        panic!("accepted");
    };
    let fields: Vec<_> = errors.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(
        fields,
        vec!["ratingThreshold", "emailRecipients[1]", "webhookUrls[0]"]
    );
}
