//! What AI calls cost: tokens times the configuration's prices (USD per million
//! tokens). A configuration without prices has no known cost, which is kept
//! apart from a cost of zero (a free local model).

/// Tokens per price unit: prices are quoted per million tokens.
const TOKENS_PER_PRICE_UNIT: f64 = 1_000_000.0;

/// The prices of one AI configuration, in USD per million tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AiPrices {
    pub input_per_mtok: Option<f64>,
    pub output_per_mtok: Option<f64>,
}

impl AiPrices {
    /// The cost of one call of these token counts; see [`cost_usd`].
    #[must_use]
    pub fn cost_usd(&self, prompt_tokens: u32, completion_tokens: u32) -> Option<f64> {
        cost_usd(
            prompt_tokens,
            completion_tokens,
            self.input_per_mtok,
            self.output_per_mtok,
        )
    }
}

/// The cost in USD of one call: prompt tokens at the input price plus completion
/// tokens at the output price. `None` unless both prices are known: half a price
/// would report a cost lower than the bill.
#[must_use]
pub fn cost_usd(
    prompt_tokens: u32,
    completion_tokens: u32,
    input_price_per_mtok: Option<f64>,
    output_price_per_mtok: Option<f64>,
) -> Option<f64> {
    let (input, output) = (input_price_per_mtok?, output_price_per_mtok?);
    Some(
        (f64::from(prompt_tokens) * input + f64::from(completion_tokens) * output)
            / TOKENS_PER_PRICE_UNIT,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn tokens_are_priced_per_million_on_each_side() {
        let cost = cost_usd(100, 20, Some(2.5), Some(10.0)).unwrap();
        assert!(close(cost, 0.000_45), "{cost}");
        let million = cost_usd(1_000_000, 1_000_000, Some(2.5), Some(10.0)).unwrap();
        assert!(close(million, 12.5), "{million}");
    }

    #[test]
    fn a_configuration_without_prices_has_no_cost() {
        assert_eq!(cost_usd(100, 20, None, None), None);
        assert_eq!(cost_usd(100, 20, Some(2.5), None), None);
        assert_eq!(cost_usd(100, 20, None, Some(10.0)), None);
        assert_eq!(AiPrices::default().cost_usd(100, 20), None);
    }

    #[test]
    fn free_models_and_failed_calls_cost_zero_not_unknown() {
        assert_eq!(cost_usd(100, 20, Some(0.0), Some(0.0)), Some(0.0));
        assert_eq!(cost_usd(0, 0, Some(2.5), Some(10.0)), Some(0.0));
    }
}
