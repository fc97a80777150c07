# frozen_string_literal: true

module Shop
  Coupon = Struct.new(:code, :percent_off, :expires_at, :max_redemptions, :redemptions, keyword_init: true)

  # In-memory coupon book, loaded from config/coupons.yml at boot.
  class Coupons
    def initialize(records = [])
      @by_code = records.to_h { |c| [c.code.upcase, c] }
    end

    # The coupon for +code+ if it can still be redeemed, nil otherwise.
    def redeemable(code, now: Time.now)
      coupon = @by_code[code.to_s.strip.upcase]
      return nil if coupon.nil? || coupon.expires_at < now
      return nil if coupon.redemptions >= coupon.max_redemptions

      coupon
    end

    def redeem!(code)
      coupon = @by_code.fetch(code.to_s.strip.upcase)
      coupon.redemptions += 1
      coupon
    end

    def all
      @by_code.values
    end
  end
end
