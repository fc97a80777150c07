"""Catalogue prices. All amounts are integer cents."""

from dataclasses import dataclass

_CATALOGUE = {
    "TSHIRT-S": 1500,
    "TSHIRT-M": 1500,
    "HOODIE-M": 4200,
    "MUG": 900,
}

_TIER_DISCOUNT_PERCENT = {"retail": 0, "wholesale": 20}


@dataclass(frozen=True)
class PriceQuote:
    sku: str
    quantity: int
    unit_cents: int

    @property
    def total_cents(self) -> int:
        return self.unit_cents * self.quantity


def get_price(sku: str) -> int:
    """Unit price in cents for a SKU."""
    try:
        return _CATALOGUE[sku]
    except KeyError:
        raise LookupError(f"unknown sku {sku!r}") from None


def known_skus() -> list[str]:
    return sorted(_CATALOGUE)
