//! A GitHub App's installations: which repositories come and go.

use super::*;

#[test]
fn installation_events_say_which_repositories_come_and_go() {
    let change_of = |event: &str, name: &str| {
        let WebhookEvent::Installation(e) = parse(event, &fixture(name)).unwrap() else {
            panic!("{name} is an installation event")
        };
        assert_eq!(e.installation_id, 57_460_125);
        e.change
    };
    assert_eq!(
        change_of("installation", "installation.created"),
        InstallationChange::Available {
            repository_ids: vec!["718291034".into(), "718291577".into()]
        }
    );
    assert!(matches!(
        change_of("installation", "installation.deleted"),
        InstallationChange::Unavailable { .. }
    ));
    assert_eq!(
        change_of("installation", "installation.suspend"),
        InstallationChange::Unavailable {
            repository_ids: vec![]
        },
        "a suspension names no repository"
    );
    assert!(matches!(
        change_of("installation_repositories", "installation_repositories.added"),
        InstallationChange::Available { repository_ids } if !repository_ids.is_empty()
    ));
    assert_eq!(
        change_of(
            "installation_repositories",
            "installation_repositories.removed"
        ),
        InstallationChange::Unavailable {
            repository_ids: vec!["718291577".into()]
        }
    );
    let mut other = fixture("installation.created");
    other["action"] = json!("new_permissions_requested");
    assert!(matches!(
        parse("installation", &other).unwrap(),
        WebhookEvent::Ignored(_)
    ));
    let mut broken = fixture("installation.created");
    broken["installation"] = json!({});
    assert!(parse("installation", &broken).is_err());
}
