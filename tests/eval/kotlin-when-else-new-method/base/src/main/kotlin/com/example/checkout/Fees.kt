package com.example.checkout

/** What payment providers charge us, in cents. */
object Fees {
    /** The provider's processing fee for a payment of [amountCents]. */
    fun processingFeeCents(method: PaymentMethod, amountCents: Long): Long = when (method) {
        PaymentMethod.CARD -> amountCents * 29 / 1000 + 30
        PaymentMethod.BANK_TRANSFER -> 25
        else -> 0L // wallet payments are internal: no provider fee
    }

    /** Whether we pass the fee on to the customer. */
    fun surcharged(method: PaymentMethod): Boolean = method == PaymentMethod.CARD

    fun describe(method: PaymentMethod, amountCents: Long): String {
        val fee = processingFeeCents(method, amountCents)
        return "${method.displayName}: fee ${fee / 100}.${(fee % 100).toString().padStart(2, '0')}"
    }

    const val MAX_FEE_CENTS = 50_00L
}
