import { formatPrice, formatQuantity } from "./format";

export interface CartLine {
  sku: string;
  name: string;
  quantity: number;
  unitCents: number;
}

export function lineLabel(line: CartLine): string {
  const total = line.quantity * line.unitCents;
  return `${line.name} (${formatQuantity(line.quantity, "item")}) ${formatPrice(total)}`;
}

export function cartSummary(lines: CartLine[]): string[] {
  const labels = lines.map(lineLabel);
  const total = lines.reduce((sum, l) => sum + l.quantity * l.unitCents, 0);
  labels.push(`Total: ${formatPrice(total)}`);
  return labels;
}

export function isEmpty(lines: CartLine[]): boolean {
  return lines.every((l) => l.quantity === 0);
}
