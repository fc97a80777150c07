//! Use cases. Each service holds the rules of one area and talks to the world
//! only through ports.

pub mod api_keys;
pub mod auth;
pub mod error;
pub mod users;

pub use api_keys::{ApiKeyService, CreatedApiKey};
pub use auth::{AuthService, AuthSettings, ClientInfo, LoggedIn, RootOutcome};
pub use error::{FieldError, ServiceError};
pub use users::{NewUserInput, UserService, UserUpdateInput};
