// The replay viewer's game-agnostic part (an ES module): a game's viewer, served from its
// kit (/static/games/GAME/replay.js), calls start() with what only it knows: how to draw a
// step, how to say an event, which events are turns and marks.
//
// The viewer loads the match (with its stored replay) and the replay's view from the JSON
// endpoints.  The view holds, for each event, the game as the engine had it after that
// event (computed on the server with the game's engine: docs/web.md), sent as the changes
// from the step before; this file only puts those changes together (states()), so that
// no rule of any game is written a second time here.
//
// The step is in the address (#step=N, N as the label counts, from 1; #decision=N for a
// bot's decision N, as faults and debug lines number them): reload, back and forward keep
// it.  Jumps (event list, marks, next jump, first, last, a released slider) add a history
// entry; single steps and play replace the current one.

const BASE_MS = 300;  // one step at 1x speed

export function el(tag, attrs, text) {
  const node = document.createElement(tag);
  if (attrs) Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

export function byId(id) {
  return document.getElementById(id);
}

export function getJSON(url) {
  return fetch(url, { headers: { Accept: "application/json" } }).then(function (response) {
    if (!response.ok) {
      return response.json().catch(function () { return {}; }).then(function (body) {
        throw new Error(body.error || url + ": HTTP " + response.status);
      });
    }
    return response.json();
  });
}

// The state after each event: frame 0 is the whole state; each later frame holds the keys
// that changed, a list of the same length as {"@": {index: item}} of its changed items.
export function states(frames) {
  const out = [];
  let state = null;
  frames.forEach(function (frame) {
    state = state === null ? structuredClone(frame) : Object.assign({}, state);
    if (out.length) {
      Object.keys(frame).forEach(function (key) {
        const value = frame[key];
        if (value && typeof value === "object" && !Array.isArray(value) && value["@"] && Array.isArray(state[key])) {
          const list = state[key].slice();
          Object.keys(value["@"]).forEach(function (i) { list[Number(i)] = value["@"][i]; });
          state[key] = list;
        } else {
          state[key] = value;
        }
      });
    }
    out.push(state);
  });
  return out;
}

// "#step=12" -> {step: 11}; "#decision=7" -> {decision: 7}; anything else -> null.
function parseHash(hash) {
  const m = /^#(step|decision)=(\d{1,9})$/.exec(hash || "");
  if (!m) return null;
  return m[1] === "step" ? { step: Number(m[2]) - 1 } : { decision: Number(m[2]) };
}

// Slider marks for start(): pick(ev) -> [kind, what] for an event to mark (its title says
// what and the step), or null.
export function eventMarks(events, pick) {
  const marks = [];
  events.forEach(function (ev, i) {
    const m = pick(ev);
    if (m) marks.push({ step: i, kind: m[0], title: m[1] + " (step " + (i + 1) + ")" });
  });
  return marks;
}

// game: {
//   who(id) -> a participant's name;  describe(ev) -> one line about an event;
//   turnHead(ev) (optional) -> the heading of the turn this event starts, or null (the event
//     list groups by turn); by default an event {type: "turn", turn, seat} starts "Turn N · name";
//   label(step, state) -> what follows "Step N / M · " in the step label (not called when
//     the replay has no view: the label then says "the stored events only");
//   render(step, state, ev) -> draw the board and panels for a step
//     (state is null when the replay has no view: see boot());
//   marks -> [{step, kind, title}] under the slider (faults are added here; see eventMarks());
//   jump -> {id, label, title, key, is(ev)}: a button (and key) to the next such event, or null;
//   onKey(key) -> true when the game used a key (optional);
//   bind(controls) (optional): called once with {go(step, how)} before the first step is shown
// }
export function start(root, match, shown, game) {
  const replay = match.replay;
  const events = replay.events;
  const last = events.length - 1;
  const spans = match.decision_events;  // [first, end) of the events of each decision, or null
  const who = game.who;
  const turnHead = game.turnHead || function (ev) { return ev.type === "turn" ? "Turn " + ev.turn + " · " + who(ev.seat) : null; };

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

  // -- the jump button ---------------------------------------------------------------------------
  const jump = game.jump || null;
  if (jump) {
    const button = el("button", { type: "button", id: jump.id, title: jump.title }, jump.label);
    byId("btn-last").after(button);
  }

  // -- slider marks: the game's, and faults ------------------------------------------------------
  const slider = byId("step-slider");
  slider.max = String(last);
  const marks = byId("slider-marks");
  function mark(step, kind, title, href) {
    const a = el("a", { class: "mark mark-" + kind, href: href, title: title, "aria-label": title, "data-step": step });
    a.style.left = (last ? step / last * 100 : 0) + "%";
    marks.appendChild(a);
  }
  (game.marks || []).forEach(function (m) { mark(m.step, m.kind, m.title, "#step=" + (m.step + 1)); });
  Object.keys(faults).forEach(function (n) {
    const step = decisionStep(Number(n));
    if (step === null) return;
    mark(step, "fault", "fault at decision " + n + ": " + faults[n].map(function (f) { return who(f.seat) + " " + f.reason; }).join(", "),
      "#decision=" + n);
  });

  // -- the event list, grouped by turn ---------------------------------------------------------
  const logBox = byId("event-box");
  const log = byId("event-log");
  const items = [];
  let group = null;
  events.forEach(function (ev, i) {
    const head = turnHead(ev);
    if (group === null || head !== null) {
      group = el("li", { class: "turn-group" });
      group.appendChild(el("div", { class: "turn-head" }, head !== null ? head : "Set-up"));
      group.appendChild(el("ol", { class: "turn-events" }));
      log.appendChild(group);
    }
    const li = el("li", { "data-step": i });
    const a = el("a", { href: "#step=" + (i + 1), class: "ev-link" });
    a.appendChild(el("span", { class: "ev-num" }, i + 1));
    a.appendChild(el("span", { class: "ev-type" }, ev.type));
    a.appendChild(el("span", { class: "ev-text" }, game.describe(ev)));
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

  function showDecision(n) {
    clear(note);
    note.hidden = n === null;
    if (n === null) return;
    const action = replay.actions[n];
    if (!action || decisionStep(n) === null) {
      note.textContent = "Decision " + n + " cannot be shown: " + (action ? "this replay cannot be re-played to place it." : "the replay has " + replay.actions.length + " decisions (0–" + (replay.actions.length - 1) + ").");
      return;
    }
    note.appendChild(document.createTextNode("Decision " + n + " · " + who(action.seat) + " (seat " + action.seat + ") played "));
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
    const state = shown ? shown[step] : null;  // null: the replay has no view (the events alone)
    const ev = events[step];
    const moved = step !== current;
    const previous = current;
    current = step;
    slider.value = String(step);
    root.dataset.step = String(step);
    root.dataset.eventType = ev.type;
    label.textContent = "Step " + (step + 1) + " / " + events.length + " · " + (state ? game.label(step, state) : "the stored events only");
    text.textContent = game.describe(ev);
    text.className = "event-text ev-" + ev.type;
    game.render(step, state, ev);
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

  function nextJump() {
    for (let i = current + 1; i <= last; i++) {
      if (jump.is(events[i])) { go(i, "push"); return; }
    }
    go(last, "push");
  }

  byId("btn-first").addEventListener("click", function () { stop(); go(0, "push"); });
  byId("btn-prev").addEventListener("click", function () { stop(); go(current - 1, "replace"); });
  byId("btn-next").addEventListener("click", function () { stop(); go(current + 1, "replace"); });
  byId("btn-last").addEventListener("click", function () { stop(); go(last, "push"); });
  if (jump) byId(jump.id).addEventListener("click", function () { stop(); nextJump(); });
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
    else if (jump && (event.key === jump.key || event.key === jump.key.toUpperCase())) { stop(); nextJump(); }
    else if (game.onKey && game.onKey(event.key)) { /* the game's (zoom) */ }
    else if (event.key === " " && tag !== "BUTTON" && tag !== "A") { play(); }
    else return;
    event.preventDefault();
  });

  if (game.bind) game.bind({ go: go });
  if (!follow(false)) show(0);
  root.dataset.ready = "true";
}

// Load the match, its view and the board, then hand them to the game's viewer
// (make(match, view, board, shown) returns the game object of start(); shown[i] is the
// state after event i).  A replay the engine cannot re-play (recorded under older rules,
// or altered) has no view: shown is null, the viewer says why and still steps through the
// stored events (the game's render() then gets a null state).  A failure to load is said
// in the viewer's place.
export function boot(make) {
  const root = byId("replay");
  if (!root) return;
  Promise.all([getJSON(root.dataset.matchUrl), getJSON(root.dataset.viewUrl), getJSON(root.dataset.boardUrl)])
    .then(function (loaded) {
      const match = loaded[0];
      if (!match.replay) throw new Error(match.replay_error || "the match has no replay");
      const view = loaded[1];
      const board = loaded[2];
      if (match.replay.board && board.sha256 && match.replay.board.sha256 !== board.sha256) {
        root.insertBefore(el("p", { class: "warn-text" }, "This replay was played on board " + match.replay.board.name + ", not on the board drawn here (" + board.name + ")."), root.firstChild);
      }
      const shown = view.frames ? states(view.frames) : null;
      if (!shown) {
        root.insertBefore(el("p", { class: "warn-text", "data-testid": "viewer-warning" }, "The board and the panels cannot show this replay: " +
          (view.error || "it has no view") + ". The stored events are listed and described as recorded."), root.firstChild);
      }
      start(root, match, shown, make(match, view, board, shown));
    })
    .catch(function (error) {
      byId("step-label").textContent = "";
      root.insertBefore(el("p", { class: "warn-text", "data-testid": "viewer-error" }, "The replay cannot be shown: " + error.message), root.firstChild);
      root.dataset.ready = "error";
      console.warn(error);
    });
}
