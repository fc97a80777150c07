"""Service settings. Durations are in seconds unless the name says otherwise."""

import os

SESSION_TTL_SECONDS = int(os.environ.get("SESSION_TTL_SECONDS", 30 * 60))
RATE_LIMIT_WINDOW_SECONDS = 60
RATE_LIMIT_MAX_REQUESTS = 120
TOKEN_BYTES = 32

DATABASE_URL = os.environ.get("DATABASE_URL", "postgresql://localhost/app")
LOG_LEVEL = os.environ.get("LOG_LEVEL", "INFO")

COOKIE_NAME = "sid"
COOKIE_SECURE = os.environ.get("COOKIE_SECURE", "1") == "1"


def describe() -> dict:
    return {
        "session_ttl_seconds": SESSION_TTL_SECONDS,
        "rate_limit_window_seconds": RATE_LIMIT_WINDOW_SECONDS,
        "rate_limit_max_requests": RATE_LIMIT_MAX_REQUESTS,
        "log_level": LOG_LEVEL,
    }
