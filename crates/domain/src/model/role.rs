//! Roles and the permissions they grant (the contract's permission table).

use std::fmt;
use std::str::FromStr;

/// What a user may do beyond being authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Permission {
    ReviewCreate,
    ProjectCreate,
    ProjectUpdate,
    ProjectDelete,
    ConfigCreate,
    ConfigUpdate,
    ConfigDelete,
    NotificationDelete,
    /// Uploading analyzers' results (SARIF) from CI.
    AnalysisUpload,
}

impl Permission {
    pub const ALL: [Permission; 9] = [
        Permission::ReviewCreate,
        Permission::ProjectCreate,
        Permission::ProjectUpdate,
        Permission::ProjectDelete,
        Permission::ConfigCreate,
        Permission::ConfigUpdate,
        Permission::ConfigDelete,
        Permission::NotificationDelete,
        Permission::AnalysisUpload,
    ];

    /// The contract's spelling, e.g. `review:create`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::ReviewCreate => "review:create",
            Permission::ProjectCreate => "project:create",
            Permission::ProjectUpdate => "project:update",
            Permission::ProjectDelete => "project:delete",
            Permission::ConfigCreate => "config:create",
            Permission::ConfigUpdate => "config:update",
            Permission::ConfigDelete => "config:delete",
            Permission::NotificationDelete => "notification:delete",
            Permission::AnalysisUpload => "analysis:upload",
        }
    }
}

impl fmt::Display for Permission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A user's role. `admin` can do everything, including reading raw access tokens;
/// `maintainer` holds every listed permission; `developer` may trigger reviews;
/// `viewer` reads only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    Admin,
    Maintainer,
    Developer,
    Viewer,
}

impl Role {
    pub const ALL: [Role; 4] = [Role::Admin, Role::Maintainer, Role::Developer, Role::Viewer];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Maintainer => "maintainer",
            Role::Developer => "developer",
            Role::Viewer => "viewer",
        }
    }

    /// The permissions this role grants.
    #[must_use]
    pub fn permissions(self) -> &'static [Permission] {
        match self {
            Role::Admin | Role::Maintainer => &Permission::ALL,
            // A CI job's key is a developer's: it may ask for reviews and upload
            // what its analyzers found.
            Role::Developer => &[Permission::ReviewCreate, Permission::AnalysisUpload],
            Role::Viewer => &[],
        }
    }

    #[must_use]
    pub fn allows(self, permission: Permission) -> bool {
        self.permissions().contains(&permission)
    }

    #[must_use]
    pub fn is_admin(self) -> bool {
        self == Role::Admin
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The text was not one of the role names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown role `{0}` (expected admin, maintainer, developer or viewer)")]
pub struct UnknownRole(pub String);

impl FromStr for Role {
    type Err = UnknownRole;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "admin" => Ok(Role::Admin),
            "maintainer" => Ok(Role::Maintainer),
            "developer" => Ok(Role::Developer),
            "viewer" => Ok(Role::Viewer),
            other => Err(UnknownRole(other.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permission_table() {
        assert!(Role::Maintainer.allows(Permission::ConfigDelete));
        assert!(Role::Developer.allows(Permission::ReviewCreate));
        assert!(!Role::Developer.allows(Permission::ProjectUpdate));
        assert!(Role::Viewer.permissions().is_empty());
        assert!(Role::Admin.is_admin() && !Role::Maintainer.is_admin());
    }

    #[test]
    fn role_round_trips_through_text() {
        for role in [Role::Admin, Role::Maintainer, Role::Developer, Role::Viewer] {
            assert_eq!(role.as_str().parse::<Role>(), Ok(role));
        }
        assert!("root".parse::<Role>().is_err());
    }
}
