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


def get_unit_price(sku: str, tier: str = "retail") -> int:
    """Unit price in cents for a SKU in the given price tier."""
    try:
        base = _CATALOGUE[sku]
    except KeyError:
        raise LookupError(f"unknown sku {sku!r}") from None
    discount = _TIER_DISCOUNT_PERCENT[tier]
    return base * (100 - discount) // 100


def known_skus() -> list[str]:
    return sorted(_CATALOGUE)
