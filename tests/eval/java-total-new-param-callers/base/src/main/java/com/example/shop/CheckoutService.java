package com.example.shop;

import java.util.List;

public class CheckoutService {
    private final PriceCalculator calculator;
    private final PaymentGateway payments;

    public CheckoutService(PriceCalculator calculator, PaymentGateway payments) {
        this.calculator = calculator;
        this.payments = payments;
    }

    public String checkout(String customerId, List<LineItem> items) {
        if (items.isEmpty()) {
            throw new IllegalArgumentException("empty cart");
        }
        long total = calculator.calculateTotal(items);
        return payments.charge(customerId, total);
    }

    public interface PaymentGateway {
        String charge(String customerId, long amountCents);
    }
}
