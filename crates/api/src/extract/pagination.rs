use crate::error::ApiError;
use reviewd_domain::ErrorCode;
use reviewd_domain::PageRequest;
use serde::Deserialize;
use serde_json::json;
use utoipa::IntoParams;

/// `page`, `pageSize` (or its alias `perPage`) as given. Values arrive as text and
/// are checked here so a bad one gets a message naming it: non-numeric, zero or
/// negative is a 400; a size above the endpoint's maximum is clamped to it.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// The page, from 1.
    #[param(value_type = Option<i32>, minimum = 1)]
    pub page: Option<String>,
    /// Items per page; above the endpoint's maximum it is clamped to it.
    #[param(value_type = Option<i32>, minimum = 1)]
    pub page_size: Option<String>,
    /// `pageSize` under its other name.
    #[param(value_type = Option<i32>, minimum = 1)]
    pub per_page: Option<String>,
}

impl PageParams {
    /// # Errors
    /// 400 `INVALID_QUERY` naming the parameter.
    pub fn to_request(&self, default_size: u32, max_size: u32) -> Result<PageRequest, ApiError> {
        let page = positive("page", self.page.as_deref())?.unwrap_or(1);
        // Both names are checked when both are sent; `pageSize` wins.
        let per_page = positive("perPage", self.per_page.as_deref())?;
        let size = positive("pageSize", self.page_size.as_deref())?
            .or(per_page)
            .unwrap_or(default_size);
        Ok(PageRequest::new(page, size, max_size))
    }
}

fn positive(name: &str, value: Option<&str>) -> Result<Option<u32>, ApiError> {
    let Some(value) = value else { return Ok(None) };
    // Up to 2^31-1 (a 32-bit integer, as the document says); a size past the
    // endpoint's maximum is then clamped to it.
    match value.parse::<u64>() {
        Ok(0) | Err(_) => Err(ApiError::bad_request(
            ErrorCode::InvalidQuery,
            format!("{name} must be a positive whole number"),
        )
        .with_details(json!({ "fields": { name: ["must be a positive whole number"] } }))),
        Ok(n) if n > i32::MAX as u64 => Err(ApiError::bad_request(
            ErrorCode::InvalidQuery,
            format!("{name} must be at most {}", i32::MAX),
        )
        .with_details(json!({ "fields": { name: ["must be at most 2147483647"] } }))),
        Ok(n) => Ok(Some(u32::try_from(n).unwrap_or(u32::MAX))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(page: Option<&str>, size: Option<&str>) -> PageParams {
        PageParams {
            page: page.map(Into::into),
            page_size: size.map(Into::into),
            per_page: None,
        }
    }

    #[test]
    fn defaults_clamps_and_rejects() {
        let r = params(None, None).to_request(20, 100).unwrap();
        assert_eq!((r.page, r.page_size), (1, 20));
        assert_eq!(
            params(Some("2"), Some("1000"))
                .to_request(20, 100)
                .unwrap()
                .page_size,
            100
        );
        for bad in ["-1", "0", "abc", "1.5", " 2", "2147483648"] {
            assert!(
                params(Some(bad), None).to_request(20, 100).is_err(),
                "page={bad}"
            );
            assert!(
                params(None, Some(bad)).to_request(20, 100).is_err(),
                "pageSize={bad}"
            );
        }
    }

    #[test]
    fn per_page_is_an_alias() {
        let p = PageParams {
            per_page: Some("7".into()),
            ..PageParams::default()
        };
        assert_eq!(p.to_request(20, 100).unwrap().page_size, 7);
    }
}
