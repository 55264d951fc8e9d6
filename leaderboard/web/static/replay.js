// The replay viewer of the match page (an ES module; its parts are the replay-*.js files).
//
// It loads the match (with its stored replay) and the board from the JSON endpoints, then
// folds the replay's events in order: step i shows the game after events 0..i.  Every
// number on screen comes from that fold, so it can be traced to the stored replay
// (docs/replay-format.md).
//
// The step is in the address (#step=N, N as the label counts, from 1; #decision=N for a
// bot's decision N, as faults and debug lines number them): reload, back and forward keep
// it.  Jumps (event list, marks, next dividend, first, last, a released slider) add a
// history entry; single steps and play replace the current one.

import { fold } from "./replay-fold.js";
import { makeWords } from "./replay-words.js";
import { drawBoard, zoomable } from "./replay-board.js";
import { makePanels, el, clear } from "./replay-panels.js";
import { drawCashChart } from "./replay-chart.js";

const root = document.getElementById("replay");
const BASE_MS = 300;  // one step at 1x speed

function byId(id) {
  return document.getElementById(id);
}

function getJSON(url) {
  return fetch(url, { headers: { Accept: "application/json" } }).then(function (response) {
    if (!response.ok) throw new Error(url + ": HTTP " + response.status);
    return response.json();
  });
}

// "#step=12" -> {step: 11}; "#decision=7" -> {decision: 7}; anything else -> null.
function parseHash(hash) {
  const m = /^#(step|decision)=(\d{1,9})$/.exec(hash || "");
  if (!m) return null;
  return m[1] === "step" ? { step: Number(m[2]) - 1 } : { decision: Number(m[2]) };
}

function viewer(match, board) {
  const replay = match.replay;
  const events = replay.events;
  const last = events.length - 1;
  const words = makeWords(replay, board);
  const panels = makePanels(replay, board, words);
  const states = fold(board, replay);
  const spans = match.decision_events;  // [first, end) of the events of each decision, or null

  // -- decisions, faults and debug lines by decision number ------------------------------
  const faults = {};
  match.seats.forEach(function (s) {
    s.faults.forEach(function (f) { (faults[f.decision] = faults[f.decision] || []).push({ seat: s.seat, reason: f.reason, detail: f.detail }); });
  });
  const debug = {};
  ((replay.match && replay.match.debug) || []).forEach(function (d) { (debug[d.decision] = debug[d.decision] || []).push(d); });
  const decisionOf = new Array(events.length).fill(null);  // which decision produced each event
  if (spans) spans.forEach(function (span, n) { for (let i = span[0]; i < span[1]; i++) decisionOf[i] = n; });
  // The step of a decision: the state its seat saw (the last event before the decision's own).
  const decisionStep = function (n) { return spans && spans[n] ? Math.max(0, spans[n][0] - 1) : null; };

  // -- the board, its zoom, the chart ----------------------------------------------------------
  const svg = byId("board");
  const drawn = drawBoard(svg, board, words);
  panels.legend(byId("legend"));
  const zoom = zoomable(byId("board-scroll"), svg, { in: byId("zoom-in"), out: byId("zoom-out"), fit: byId("zoom-fit") },
    function () { drawn.layoutLabels(); byId("zoom-label").textContent = byId("board-scroll").dataset.zoom + "×"; });
  let resizing = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(drawn.layoutLabels, 150);
  });
  const chart = drawCashChart(byId("cash-chart"), states, events, words, function (i) { go(i, "push"); });
  const chartLegend = byId("cash-legend");
  chart.ids.forEach(function (id, n) {
    const item = el("span", { class: "legend-item", "data-participant": id });
    const swatch = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    swatch.setAttribute("width", "26");
    swatch.setAttribute("height", "10");
    swatch.setAttribute("aria-hidden", "true");
    const line = document.createElementNS("http://www.w3.org/2000/svg", "line");
    [["x1", 1], ["y1", 5], ["x2", 25], ["y2", 5], ["class", "series series-" + (id === "imaginary" ? "imaginary" : n)]]
      .forEach(function (a) { line.setAttribute(a[0], a[1]); });
    swatch.appendChild(line);
    item.appendChild(swatch);
    item.appendChild(el("span", { class: "bot-name" }, words.who(id)));
    item.appendChild(el("span", { class: "legend-cash", "data-chart-cash": id }, ""));
    chartLegend.appendChild(item);
  });

  // -- slider marks: dividends and faults ------------------------------------------------------
  const slider = byId("step-slider");
  slider.max = String(last);
  const marks = byId("slider-marks");
  function mark(step, kind, title, href) {
    const a = el("a", { class: "mark mark-" + kind, href: href, title: title, "aria-label": title, "data-step": step });
    a.style.left = (last ? step / last * 100 : 0) + "%";
    marks.appendChild(a);
  }
  events.forEach(function (ev, i) {
    if (ev.type === "dividend") mark(i, "dividend", "dividend " + ev.number + " (step " + (i + 1) + ")", "#step=" + (i + 1));
  });
  Object.keys(faults).forEach(function (n) {
    const step = decisionStep(Number(n));
    if (step === null) return;
    mark(step, "fault", "fault at decision " + n + ": " + faults[n].map(function (f) { return words.who(f.seat) + " " + f.reason; }).join(", "),
      "#decision=" + n);
  });

  // -- the event list, grouped by turn ---------------------------------------------------------
  const logBox = byId("event-box");
  const log = byId("event-log");
  const items = [];
  let group = null;
  events.forEach(function (ev, i) {
    if (group === null || ev.type === "turn") {
      group = el("li", { class: "turn-group" });
      group.appendChild(el("div", { class: "turn-head" }, ev.type === "turn" ? "Turn " + ev.turn + " · " + words.who(ev.seat) : "Set-up"));
      group.appendChild(el("ol", { class: "turn-events" }));
      log.appendChild(group);
    }
    const li = el("li", { "data-step": i });
    const a = el("a", { href: "#step=" + (i + 1), class: "ev-link" });
    a.appendChild(el("span", { class: "ev-num" }, i + 1));
    a.appendChild(el("span", { class: "ev-type" }, ev.type));
    a.appendChild(el("span", { class: "ev-text" }, words.describe(ev)));
    const n = decisionOf[i];
    if (n !== null) {
      a.title = "decision " + n + ": " + replay.actions[n].action;
      if (faults[n] && spans[n][0] === i) a.appendChild(el("span", { class: "status status-fault", title: "a fault at decision " + n }, "fault"));
    }
    li.appendChild(a);
    group.lastChild.appendChild(li);
    items.push(li);
  });

  // -- showing a step ---------------------------------------------------------------------------
  const label = byId("step-label");
  const text = byId("event-text");
  const note = byId("decision-note");
  const playButton = byId("btn-play");
  const speed = byId("speed");
  let current = -1;
  let decision = null;  // the decision the address names, while it is shown
  let timer = null;

  if (replay.board && board.sha256 && replay.board.sha256 !== board.sha256) {
    root.insertBefore(el("p", { class: "warn-text" }, "This replay was played on board " + replay.board.name + ", not on the board drawn here (" + board.name + ")."), root.firstChild);
  }

  function showDecision(n) {
    clear(note);
    note.hidden = n === null;
    if (n === null) return;
    const action = replay.actions[n];
    if (!action || decisionStep(n) === null) {
      note.textContent = "Decision " + n + " cannot be shown: " + (action ? "this replay cannot be re-played to place it." : "the replay has " + replay.actions.length + " decisions (0–" + (replay.actions.length - 1) + ").");
      return;
    }
    note.appendChild(document.createTextNode("Decision " + n + " · " + words.who(action.seat) + " (seat " + action.seat + ") played "));
    note.appendChild(el("code", null, action.action));
    note.appendChild(document.createTextNode(". The board shows what the seat saw; step forward (→) to see what the decision did."));
    (faults[n] || []).forEach(function (f) {
      const line = el("span", { class: "decision-fault" });
      line.appendChild(el("span", { class: "status status-fault" }, f.reason));
      line.appendChild(el("span", { class: "detail" }, " " + f.detail));
      note.appendChild(line);
    });
    (debug[n] || []).forEach(function (d) {
      const line = el("span", { class: "decision-debug" });
      line.appendChild(el("span", { class: "muted" }, "debug: "));
      line.appendChild(el("span", { class: "debug-text" }, d.text));
      note.appendChild(line);
    });
  }

  function show(step) {
    step = Math.max(0, Math.min(last, step));
    const state = states[step];
    const ev = events[step];
    const moved = step !== current;
    const previous = current;
    current = step;
    slider.value = String(step);
    root.dataset.step = String(step);
    root.dataset.eventType = ev.type;
    label.textContent = "Step " + (step + 1) + " / " + events.length + " · turn " + state.turn + " · dividends paid " + state.paid;
    text.textContent = words.describe(ev);
    text.className = "event-text ev-" + ev.type;
    drawn.render(state);
    panels.seats(byId("seats-table"), state);
    panels.supply(byId("supply"), state);
    panels.companies(byId("companies-table"), state);
    panels.dividend(byId("dividend-panel"), ev);
    panels.final(byId("final-panel"), state);
    chart.show(step);
    chart.ids.forEach(function (id) {
      const cash = id === "imaginary" ? (state.imaginary ? state.imaginary.cash : null) : state.players[Number(id)].cash;
      const node = chartLegend.querySelector("[data-chart-cash='" + id + "']");
      if (node) node.textContent = cash === null ? "" : " $" + cash;
    });
    if (moved) {
      if (previous >= 0) items[previous].classList.remove("current");
      items[step].classList.add("current");
      // Keep the current event in view inside the list's own box (not by scrolling the page).
      const top = items[step].offsetTop, bottom = top + items[step].offsetHeight;
      if (top < logBox.scrollTop || bottom > logBox.scrollTop + logBox.clientHeight) {
        logBox.scrollTop = Math.max(0, top - logBox.clientHeight / 2);
      }
    }
    if (step === last) stop();
  }

  // -- the address ------------------------------------------------------------------------------
  let pending = null, pendingPush = false;
  function address() {
    return decision !== null && decisionStep(decision) === current ? "#decision=" + decision : "#step=" + (current + 1);
  }
  function writeAddress() {
    pending = null;
    const hash = address();
    if (location.hash === hash) { pendingPush = false; return; }
    if (pendingPush) history.pushState(null, "", hash); else history.replaceState(null, "", hash);
    pendingPush = false;
  }
  // Move to a step; the address follows once the viewer rests (a browser limits how often
  // a page may rewrite it), as a new history entry when the move was a jump.
  function go(step, how) {
    if (decision !== null && decisionStep(decision) !== Math.max(0, Math.min(last, step))) { decision = null; showDecision(null); }
    show(step);
    if (how === "push") pendingPush = true;
    if (pending !== null) clearTimeout(pending);
    pending = setTimeout(writeAddress, pendingPush ? 150 : 400);
  }
  function follow(scroll) {
    const target = parseHash(location.hash);
    if (!target) return false;
    if (target.decision !== undefined) {
      decision = target.decision;
      showDecision(decision);
      const step = decisionStep(decision);
      if (step !== null) show(step);
    } else {
      if (decision !== null) { decision = null; showDecision(null); }
      show(target.step);
    }
    if (scroll && root.getBoundingClientRect().top < 0) root.scrollIntoView({ block: "start" });
    return true;
  }
  // A link inside the viewer (event list, marks) keeps the page where it is; a link from
  // elsewhere on the page (a fault's decision) brings the viewer into sight.
  let inside = false;
  root.addEventListener("click", function (event) {
    inside = !!(event.target.closest && event.target.closest("a[href^='#']"));
  }, true);
  window.addEventListener("hashchange", function () { stop(); follow(!inside); inside = false; });
  window.addEventListener("popstate", function () { stop(); follow(false); });

  // -- play ---------------------------------------------------------------------------------------
  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    playButton.textContent = "▶ Play";
    playButton.setAttribute("aria-pressed", "false");
  }
  function play() {
    if (timer !== null) { stop(); go(current, "replace"); return; }
    if (current === last) go(0, "replace");
    playButton.textContent = "❚❚ Pause";
    playButton.setAttribute("aria-pressed", "true");
    timer = setInterval(function () { go(current + 1, "replace"); }, BASE_MS / Number(speed.value));
  }
  speed.addEventListener("change", function () {
    if (timer !== null) { stop(); play(); }
  });

  function nextDividend() {
    for (let i = current + 1; i <= last; i++) {
      if (events[i].type === "dividend") { go(i, "push"); return; }
    }
    go(last, "push");
  }

  byId("btn-first").addEventListener("click", function () { stop(); go(0, "push"); });
  byId("btn-prev").addEventListener("click", function () { stop(); go(current - 1, "replace"); });
  byId("btn-next").addEventListener("click", function () { stop(); go(current + 1, "replace"); });
  byId("btn-last").addEventListener("click", function () { stop(); go(last, "push"); });
  byId("btn-dividend").addEventListener("click", function () { stop(); nextDividend(); });
  playButton.addEventListener("click", play);
  slider.addEventListener("input", function () { stop(); go(Number(slider.value), "replace"); });
  slider.addEventListener("change", function () { go(Number(slider.value), "push"); });
  document.addEventListener("keydown", function (event) {
    const tag = event.target && event.target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "ArrowRight") { stop(); go(current + 1, "replace"); }
    else if (event.key === "ArrowLeft") { stop(); go(current - 1, "replace"); }
    else if (event.key === "Home") { stop(); go(0, "push"); }
    else if (event.key === "End") { stop(); go(last, "push"); }
    else if (event.key === "d" || event.key === "D") { stop(); nextDividend(); }
    else if (event.key === "+" || event.key === "=") { zoom.zoomIn(); }
    else if (event.key === "-") { zoom.zoomOut(); }
    else if (event.key === " " && tag !== "BUTTON" && tag !== "A") { play(); }
    else return;
    event.preventDefault();
  });

  if (!follow(false)) show(0);
  root.dataset.ready = "true";
}

if (root) {
  Promise.all([getJSON(root.dataset.matchUrl), getJSON(root.dataset.boardUrl)])
    .then(function (loaded) {
      const match = loaded[0];
      if (!match.replay) throw new Error(match.replay_error || "the match has no replay");
      viewer(match, loaded[1]);
    })
    .catch(function (error) {
      byId("step-label").textContent = "";
      root.insertBefore(el("p", { class: "warn-text", "data-testid": "viewer-error" }, "The replay cannot be shown: " + error.message), root.firstChild);
      root.dataset.ready = "error";
    });
}
