//! Coupon codes.

use std::collections::HashMap;

#[derive(Debug, Clone)]
pub struct Coupon {
    pub code: String,
    pub percent_off: u32,
    pub active: bool,
}

#[derive(Default)]
pub struct CouponBook {
    coupons: HashMap<String, Coupon>,
}

impl CouponBook {
    pub fn add(&mut self, coupon: Coupon) {
        self.coupons.insert(coupon.code.to_uppercase(), coupon);
    }

    pub fn lookup(&self, code: &str) -> Option<&Coupon> {
        self.coupons.get(&code.to_uppercase()).filter(|c| c.active)
    }
}
