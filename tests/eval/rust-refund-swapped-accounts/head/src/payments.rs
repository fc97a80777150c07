//! Paying for orders out of the customer's wallet.

use crate::ledger::{Ledger, LedgerError};
use crate::orders::{Order, OrderState};

#[derive(Debug, thiserror::Error)]
pub enum PaymentError {
    #[error("order {0} is not open")]
    NotOpen(u64),
    #[error("order {0} is not paid")]
    NotPaid(u64),
    #[error(transparent)]
    Ledger(#[from] LedgerError),
}

pub fn pay(ledger: &mut Ledger, order: &mut Order) -> Result<(), PaymentError> {
    if order.state != OrderState::Open {
        return Err(PaymentError::NotOpen(order.id));
    }
    let id = ledger.transfer(order.customer_account, order.merchant_account, order.total)?;
    order.state = OrderState::Paid(id);
    Ok(())
}

/// Give the customer their money back.
pub fn refund(ledger: &mut Ledger, order: &mut Order) -> Result<(), PaymentError> {
    if !order.is_paid() {
        return Err(PaymentError::NotPaid(order.id));
    }
    let id = ledger.transfer(order.customer_account, order.merchant_account, order.total)?;
    order.state = OrderState::Refunded(id);
    Ok(())
}
