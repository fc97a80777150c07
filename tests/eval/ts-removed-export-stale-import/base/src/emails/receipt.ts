import { formatPrice } from "../format";

export interface ReceiptOrder {
  id: string;
  customerName: string;
  totalCents: number;
  placedAt: Date;
}

export function receiptSubject(order: ReceiptOrder): string {
  return `Your receipt for order ${order.id}`;
}

export function receiptBody(order: ReceiptOrder): string {
  return [
    `Hello ${order.customerName},`,
    "",
    `Thank you for your order ${order.id} placed on ${order.placedAt.toDateString()}.`,
    `Amount charged: ${formatPrice(order.totalCents)}`,
    "",
    "See you soon!",
  ].join("\n");
}
