import { Currency, formatMoney, formatQuantity } from "./format";

export interface CartLine {
  sku: string;
  name: string;
  quantity: number;
  unitCents: number;
}

export function lineLabel(line: CartLine, currency: Currency): string {
  const total = line.quantity * line.unitCents;
  return `${line.name} (${formatQuantity(line.quantity, "item")}) ${formatMoney({ cents: total, currency })}`;
}

export function cartSummary(lines: CartLine[], currency: Currency): string[] {
  const labels = lines.map((l) => lineLabel(l, currency));
  const total = lines.reduce((sum, l) => sum + l.quantity * l.unitCents, 0);
  labels.push(`Total: ${formatMoney({ cents: total, currency })}`);
  return labels;
}

export function isEmpty(lines: CartLine[]): boolean {
  return lines.every((l) => l.quantity === 0);
}
