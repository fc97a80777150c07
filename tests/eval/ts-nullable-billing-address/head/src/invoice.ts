import type { Customer, Invoice, InvoiceLine } from "./types";

const money = new Intl.NumberFormat("en-US", { style: "currency", currency: "EUR" });

export function lineTotalCents(line: InvoiceLine): number {
  return line.quantity * line.unitCents;
}

export function invoiceTotalCents(invoice: Invoice): number {
  return invoice.lines.reduce((sum, line) => sum + lineTotalCents(line), 0);
}

export function renderLines(invoice: Invoice): string[] {
  return invoice.lines.map(
    (line) =>
      `${line.description.padEnd(40)} ${String(line.quantity).padStart(4)} ${money.format(lineTotalCents(line) / 100)}`,
  );
}

export function billingHeader(customer: Customer): string[] {
  const addr = customer.billingAddress;
  return [customer.name, addr.line1, `${addr.postalCode} ${addr.city}`, addr.country];
}

export function renderInvoice(invoice: Invoice): string {
  return [
    `Invoice ${invoice.number}`,
    `Date: ${invoice.issuedAt.toISOString().slice(0, 10)}`,
    "",
    ...billingHeader(invoice.customer),
    "",
    ...renderLines(invoice),
    "",
    `Total: ${money.format(invoiceTotalCents(invoice) / 100)}`,
  ].join("\n");
}
