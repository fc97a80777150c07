package com.example.shop;

import java.util.List;

/** Order totals in cents. */
public class PriceCalculator {
    private final long freeShippingThresholdCents;
    private final long shippingCents;

    public PriceCalculator(long freeShippingThresholdCents, long shippingCents) {
        this.freeShippingThresholdCents = freeShippingThresholdCents;
        this.shippingCents = shippingCents;
    }

    public long subtotal(List<LineItem> items) {
        long sum = 0;
        for (LineItem item : items) {
            sum += item.unitCents() * item.quantity();
        }
        return sum;
    }

    /** Subtotal plus shipping. */
    public long calculateTotal(List<LineItem> items) {
        long subtotal = subtotal(items);
        long shipping = subtotal >= freeShippingThresholdCents ? 0 : shippingCents;
        return subtotal + shipping;
    }
}
