//! Orders and what they cost.

use crate::ledger::{AccountId, Cents, TransferId};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderState {
    Open,
    Paid(TransferId),
    Refunded(TransferId),
}

#[derive(Debug, Clone)]
pub struct Order {
    pub id: u64,
    /// The buyer's wallet.
    pub customer_account: AccountId,
    /// The seller's wallet.
    pub merchant_account: AccountId,
    pub total: Cents,
    pub state: OrderState,
}

impl Order {
    pub fn is_paid(&self) -> bool {
        matches!(self.state, OrderState::Paid(_))
    }
}
