"""Listing endpoints for the catalogue API."""

from dataclasses import dataclass


@dataclass
class Product:
    id: int
    name: str
    price_cents: int


def sort_products(products: list[Product], key: str) -> list[Product]:
    if key == "price":
        return sorted(products, key=lambda p: p.price_cents)
    if key == "name":
        return sorted(products, key=lambda p: p.name.lower())
    return list(products)


def filter_by_price(products: list[Product], max_cents: int | None) -> list[Product]:
    if max_cents is None:
        return list(products)
    return [p for p in products if p.price_cents <= max_cents]
