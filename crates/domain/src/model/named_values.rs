//! `Display` and `FromStr` for the model's enums by their names on the wire: each enum
//! lists its values in `ALL` and names each with `as_str`, and this writes the two impls
//! from those, so the names are written once.

/// Implements `Display` (the value's `as_str`) and `FromStr` (the value of `ALL` with that
/// name; anything else is an error naming `what`) for `$t`.
macro_rules! named_values {
    ($t:ty, $what:literal) => {
        impl ::std::fmt::Display for $t {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $t {
            type Err = String;

            fn from_str(s: &str) -> Result<Self, String> {
                Self::ALL
                    .into_iter()
                    .find(|v| v.as_str() == s)
                    .ok_or_else(|| format!("unknown {} `{s}`", $what))
            }
        }
    };
}

pub(crate) use named_values;
