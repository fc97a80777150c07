//! Entities of the domain.

pub mod api_key;
pub mod diff;
pub mod platform;
pub mod principal;
pub mod role;
pub mod secret;
pub mod session;
pub mod user;

pub use api_key::{ApiKey, NewApiKey};
pub use platform::{
    AuthType, MergeRequest, MrState, NewPlatformConfig, OAuthTokens, PlatformConfig,
    PlatformConfigChanges, PlatformConnection, PlatformPage, PlatformProject, PlatformType,
    PlatformUser, PlatformWebhook, TokenIdentity,
};
pub use principal::{AuthMethod, Principal};
pub use role::{Permission, Role};
pub use secret::{MASK, SecretString};
pub use session::{NewSession, Session};
pub use user::{NewUser, User, UserChanges};
