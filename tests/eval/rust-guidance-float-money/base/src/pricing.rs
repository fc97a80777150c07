//! Prices, discounts and totals. All amounts are integer cents.

pub type Cents = i64;

#[derive(Debug, Clone)]
pub struct LineItem {
    pub sku: String,
    pub unit_price: Cents,
    pub quantity: u32,
}

/// `percent`% of `amount`, rounded half up, in integer arithmetic.
pub fn percent_of(amount: Cents, percent: u32) -> Cents {
    (amount * i64::from(percent) + 50) / 100
}

pub fn subtotal(items: &[LineItem]) -> Cents {
    items
        .iter()
        .map(|i| i.unit_price * i64::from(i.quantity))
        .sum()
}

pub fn with_tax(amount: Cents, tax_percent: u32) -> Cents {
    amount + percent_of(amount, tax_percent)
}
