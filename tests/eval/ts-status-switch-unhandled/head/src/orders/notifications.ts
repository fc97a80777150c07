import { Order, OrderStatus } from "./status";
import { sendMail } from "../mail";

function subjectFor(order: Order): string {
  return `Your order ${order.id}`;
}

/** Email the customer about the order's new status. */
export async function notifyStatusChange(order: Order): Promise<void> {
  let text: string;
  switch (order.status) {
    case OrderStatus.Pending:
      text = "We received your order.";
      break;
    case OrderStatus.Paid:
      text = "Payment received, we are preparing your order.";
      break;
    case OrderStatus.Shipped:
      text = "Your order is on its way.";
      break;
    case OrderStatus.Cancelled:
      text = "Your order was cancelled.";
      break;
    default:
      throw new Error(`notifyStatusChange: unhandled status ${order.status}`);
  }
  await sendMail(order.customerEmail, subjectFor(order), text);
}
