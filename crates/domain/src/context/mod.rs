//! The reviewer's context: what a file's review sees beyond its diff, as a
//! human reviewer would (house style §8: context is data before it is text).
//!
//! - [`reader`]: one MR's reads of its repository through the
//!   [`CodeSource`](crate::ports::CodeSource) port, bounded and counted, contents
//!   cached by blob id ([`cache`]).
//! - [`index`]: the repository's symbol index at head, from the
//!   [`SyntaxAnalyzer`](crate::ports::SyntaxAnalyzer)'s outlines.
//! - [`select`]: a file's candidate pieces (its enclosing symbols, the
//!   definitions its changed lines use, the callers of what it changes).
//! - [`gather`]: a round's context gathered once ([`prepare`]); [`round`]: then
//!   each prompt's pieces ranked and cut to the budget ([`RoundContext::for_piece`]).
//! - [`guidance`], [`overview`]: the shared part every prompt starts with.
//! - [`secrets`]: files never read and strings never sent.

pub mod cache;
pub mod gather;
pub mod guidance;
pub mod index;
mod indexing;
pub mod overview;
pub mod pieces;
pub mod platform_source;
pub mod reader;
pub mod render;
pub mod round;
pub mod secrets;
pub mod select;
pub mod settings;

pub use cache::{CacheLimits, ContextCaches};
pub use gather::{RoundRequest, prepare};
pub use pieces::{ContextPiece, ContextReport, PieceKind, PieceReport};
pub use platform_source::PlatformCodeSource;
pub use reader::{CodeReader, FetchStats};
pub use round::{ContextStats, PieceContext, RoundContext};
pub use settings::{ContextMode, ContextSettings};
