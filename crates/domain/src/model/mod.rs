//! Entities of the domain.

pub mod api_key;
pub mod principal;
pub mod role;
pub mod session;
pub mod user;

pub use api_key::{ApiKey, NewApiKey};
pub use principal::{AuthMethod, Principal};
pub use role::{Permission, Role};
pub use session::{NewSession, Session};
pub use user::{NewUser, User, UserChanges};
