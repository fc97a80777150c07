package com.example.checkout

enum class PaymentMethod(val code: String, val displayName: String) {
    CARD("card", "Card"),
    BANK_TRANSFER("bank_transfer", "Bank transfer"),
    WALLET("wallet", "Wallet balance"),
    BUY_NOW_PAY_LATER("bnpl", "Pay in 4"),
    ;

    /** Whether the customer is charged immediately at checkout. */
    val chargedAtCheckout: Boolean
        get() = this != BANK_TRANSFER

    companion object {
        private val byCode = entries.associateBy { it.code }

        fun fromCode(code: String): PaymentMethod =
            byCode[code] ?: throw IllegalArgumentException("unknown payment method: $code")

        fun available(): List<PaymentMethod> = entries.toList()
    }
}
