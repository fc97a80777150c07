//! Typed ids: a review's id and a file's id are both UUIDs, and a call that takes one for
//! the other (`retry_file(file_id, review_id)`) should not compile. Each is a `Uuid` in a
//! one-field struct, the same on the wire (serde transparent) and in the store; adapters
//! convert at their edge with `From`. Reviews, their files and projects have theirs;
//! tasks and configurations still pass `Uuid` and take the same macro when their
//! signatures are next changed.

use std::fmt;
use uuid::Uuid;

macro_rules! typed_id {
    ($($(#[$meta:meta])* $name:ident;)+) => {$(
        $(#[$meta])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord,
            serde::Serialize, serde::Deserialize,
        )]
        #[serde(transparent)]
        pub struct $name(pub Uuid);

        impl $name {
            /// A fresh random id (v4), as the store would assign one.
            #[must_use]
            pub fn new_v4() -> Self {
                Self(Uuid::new_v4())
            }

            #[must_use]
            pub const fn nil() -> Self {
                Self(Uuid::nil())
            }
        }

        impl From<Uuid> for $name {
            fn from(id: Uuid) -> Self {
                Self(id)
            }
        }

        impl From<$name> for Uuid {
            fn from(id: $name) -> Self {
                id.0
            }
        }

        impl std::str::FromStr for $name {
            type Err = uuid::Error;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Uuid::parse_str(s).map(Self)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }
    )+};
}

typed_id! {
    /// A review: one per merge request, its rounds accumulate on it.
    ReviewId;
    /// A file of a review's round.
    ReviewFileId;
    /// A project reviewd watches on a platform.
    ProjectId;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_its_uuid_on_the_wire_and_in_text() {
        let raw = Uuid::parse_str("6f9619ff-8b86-d011-b42d-00c04fc964ff").unwrap();
        let id = ReviewId::from(raw);
        assert_eq!(id.to_string(), raw.to_string());
        assert_eq!(serde_json::to_string(&id).unwrap(), format!("\"{raw}\""));
        let back: ReviewId = serde_json::from_str(&format!("\"{raw}\"")).unwrap();
        assert_eq!(Uuid::from(back), raw);
    }
}
