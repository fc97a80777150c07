//! `POST /api/system/reset`: empties every store reviewd writes to.

use super::ServiceError;
use crate::model::{AuthMethod, Principal};
use crate::ports::{DataWipe, ResetCaller};
use std::sync::Arc;

pub struct SystemResetService {
    stores: Vec<Arc<dyn DataWipe>>,
}

impl SystemResetService {
    pub fn new(stores: Vec<Arc<dyn DataWipe>>) -> Self {
        Self { stores }
    }

    /// Wipes each store in turn; returns `(store, tables or keys emptied)`. The
    /// caller's account and the credential of this call survive, so they can go on.
    ///
    /// # Errors
    /// The first store that fails (the ones before it are already empty).
    pub async fn reset(
        &self,
        caller: &Principal,
    ) -> Result<Vec<(&'static str, u64)>, ServiceError> {
        let caller = ResetCaller {
            user_id: caller.user.id,
            session_id: match caller.method {
                AuthMethod::Session { session_id } => Some(session_id),
                AuthMethod::ApiKey { .. } => None,
            },
            api_key_id: caller.api_key_id(),
        };
        let mut cleared = Vec::with_capacity(self.stores.len());
        for store in &self.stores {
            let n = store.wipe(&caller).await?;
            tracing::warn!(store = store.store(), emptied = n, "system.reset");
            cleared.push((store.store(), n));
        }
        Ok(cleared)
    }
}
