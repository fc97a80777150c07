"use strict";

const crypto = require("crypto");

/** A short, non-reversible identifier for a token, safe to log. */
function fingerprint(token) {
  return crypto.createHash("sha256").update(token).digest("hex").slice(0, 12);
}

function bearer(header) {
  if (typeof header !== "string") {
    return null;
  }
  const match = /^Bearer\s+(.+)$/i.exec(header);
  return match ? match[1] : null;
}

function isExpired(claims, nowSeconds) {
  return typeof claims.exp === "number" && claims.exp <= nowSeconds;
}

function decodeClaims(jwt) {
  const [, payload] = jwt.split(".");
  return JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
}

module.exports = { fingerprint, bearer, isExpired, decodeClaims };
