//! Charging invoices against the customer's saved card.

use crate::events::Event;
use crate::gateway::{ChargeError, Gateway};
use crate::mail::Mailer;
use crate::notify::Notifier;

pub struct Invoice {
    pub id: u64,
    pub customer_id: u64,
    pub amount_cents: i64,
}

pub struct Billing<G: Gateway, M: Mailer> {
    gateway: G,
    notifier: Notifier<M>,
}

impl<G: Gateway, M: Mailer> Billing<G, M> {
    pub fn new(gateway: G, notifier: Notifier<M>) -> Self {
        Self { gateway, notifier }
    }

    pub fn charge(&self, invoice: &Invoice) -> Result<(), ChargeError> {
        match self
            .gateway
            .charge(invoice.customer_id, invoice.amount_cents)
        {
            Ok(receipt) => {
                tracing::info!(invoice = invoice.id, receipt = %receipt, "invoice charged");
                Ok(())
            }
            Err(err) => {
                tracing::warn!(invoice = invoice.id, error = %err, "charge failed");
                let event = Event::PaymentFailed {
                    invoice_id: invoice.id,
                    reason: err.to_string(),
                };
                if let Err(mail_err) = self.notifier.dispatch(&event) {
                    tracing::error!(invoice = invoice.id, error = %mail_err, "payment-failed email not sent");
                }
                Err(err)
            }
        }
    }
}
