package com.example.shop;

import java.util.Objects;

/** One line of a cart or order. Prices are in cents. */
public record LineItem(String sku, String name, long unitCents, int quantity) {
    public LineItem {
        Objects.requireNonNull(sku, "sku");
        Objects.requireNonNull(name, "name");
        if (unitCents < 0) {
            throw new IllegalArgumentException("negative price");
        }
        if (quantity <= 0) {
            throw new IllegalArgumentException("quantity must be positive");
        }
    }

    public long lineCents() {
        return unitCents * quantity;
    }

    public LineItem withQuantity(int newQuantity) {
        return new LineItem(sku, name, unitCents, newQuantity);
    }
}
