// reviewd's service worker: shows pushed review notifications and opens their link.
"use strict";

self.addEventListener("push", function (event) {
  var data = {};
  try { data = event.data ? event.data.json() : {}; } catch (e) { data = { title: "reviewd", body: event.data ? event.data.text() : "" }; }
  var title = data.title || "reviewd";
  event.waitUntil(self.registration.showNotification(title, {
    body: data.body || data.message || "",
    icon: "/static/favicon.svg",
    data: { url: data.url || (data.data && data.data.url) || "/" }
  }));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var url = (event.notification.data && event.notification.data.url) || "/";
  event.waitUntil(self.clients.openWindow(url));
});
