// A running tournament's page: the progress box follows /api/tournaments/{id}/progress
// every few seconds (matches stored of the schedule, matches per minute, time to go), and
// the page reloads itself for the standings and matches when new ones are stored (at most
// every RELOAD_MS; untick "refresh" to stop that) or when the tournament stops running.
(function () {
  "use strict";

  const box = document.getElementById("progress");
  if (!box || box.dataset.status !== "running") return;
  const timing = window.arenaProgressTiming || {};  // tests shorten these
  const POLL_MS = timing.poll || 5000;
  const RELOAD_MS = timing.reload !== undefined ? timing.reload : 30000;
  const KEY = "arena-auto-refresh";
  const loadedAt = Date.now();
  const shownDone = Number(box.dataset.done);
  const auto = document.getElementById("auto-refresh");
  if (auto) {
    auto.checked = sessionStorage.getItem(KEY) !== "off";
    auto.addEventListener("change", function () { sessionStorage.setItem(KEY, auto.checked ? "on" : "off"); });
  }

  function duration(seconds) {
    const s = Math.max(0, Math.round(seconds));
    if (s < 60) return s + " s";
    if (s < 600) return Math.floor(s / 60) + " min" + (s % 60 ? " " + (s % 60) + " s" : "");
    const minutes = Math.round(s / 60);
    if (minutes < 60) return minutes + " min";
    return Math.floor(minutes / 60) + " h" + (minutes % 60 ? " " + (minutes % 60) + " min" : "");
  }

  function render(p) {
    box.dataset.status = p.status;
    const bar = document.getElementById("progress-bar");
    bar.max = p.total;
    bar.value = p.done;
    const count = document.getElementById("progress-count");
    count.textContent = "";
    const strong = document.createElement("strong");
    strong.textContent = String(p.done);
    count.appendChild(strong);
    count.appendChild(document.createTextNode(" of " + p.total + " matches (" + Math.round(100 * p.fraction) + " %)"));
    const facts = document.getElementById("progress-facts");
    if (p.status !== "running") facts.textContent = p.status;
    else if (p.stalled) facts.textContent = "no match stored since " + p.last_match_at.slice(11, 19) + " UTC: the tournament may have stopped";
    else if (p.matches_per_minute !== null) {
      facts.textContent = p.matches_per_minute.toFixed(1) + " matches/min · about " + duration(p.eta_seconds) + " to go (done near " + p.eta.slice(11, 16) + " UTC)";
    } else facts.textContent = "running: the rate is known after two matches";
  }

  function poll() {
    fetch(box.dataset.progressUrl, { headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (p) {
        if (!p) return;
        render(p);
        const stopped = p.status !== "running";
        const fresh = p.done !== shownDone && Date.now() - loadedAt >= RELOAD_MS;
        if (stopped || (fresh && (!auto || auto.checked))) { location.reload(); return; }
        setTimeout(poll, POLL_MS);
      })
      .catch(function () { setTimeout(poll, POLL_MS * 3); });
  }
  setTimeout(poll, POLL_MS);
})();
