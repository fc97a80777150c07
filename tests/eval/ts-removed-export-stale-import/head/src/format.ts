export type Currency = "EUR" | "USD" | "GBP";

export interface Money {
  cents: number;
  currency: Currency;
}

const SYMBOLS: Record<Currency, string> = { EUR: "\u20ac", USD: "$", GBP: "\u00a3" };

/** Format money with its currency symbol, e.g. {cents: 1999, currency: "USD"} -> "$19.99". */
export function formatMoney(amount: Money): string {
  return `${SYMBOLS[amount.currency]}${(amount.cents / 100).toFixed(2)}`;
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
