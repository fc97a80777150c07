//! The `UserRepository` contract: unique emails and one root, credentials found by
//! email, updates that refuse a taken email, and pages in creation order.

use super::{Stores, assert_conflict, assert_not_found, seed};
use reviewd_domain::PageRequest;
use reviewd_domain::model::{Role, User, UserChanges};
use uuid::Uuid;

pub async fn run(s: &Stores) {
    // First: the store has no root yet.
    one_root_and_unique_emails(s).await;
    credentials_are_found_by_email(s).await;
    updates_apply_and_refuse_a_taken_email(s).await;
    users_page_in_creation_order(s).await;
}

async fn one_root_and_unique_emails(s: &Stores) {
    assert!(!s.users.root_exists().await.unwrap());
    let root = s.users.create(seed::new_user(true)).await.unwrap();
    assert!(root.is_root && !root.disabled);
    assert!(s.users.root_exists().await.unwrap());
    assert_eq!(s.users.get(root.id).await.unwrap(), root);

    let mut same_email = seed::new_user(false);
    same_email.email.clone_from(&root.email);
    assert_conflict(s.users.create(same_email).await);
    assert_conflict(s.users.create(seed::new_user(true)).await);
    assert_not_found(s.users.get(Uuid::new_v4()).await);
}

async fn credentials_are_found_by_email(s: &Stores) {
    let mut new = seed::new_user(false);
    new.password_hash = "argon2-hash".into();
    let user = s.users.create(new).await.unwrap();
    let found = s.users.find_credentials(&user.email).await.unwrap();
    assert_eq!(found, Some((user.clone(), "argon2-hash".to_owned())));

    let unknown = format!("{}@example.com", seed::unique());
    assert_eq!(s.users.find_credentials(&unknown).await.unwrap(), None);

    // Disabled users are found too: refusing them is the service's decision.
    let disabled = UserChanges {
        disabled: Some(true),
        ..UserChanges::default()
    };
    s.users.update(user.id, disabled).await.unwrap();
    let (found, _) = s
        .users
        .find_credentials(&user.email)
        .await
        .unwrap()
        .unwrap();
    assert!(found.disabled);
}

async fn updates_apply_and_refuse_a_taken_email(s: &Stores) {
    let user = seed::user(s).await;
    let other = seed::user(s).await;
    let new_email = format!("{}@example.com", seed::unique());
    let changes = UserChanges {
        email: Some(new_email.clone()),
        name: Some("Renamed".into()),
        password_hash: Some("new-hash".into()),
        role: Some(Role::Admin),
        disabled: Some(true),
    };
    let changed = s.users.update(user.id, changes).await.unwrap();
    let expected = User {
        email: new_email.clone(),
        name: "Renamed".into(),
        role: Role::Admin,
        disabled: true,
        updated_at: changed.updated_at,
        ..user.clone()
    };
    assert_eq!(changed, expected);
    assert!(changed.updated_at >= user.updated_at);
    assert_eq!(s.users.get(user.id).await.unwrap(), changed);
    let (_, hash) = s.users.find_credentials(&new_email).await.unwrap().unwrap();
    assert_eq!(hash, "new-hash");
    assert_eq!(s.users.find_credentials(&user.email).await.unwrap(), None);

    let unchanged = s.users.update(user.id, UserChanges::default()).await;
    assert_eq!(
        unchanged.unwrap().email,
        new_email,
        "nothing asked, nothing changed"
    );
    let keep_own = UserChanges {
        email: Some(new_email),
        ..UserChanges::default()
    };
    s.users.update(user.id, keep_own).await.unwrap();
    let take_other = UserChanges {
        email: Some(other.email.clone()),
        ..UserChanges::default()
    };
    assert_conflict(s.users.update(user.id, take_other).await);
    assert_not_found(s.users.update(Uuid::new_v4(), UserChanges::default()).await);
}

async fn users_page_in_creation_order(s: &Stores) {
    let one_per_page = |page: u64| PageRequest::new(u32::try_from(page).unwrap(), 1, 100);
    let before = s.users.list(one_per_page(1)).await.unwrap().total;
    let mut ours = Vec::new();
    for _ in 0..5 {
        ours.push(seed::user(s).await);
    }
    let total = before + 5;
    for (i, user) in (1..).zip(&ours) {
        let page = s.users.list(one_per_page(before + i)).await.unwrap();
        assert_eq!(page.items, std::slice::from_ref(user), "the {i}th of ours");
        assert_eq!((page.total, page.total_pages()), (total, total));
    }
    let past_the_end = s.users.list(one_per_page(total + 1)).await.unwrap();
    assert!(past_the_end.items.is_empty());
    assert_eq!(past_the_end.total, total);
}
