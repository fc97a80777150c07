// reviewd dashboard: small enhancements on top of pages that work without script.
// Copy buttons, confirmations, live review progress, a manual task followed to its
// review, and browser push. Reads the JSON API with the session cookie.
"use strict";

(function () {
  function $(sel, root) { return (root || document).querySelector(sel); }
  function $all(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }

  function getJson(url) {
    return fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (r) { if (!r.ok) { throw new Error("HTTP " + r.status); } return r.json(); });
  }

  // Copy the text of the element named by data-copy.
  $all("[data-copy]").forEach(function (button) {
    button.addEventListener("click", function () {
      var target = document.getElementById(button.getAttribute("data-copy"));
      if (!target || !navigator.clipboard) { return; }
      navigator.clipboard.writeText(target.textContent.trim()).then(function () {
        var label = button.textContent;
        button.textContent = "Copied";
        setTimeout(function () { button.textContent = label; }, 1500);
      }, function () { /* Clipboard refused (insecure origin): the text stays selectable. */ });
    });
  });

  // Ask before destructive forms.
  $all("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      if (!window.confirm(form.getAttribute("data-confirm"))) { event.preventDefault(); }
    });
  });

  // Live per-file progress of a running review; the page reloads once it is done.
  var live = $("[data-progress-url]");
  if (live) {
    var pollProgress = function () {
      getJson(live.getAttribute("data-progress-url")).then(function (body) {
        var data = body.data;
        data.files.forEach(function (f) {
          var row = document.getElementById("file-" + f.fileId);
          if (!row) { return; }
          var status = $(".file-status", row);
          if (status) { status.textContent = f.status; status.className = "badge file-status " + f.status; }
          var count = $(".file-comments", row);
          if (count) { count.textContent = String(f.commentCount); }
        });
        var bar = $(".progress > span", live);
        var pct = data.total ? Math.round(100 * data.completed / data.total) : 0;
        if (bar) { bar.style.width = pct + "%"; }
        var label = $(".progress-label", live);
        if (label) { label.textContent = data.completed + " of " + data.total + " files"; }
        return getJson(live.getAttribute("data-review-url"));
      }).then(function (body) {
        if (body && body.data && body.data.review && body.data.review.status !== "pending") {
          window.location.reload();
        } else {
          setTimeout(pollProgress, 2000);
        }
      }).catch(function () { setTimeout(pollProgress, 5000); });
    };
    setTimeout(pollProgress, 1500);
  }

  // A triggered manual review: follow its task until the review exists and ends.
  var watch = $("[data-task-url]");
  if (watch) {
    var pollTask = function () {
      getJson(watch.getAttribute("data-task-url")).then(function (body) {
        var task = body.data.task;
        var status = $(".task-status", watch);
        if (status) { status.textContent = task.status; status.className = "badge task-status " + task.status; }
        var attempts = $(".task-attempts", watch);
        if (attempts) { attempts.textContent = task.attempts + " / " + task.maxAttempts; }
        // Once the review exists, its page shows the files' progress live.
        if (task.reviewId) {
          window.location.assign("/reviews/" + task.reviewId);
          return;
        }
        if (task.status === "failed" || task.status === "superseded" || task.status === "cancelled") {
          var error = $(".task-error", watch);
          if (error) { error.textContent = task.errorMessage || ""; }
          return;
        }
        setTimeout(pollTask, 1500);
      }).catch(function () { setTimeout(pollTask, 4000); });
    };
    setTimeout(pollTask, 800);
  }

  // Browser push: register our service worker and subscribe this browser.
  var push = $("#push-subscribe");
  if (push) {
    var pushStatus = $("#push-status");
    var say = function (text) { if (pushStatus) { pushStatus.textContent = text; } };
    if (!("serviceWorker" in navigator) || !("PushManager" in window)) {
      push.disabled = true;
      say("This browser does not support push notifications (or the page is not served over https).");
    } else {
      push.addEventListener("click", function () {
        var key = push.getAttribute("data-vapid-key");
        var raw = atob(key.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((key.length + 3) % 4));
        var bytes = new Uint8Array(raw.length);
        for (var i = 0; i < raw.length; i++) { bytes[i] = raw.charCodeAt(i); }
        navigator.serviceWorker.register("/sw.js").then(function (reg) {
          return navigator.serviceWorker.ready.then(function () { return reg; });
        }).then(function (reg) {
          return reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: bytes });
        }).then(function (sub) {
          return fetch("/api/notifications/push/subscribe", {
            method: "POST", credentials: "same-origin",
            headers: { "Content-Type": "application/json", "Accept": "application/json" },
            body: JSON.stringify(sub.toJSON())
          });
        }).then(function (r) {
          say(r.ok ? "This browser is subscribed." : "The server refused the subscription (HTTP " + r.status + ").");
        }).catch(function (e) { say("Could not subscribe: " + e.message); });
      });
    }
  }
})();
