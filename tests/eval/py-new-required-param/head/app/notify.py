"""Customer notifications: invoices and receipts by email."""

import logging

from app.mailer import Mailer
from app.templates import render

log = logging.getLogger(__name__)
_mailer = Mailer()


def send_invoice(order, currency, locale):
    """Email the invoice for an order, in the customer's locale."""
    amount = order.total_cents / 100
    body = render(
        "invoice.txt",
        locale=locale,
        number=order.number,
        amount=f"{amount:.2f} {currency}",
    )
    _mailer.send(to=order.email, subject=f"Invoice {order.number}", body=body)
    log.info("invoice %s sent", order.number)


def send_receipt(order):
    body = render("receipt.txt", number=order.number)
    _mailer.send(to=order.email, subject=f"Receipt {order.number}", body=body)
