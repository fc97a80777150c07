"use strict";

const { fingerprint } = require("./tokens");
const logger = require("./logger");

const REFRESH_MARGIN_SECONDS = 60;

function needsRefresh(session, nowSeconds) {
  return session.expiresAt - nowSeconds < REFRESH_MARGIN_SECONDS;
}

async function ensureFresh(session, idp, store) {
  const now = Math.floor(Date.now() / 1000);
  if (!needsRefresh(session, now)) {
    return session;
  }
  logger.debug("refreshing session", { user: session.userId, refreshToken: session.refreshToken });
  let refreshed;
  try {
    refreshed = await idp.refresh(session.refreshToken);
  } catch (err) {
    logger.warn("token refresh failed", { user: session.userId, error: err.code });
    throw err;
  }
  const next = {
    ...session,
    accessToken: refreshed.access_token,
    refreshToken: refreshed.refresh_token || session.refreshToken,
    expiresAt: now + refreshed.expires_in,
  };
  await store.save(next);
  logger.info("session refreshed", { user: session.userId, token: fingerprint(next.accessToken) });
  return next;
}

module.exports = { ensureFresh, needsRefresh };
