"""HTTP layer for the catalogue."""

from flask import Blueprint, jsonify, request

from app.listing import filter_by_price, paginate, sort_products
from app.store import all_products

bp = Blueprint("catalogue", __name__)


@bp.get("/products")
def products():
    items = all_products()
    items = filter_by_price(items, request.args.get("max_cents", type=int))
    items = sort_products(items, request.args.get("sort", ""))
    page = request.args.get("page", default=1, type=int)
    items = paginate(items, page, request.args.get("per_page", default=20, type=int))
    return jsonify({"products": [p.__dict__ for p in items]})


@bp.get("/products/<int:product_id>")
def product(product_id: int):
    for p in all_products():
        if p.id == product_id:
            return jsonify(p.__dict__)
    return jsonify({"error": "not found"}), 404
