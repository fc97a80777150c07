"""Billing flow run when an order is confirmed."""

import logging

from app import notify

log = logging.getLogger(__name__)


def confirm(order, payments):
    charge = payments.charge(order.customer_id, order.total_cents, order.currency)
    if not charge.ok:
        log.warning("charge failed for order %s: %s", order.number, charge.error)
        return False
    order.mark_paid(charge.id)
    notify.send_invoice(order, order.currency)
    return True


def refund(order, payments):
    payments.refund(order.payment_id)
    order.mark_refunded()
    notify.send_receipt(order)
