package com.example.shop;

import java.util.List;
import java.util.Locale;

public class InvoiceService {
    private final PriceCalculator calculator;

    public InvoiceService(PriceCalculator calculator) {
        this.calculator = calculator;
    }

    public record Order(String number, String customerName, List<LineItem> items) {}

    public String render(Order order) {
        StringBuilder out = new StringBuilder();
        out.append("Invoice ").append(order.number()).append('\n');
        out.append("Customer: ").append(order.customerName()).append('\n');
        for (LineItem item : order.items()) {
            out.append(String.format(Locale.ROOT, "%-30s %3d x %8.2f%n",
                    item.name(), item.quantity(), item.unitCents() / 100.0));
        }
        long total = calculator.calculateTotal(order.items());
        out.append(String.format(Locale.ROOT, "Total: %.2f%n", total / 100.0));
        return out.toString();
    }
}
