"""Price quotes for the sales team."""

from app import pricing
from app.pricing import PriceQuote


def quote(sku: str, quantity: int, tier: str = "retail") -> PriceQuote:
    unit = pricing.get_unit_price(sku, tier)
    return PriceQuote(sku=sku, quantity=quantity, unit_cents=unit)


def quote_many(lines: list[tuple[str, int]]) -> list[PriceQuote]:
    return [quote(sku, qty) for sku, qty in lines]


def grand_total(quotes: list[PriceQuote]) -> int:
    return sum(q.total_cents for q in quotes)


def render(quotes: list[PriceQuote]) -> str:
    out = []
    for q in quotes:
        out.append(f"{q.sku:<10} x{q.quantity:>3}  {q.total_cents / 100:>8.2f}")
    out.append(f"{'TOTAL':<15} {grand_total(quotes) / 100:>8.2f}")
    return "\n".join(out)
