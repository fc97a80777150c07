package com.example.checkout

data class Cart(val id: String, val subtotalCents: Long, val currency: String)

data class InstallmentPlan(val installments: List<Long>, val feeCents: Long)

data class Quote(val method: PaymentMethod, val subtotalCents: Long, val feeCents: Long) {
    val totalCents: Long get() = subtotalCents + feeCents
}

class Checkout(private val minimumOrderCents: Long = 500) {
    fun quote(cart: Cart, method: PaymentMethod): Quote {
        require(cart.subtotalCents >= minimumOrderCents) { "order below minimum" }
        val fee = if (Fees.surcharged(method)) Fees.processingFeeCents(method, cart.subtotalCents) else 0L
        return Quote(method, cart.subtotalCents, fee)
    }

    fun installmentPlan(cart: Cart, count: Int = 4): InstallmentPlan {
        val fee = Fees.processingFeeCents(PaymentMethod.BUY_NOW_PAY_LATER, cart.subtotalCents)
        val total = cart.subtotalCents + fee
        val base = total / count
        val installments = List(count) { i -> if (i == 0) base + total % count else base }
        return InstallmentPlan(installments, fee)
    }

    fun quotes(cart: Cart): List<Quote> =
        PaymentMethod.available().map { quote(cart, it) }

    fun margin(cart: Cart, method: PaymentMethod): Long =
        cart.subtotalCents - Fees.processingFeeCents(method, cart.subtotalCents)
}
