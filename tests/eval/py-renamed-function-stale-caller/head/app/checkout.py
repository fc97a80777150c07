"""Checkout: turns a cart into an order."""

from dataclasses import dataclass

from app import pricing


@dataclass
class CartItem:
    sku: str
    quantity: int


def cart_total(items: list[CartItem]) -> int:
    total = 0
    for item in items:
        if item.quantity <= 0:
            raise ValueError(f"bad quantity for {item.sku}")
        line_total = pricing.get_price(item.sku) * item.quantity
        total += line_total
    return total


def place_order(customer_id: int, items: list[CartItem], repo) -> int:
    total = cart_total(items)
    order_id = repo.insert_order(customer_id, total)
    for item in items:
        repo.insert_line(order_id, item.sku, item.quantity)
    return order_id
