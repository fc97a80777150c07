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
  const refreshed = await idp.refresh(session.refreshToken);
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
