//! Domain events published by the billing and shipping modules.

use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    OrderPlaced { order_id: u64, customer_id: u64 },
    OrderShipped { order_id: u64, tracking: String },
    InvoiceOverdue { invoice_id: u64, days: u32 },
    PaymentFailed { invoice_id: u64, reason: String },
    /// Internal bookkeeping; no customer-facing effect.
    LedgerCompacted { entries: usize },
}

impl Event {
    pub fn name(&self) -> &'static str {
        match self {
            Event::OrderPlaced { .. } => "order_placed",
            Event::OrderShipped { .. } => "order_shipped",
            Event::InvoiceOverdue { .. } => "invoice_overdue",
            Event::PaymentFailed { .. } => "payment_failed",
            Event::LedgerCompacted { .. } => "ledger_compacted",
        }
    }
}
