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


def paginate(products: list[Product], page: int, per_page: int) -> list[Product]:
    """Return one page of results. `page` is 1-based: page=1 is the first page."""
    start = page * per_page
    return products[start:start + per_page]


def filter_by_price(products: list[Product], max_cents: int | None) -> list[Product]:
    if max_cents is None:
        return list(products)
    return [p for p in products if p.price_cents <= max_cents]
