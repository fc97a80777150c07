# frozen_string_literal: true

module Shop
  # One line of the cart. Amounts are integer cents.
  class LineItem
    attr_reader :sku, :unit_cents
    attr_accessor :quantity

    def initialize(sku:, unit_cents:, quantity:)
      raise ArgumentError, "quantity must be positive" unless quantity.positive?

      @sku = sku
      @unit_cents = unit_cents
      @quantity = quantity
    end

    def total_cents
      unit_cents * quantity
    end

    def to_h
      { sku: sku, unit_cents: unit_cents, quantity: quantity }
    end
  end
end
