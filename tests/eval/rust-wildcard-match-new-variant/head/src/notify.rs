//! Turns domain events into customer emails.

use crate::events::Event;
use crate::mail::{Mailer, Template};

pub struct Notifier<M: Mailer> {
    mailer: M,
}

impl<M: Mailer> Notifier<M> {
    pub fn new(mailer: M) -> Self {
        Self { mailer }
    }

    /// Send whatever email `event` calls for.
    pub fn dispatch(&self, event: &Event) -> anyhow::Result<()> {
        match event {
            Event::OrderPlaced { order_id, customer_id } => {
                self.mailer
                    .send(*customer_id, Template::OrderConfirmation { order_id: *order_id })
            }
            Event::OrderShipped { order_id, tracking } => self.mailer.send_to_order_owner(
                *order_id,
                Template::Shipped {
                    tracking: tracking.clone(),
                },
            ),
            Event::InvoiceOverdue { invoice_id, days } => self.mailer.send_to_invoice_owner(
                *invoice_id,
                Template::Overdue { days: *days },
            ),
            _ => {
                tracing::debug!(event = event.name(), "event has no subscribers");
                Ok(())
            }
        }
    }
}
