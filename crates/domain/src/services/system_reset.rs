//! `POST /api/system/reset`: empties every store reviewd writes to.

use super::ServiceError;
use crate::ports::DataWipe;
use std::sync::Arc;

pub struct SystemResetService {
    stores: Vec<Arc<dyn DataWipe>>,
}

impl SystemResetService {
    pub fn new(stores: Vec<Arc<dyn DataWipe>>) -> Self {
        Self { stores }
    }

    /// Wipes each store in turn; returns `(store, tables or keys emptied)`.
    ///
    /// # Errors
    /// The first store that fails (the ones before it are already empty).
    pub async fn reset(&self) -> Result<Vec<(&'static str, u64)>, ServiceError> {
        let mut cleared = Vec::with_capacity(self.stores.len());
        for store in &self.stores {
            let n = store.wipe().await?;
            tracing::warn!(store = store.store(), emptied = n, "system.reset");
            cleared.push((store.store(), n));
        }
        Ok(cleared)
    }
}
