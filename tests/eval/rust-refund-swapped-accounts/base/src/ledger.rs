//! Double-entry ledger of money movements between accounts.

use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AccountId(pub u64);

pub type Cents = i64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransferId(pub u64);

#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    #[error("unknown account {0:?}")]
    UnknownAccount(AccountId),
    #[error("insufficient funds in {0:?}")]
    InsufficientFunds(AccountId),
    #[error("amount must be positive")]
    NonPositive,
}

#[derive(Default)]
pub struct Ledger {
    balances: HashMap<AccountId, Cents>,
    next_id: u64,
}

impl Ledger {
    pub fn open(&mut self, account: AccountId, initial: Cents) {
        self.balances.insert(account, initial);
    }

    /// Move `amount` out of `from` and into `to`.
    pub fn transfer(
        &mut self,
        from: AccountId,
        to: AccountId,
        amount: Cents,
    ) -> Result<TransferId, LedgerError> {
        if amount <= 0 {
            return Err(LedgerError::NonPositive);
        }
        let available = *self
            .balances
            .get(&from)
            .ok_or(LedgerError::UnknownAccount(from))?;
        if !self.balances.contains_key(&to) {
            return Err(LedgerError::UnknownAccount(to));
        }
        if available < amount {
            return Err(LedgerError::InsufficientFunds(from));
        }
        *self.balances.get_mut(&from).expect("checked above") -= amount;
        *self.balances.get_mut(&to).expect("checked above") += amount;
        self.next_id += 1;
        Ok(TransferId(self.next_id))
    }

    pub fn balance(&self, account: AccountId) -> Option<Cents> {
        self.balances.get(&account).copied()
    }
}
