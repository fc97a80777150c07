export enum OrderStatus {
  Pending = "pending",
  Paid = "paid",
  Shipped = "shipped",
  Cancelled = "cancelled",
}

export interface Order {
  id: string;
  customerEmail: string;
  status: OrderStatus;
  totalCents: number;
  updatedAt: Date;
}

export function isFinal(status: OrderStatus): boolean {
  return status === OrderStatus.Shipped || status === OrderStatus.Cancelled;
}

export function canCancel(order: Order): boolean {
  return order.status === OrderStatus.Pending || order.status === OrderStatus.Paid;
}
