//! Request extractors: who is calling (and what they may do), validated JSON bodies,
//! and pagination parameters. A handler's signature shows its access rule.

mod auth;
mod choices;
mod dates;
mod json;
mod pagination;
mod raw_body;
mod text;

pub use auth::{
    AuthUser, RequireAdmin, RequirePermission, SESSION_COOKIE, perm, session_cookie,
    session_removal,
};
pub use choices::{choice, one_of};
pub use dates::{date_from, date_until};
pub use json::{
    JSON_LIMIT_BYTES, RESULT_LIMIT_BYTES, ValidatedJson, WEBHOOK_BODY_LIMIT, json_config,
    json_config_limited, path_config, query_config,
};
pub use pagination::PageParams;
pub use raw_body::read_limited;
pub use text::{SingleLine, single_line};
