# frozen_string_literal: true

require_relative "coupons"
require_relative "line_item"

module Shop
  class Cart
    attr_reader :items, :discount_percent

    def initialize(coupons:)
      @coupons = coupons
      @items = []
      @discount_percent = 0
    end

    def add(sku, unit_cents, quantity = 1)
      existing = @items.find { |i| i.sku == sku }
      if existing
        existing.quantity += quantity
      else
        @items << LineItem.new(sku: sku, unit_cents: unit_cents, quantity: quantity)
      end
      self
    end

    def subtotal_cents
      @items.sum(&:total_cents)
    end

    def total_cents
      subtotal_cents - (subtotal_cents * @discount_percent / 100)
    end

    def empty?
      @items.empty?
    end
  end
end
