import type { Payments } from "../payments";
import { Order, OrderStatus } from "./status";
import type { OrderRepo } from "./repo";

export class RefundService {
  constructor(
    private readonly payments: Payments,
    private readonly orders: OrderRepo,
  ) {}

  async partialRefund(order: Order, amountCents: number): Promise<void> {
    if (order.status !== OrderStatus.Paid && order.status !== OrderStatus.Shipped) {
      throw new Error(`order ${order.id} cannot be refunded in status ${order.status}`);
    }
    if (amountCents <= 0 || amountCents > order.totalCents) {
      throw new Error("invalid refund amount");
    }
    await this.payments.refund(order.id, amountCents);
    await this.orders.recordRefund(order.id, amountCents);
  }
}
