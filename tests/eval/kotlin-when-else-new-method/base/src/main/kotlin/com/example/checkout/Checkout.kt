package com.example.checkout

data class Cart(val id: String, val subtotalCents: Long, val currency: String)

data class Quote(val method: PaymentMethod, val subtotalCents: Long, val feeCents: Long) {
    val totalCents: Long get() = subtotalCents + feeCents
}

class Checkout(private val minimumOrderCents: Long = 500) {
    fun quote(cart: Cart, method: PaymentMethod): Quote {
        require(cart.subtotalCents >= minimumOrderCents) { "order below minimum" }
        val fee = if (Fees.surcharged(method)) Fees.processingFeeCents(method, cart.subtotalCents) else 0L
        return Quote(method, cart.subtotalCents, fee)
    }

    fun quotes(cart: Cart): List<Quote> =
        PaymentMethod.available().map { quote(cart, it) }

    fun margin(cart: Cart, method: PaymentMethod): Long =
        cart.subtotalCents - Fees.processingFeeCents(method, cart.subtotalCents)
}
