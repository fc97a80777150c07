package com.example.shop;

/** VAT regions we sell into, with their standard rate in basis points. */
public enum TaxRegion {
    DE(1900),
    FR(2000),
    NL(2100),
    AT(2000),
    EXPORT(0);

    private final int basisPoints;

    TaxRegion(int basisPoints) {
        this.basisPoints = basisPoints;
    }

    public int basisPoints() {
        return basisPoints;
    }

    public long taxOn(long cents) {
        return (cents * basisPoints + 5000) / 10000;
    }
}
