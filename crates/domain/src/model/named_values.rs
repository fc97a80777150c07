//! The model's enums by their names on the wire. `named_values!` writes `Display` and
//! `FromStr` for an enum that lists its values in `ALL` and names each with `as_str`;
//! `text_enum!` declares such an enum from `Variant => "name"` pairs (with serde by the
//! same names, for the JSON it is stored in) and gives it both. Either way a name is
//! written once.

/// Implements `Display` (the value's `as_str`) and `FromStr` (the value of `ALL` with that
/// name; anything else is an error naming `what`) for `$t`.
macro_rules! named_values {
    ($t:ty, $what:expr) => {
        impl ::std::fmt::Display for $t {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $t {
            type Err = String;

            fn from_str(s: &str) -> Result<Self, String> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|v| v.as_str() == s)
                    .ok_or_else(|| format!("unknown {} `{s}`", $what))
            }
        }
    };
}

/// Declares an enum from `Variant => "name"` pairs: the variants, `ALL`, `as_str`,
/// `parse` (`None` for an unknown name), serde by the names, `Display` and `FromStr`.
macro_rules! text_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        pub enum $name {
            $(#[serde(rename = $text)] $variant),+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            #[must_use]
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            #[must_use]
            pub fn parse(s: &str) -> Option<Self> {
                s.parse().ok()
            }
        }

        $crate::model::named_values::named_values!($name, stringify!($name));
    };
}

pub(crate) use {named_values, text_enum};
