export type Currency = "EUR" | "USD" | "GBP";

export interface Money {
  cents: number;
  currency: Currency;
}

const SYMBOLS: Record<Currency, string> = { EUR: "\u20ac", USD: "$", GBP: "\u00a3" };

/** Format integer cents as a euro amount, e.g. 1999 -> "19.99 EUR". */
export function formatPrice(cents: number): string {
  return `${(cents / 100).toFixed(2)} EUR`;
}

export function formatPercent(ratio: number): string {
  return `${(ratio * 100).toFixed(1)}%`;
}

export function formatQuantity(n: number, unit: string): string {
  return n === 1 ? `1 ${unit}` : `${n} ${unit}s`;
}

export function symbolFor(currency: Currency): string {
  return SYMBOLS[currency];
}
