"""Background jobs run by the worker."""

import logging
import time

from app import notify

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 5


def resend_failed_invoices(orders_repo):
    """Retry invoice emails that failed to send (SMTP outages)."""
    for order in orders_repo.with_unsent_invoice():
        if order.invoice_attempts >= MAX_ATTEMPTS:
            log.error("giving up on invoice for %s", order.number)
            continue
        try:
            notify.send_invoice(order, order.currency)
        except OSError:
            orders_repo.bump_invoice_attempts(order.id)
            time.sleep(1)
        else:
            orders_repo.mark_invoice_sent(order.id)
