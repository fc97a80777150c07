//! SQL written as text, kept prepared on each connection. diesel's `sql_query` is
//! planned again at every call (it marks itself unsafe to cache); for the statements
//! of the hot paths planning costs more than running: a claim's candidate query took
//! 0.8–1.4 ms to plan and 0.2 ms to run. A [`Kept`] statement is cached by its text,
//! as diesel caches its own query builder's statements.
//!
//! The text numbers its values `$1`, `$2`... as `sql_query` does; a number may come
//! back more than once. The values are a tuple of [`bind`]s, `$1` the first.

use diesel::QueryResult;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{HasSqlType, Untyped};
use std::marker::PhantomData;

/// `sql` with its values, run as `sql_query` would be but kept prepared.
pub(crate) fn kept<B: Binds>(sql: &str, binds: B) -> Kept<'_, B> {
    Kept { sql, binds }
}

/// One value of SQL type `ST`.
pub(crate) fn bind<ST, T>(value: T) -> Bind<ST, T> {
    Bind {
        value,
        _type: PhantomData,
    }
}

pub(crate) struct Kept<'a, B> {
    sql: &'a str,
    binds: B,
}

pub(crate) struct Bind<ST, T> {
    value: T,
    _type: PhantomData<ST>,
}

/// One value that can go where its `$n` stands.
pub(crate) trait PushBind {
    fn push<'b>(&'b self, out: &mut AstPass<'_, 'b, Pg>) -> QueryResult<()>;
}

impl<ST, T> PushBind for Bind<ST, T>
where
    Pg: HasSqlType<ST>,
    T: ToSql<ST, Pg>,
{
    fn push<'b>(&'b self, out: &mut AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        out.push_bind_param::<ST, T>(&self.value)
    }
}

/// The values of a statement: the `n`th (from 1) goes where `$n` stands.
pub(crate) trait Binds {
    fn push<'b>(&'b self, n: usize, out: &mut AstPass<'_, 'b, Pg>) -> QueryResult<()>;
}

macro_rules! binds {
    ($($name:ident $index:tt),+) => {
        impl<$($name: PushBind),+> Binds for ($($name,)+) {
            fn push<'b>(&'b self, n: usize, out: &mut AstPass<'_, 'b, Pg>) -> QueryResult<()> {
                $(if n == $index + 1 {
                    return self.$index.push(out);
                })+
                Err(diesel::result::Error::QueryBuilderError(
                    format!("the statement names ${n}, which has no value").into(),
                ))
            }
        }
    };
}
binds!(A 0);
binds!(A 0, B 1);
binds!(A 0, B 1, C 2);
binds!(A 0, B 1, C 2, D 3);
binds!(A 0, B 1, C 2, D 3, E 4);
binds!(A 0, B 1, C 2, D 3, E 4, F 5);
binds!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
binds!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
binds!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
binds!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
binds!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
binds!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

impl<B> QueryId for Kept<'_, B> {
    type QueryId = ();
    // No type of its own: the statement cache keys it by its text.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<B> Query for Kept<'_, B> {
    type SqlType = Untyped;
}

impl<B: Binds> QueryFragment<Pg> for Kept<'_, B> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        // Each `$n` of the text becomes the value's own placeholder, numbered by
        // diesel in order (a value named twice is sent twice).
        let mut rest = self.sql;
        while let Some(at) = rest.find('$') {
            out.push_sql(&rest[..at]);
            let after = &rest[at + 1..];
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                out.push_sql("$");
            } else {
                let n = after[..digits].parse().map_err(|_| {
                    diesel::result::Error::QueryBuilderError(
                        format!("${} is not a value's number", &after[..digits]).into(),
                    )
                })?;
                self.binds.push(n, &mut out)?;
            }
            rest = &after[digits..];
        }
        out.push_sql(rest);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{bind, kept};
    use diesel::debug_query;
    use diesel::pg::{Pg, PgQueryBuilder};
    use diesel::query_builder::QueryFragment;
    use diesel::sql_types::{BigInt, Text};

    #[test]
    fn each_number_takes_its_value_and_one_named_twice_is_sent_twice() {
        let q = kept(
            "SELECT $2 WHERE a = $1 OR b = $2",
            (bind::<Text, _>("x"), bind::<BigInt, _>(7_i64)),
        );
        assert_eq!(
            debug_query::<Pg, _>(&q).to_string(),
            "SELECT $1 WHERE a = $2 OR b = $3 -- binds: [7, \"x\", 7]"
        );
    }

    #[test]
    fn a_number_without_its_value_fails_to_build_rather_than_being_sent() {
        let q = kept("SELECT $1 LIMIT $3", (bind::<Text, _>("x"),));
        let built = q.to_sql(&mut PgQueryBuilder::default(), &Pg);
        assert!(built.is_err());
    }
}
