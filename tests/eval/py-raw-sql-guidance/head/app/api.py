"""HTTP handlers for reports."""

import logging

from flask import Blueprint, abort, jsonify, request

from app import reports

log = logging.getLogger(__name__)
bp = Blueprint("reports", __name__)


@bp.get("/reports")
def list_reports():
    owner_id = int(request.headers["X-User-Id"])
    limit = int(request.args.get("limit", 50))
    return jsonify({"reports": reports.recent_reports(owner_id, limit)})


@bp.get("/reports/search")
def search_reports():
    owner_id = int(request.headers["X-User-Id"])
    term = request.args.get("q", "")
    return jsonify({"reports": reports.search_reports(owner_id, term)})


@bp.get("/reports/<int:report_id>")
def get_report(report_id: int):
    report = reports.report_by_id(report_id)
    if report is None:
        abort(404)
    return jsonify(report)
