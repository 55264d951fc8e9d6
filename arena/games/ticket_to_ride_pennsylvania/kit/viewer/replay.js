// Ticket to Ride: Pennsylvania's replay viewer (an ES module served from the game's kit): the
// board, the panels and the words of this game; the controls, the address, the event list and
// the steps' states are the web app's (/static/replay-core.js).
//
// Every number on screen is the engine's: the view (/api/replay-view/MATCH) holds the game
// after each event as the engine had it; the final scores are the engine's scoring event.
// Text from the data (bot names above all) is only written with textContent.

import { boot, el, clear } from "../../replay-core.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const WIDTH = 1000, PAD = 40, CITY_R = 5.5, CAR_W = 7, GAP = 1.6, LABEL_PX = 11, MARK_R = 6;
const ZOOMS = [1, 1.5, 2, 3];

function byId(id) { return document.getElementById(id); }

function svgEl(tag, attrs, text) {
  const node = document.createElementNS(SVG_NS, tag);
  if (attrs) Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function polygon(x, y, r, degrees) {
  return degrees.map(function (d, i) {
    const a = d * Math.PI / 180;
    return (i ? "L" : "M") + (x + r * Math.cos(a)).toFixed(2) + " " + (y + r * Math.sin(a)).toFixed(2);
  }).join(" ") + " Z";
}

// The shape a seat's claimed routes carry (board.seats[i].shape), centred on x, y.
function shapePath(shape, x, y, r) {
  switch (shape) {
    case "square": { const s = r * 0.9; return "M" + (x - s) + " " + (y - s) + " h" + 2 * s + " v" + 2 * s + " h" + -2 * s + " Z"; }
    case "triangle-up": return polygon(x, y + r * 0.2, r * 1.35, [-90, 30, 150]);
    case "diamond": return polygon(x, y, r * 1.3, [-90, 0, 90, 180]);
    case "star": {
      const pts = [];
      for (let i = 0; i < 10; i++) pts.push(-90 + i * 36);
      return pts.map(function (d, i) {
        const a = d * Math.PI / 180, rr = i % 2 ? r * 0.6 : r * 1.4;
        return (i ? "L" : "M") + (x + rr * Math.cos(a)).toFixed(2) + " " + (y + rr * Math.sin(a)).toFixed(2);
      }).join(" ") + " Z";
    }
    default: return "M" + (x - r) + " " + y + " a" + r + " " + r + " 0 1 0 " + 2 * r + " 0 a" + r + " " + r + " 0 1 0 " + -2 * r + " 0 Z";
  }
}

function seatMark(style, size) {
  const icon = svgEl("svg", { width: size, height: size, viewBox: "0 0 16 16", class: "seat-mark", "aria-hidden": "true" });
  const path = svgEl("path", { d: shapePath(style.shape, 8, 8, 5.2), stroke: "#111", "stroke-width": 0.9 });
  path.style.fill = style.colour;
  icon.appendChild(path);
  icon.appendChild(svgEl("text", { x: 8, y: 8.5, "font-size": 7, "font-weight": 800, fill: "#fff", "text-anchor": "middle", "dominant-baseline": "central" }, style.letter));
  return icon;
}

function dark(hex) {
  const n = parseInt(hex.slice(1), 16);
  return ((n >> 16) * 299 + ((n >> 8) & 255) * 587 + (n & 255) * 114) / 1000 < 120;
}

// -- the board ---------------------------------------------------------------------------------

function drawBoard(svg, board, who) {
  const lons = board.cities.map(function (c) { return c.lon; });
  const lats = board.cities.map(function (c) { return c.lat; });
  const minLon = Math.min.apply(null, lons), maxLon = Math.max.apply(null, lons);
  const minLat = Math.min.apply(null, lats), maxLat = Math.max.apply(null, lats);
  const k = Math.cos(((minLat + maxLat) / 2) * Math.PI / 180);
  const scale = (WIDTH - 2 * PAD) / ((maxLon - minLon) * k);
  const height = Math.round((maxLat - minLat) * scale + 2 * PAD);
  svg.setAttribute("viewBox", "0 0 " + WIDTH + " " + height);
  const at = {}, names = {};
  board.cities.forEach(function (c) {
    at[c.id] = [PAD + (c.lon - minLon) * k * scale, PAD + (maxLat - c.lat) * scale];
    names[c.id] = c.name;
  });
  const routesLayer = svgEl("g", { class: "routes" });
  const marksLayer = svgEl("g", { class: "owner-marks" });
  const citiesLayer = svgEl("g", { class: "cities" });
  const labels = svgEl("g", { class: "city-labels" });
  const byId = {};
  board.routes.forEach(function (r) { byId[r.id] = r; });
  const nodes = {};
  board.routes.forEach(function (r) {
    const a = at[r.a], b = at[r.b];
    const dx = b[0] - a[0], dy = b[1] - a[1];
    const len = Math.hypot(dx, dy);
    const angle = Math.atan2(dy, dx) * 180 / Math.PI;
    // A double route's two tracks run side by side: the first of the pair above, its partner below.
    const offset = r.double_with === null ? 0 : (r.index < byId[r.double_with].index ? -CAR_W * 0.62 : CAR_W * 0.62);
    const g = svgEl("g", { class: "route" + (r.ferry ? " ferry" : ""), "data-route": r.id, "data-colour": r.colour,
      "data-length": r.length, transform: "translate(" + a[0].toFixed(1) + " " + a[1].toFixed(1) + ") rotate(" + angle.toFixed(2) + ")" });
    const free = len - 2 * (CITY_R + 1.5);
    const car = Math.max(2, (free - GAP * (r.length - 1)) / r.length);
    const cars = [];
    for (let i = 0; i < r.length; i++) {
      const x = CITY_R + 1.5 + i * (car + GAP);
      const rect = svgEl("rect", { class: "car", x: x.toFixed(2), y: (offset - CAR_W / 2).toFixed(2), width: car.toFixed(2), height: CAR_W, rx: 1 });
      rect.style.fill = board.colours[r.colour] || "#aaa";
      g.appendChild(rect);
      cars.push(rect);
    }
    const mid = CITY_R + 1.5 + free / 2;
    const flip = Math.abs(angle) > 90;  // keep the number upright
    const label = svgEl("text", { class: "length" + (dark(board.colours[r.colour] || "#aaa") ? " on-dark" : ""), x: mid.toFixed(2), y: offset.toFixed(2),
      transform: flip ? "rotate(180 " + mid.toFixed(2) + " " + offset.toFixed(2) + ")" : "" }, r.length);
    g.appendChild(label);
    const title = svgEl("title", null, "");
    g.appendChild(title);
    routesLayer.appendChild(g);
    // The owner's mark sits at the middle of the route, unrotated.
    const rad = angle * Math.PI / 180;
    const mx = a[0] + Math.cos(rad) * mid - Math.sin(rad) * offset, my = a[1] + Math.sin(rad) * mid + Math.cos(rad) * offset;
    nodes[r.id] = { g: g, cars: cars, label: label, title: title, x: mx, y: my, mark: null, owner: undefined };
  });
  const items = [];
  board.cities.forEach(function (c) {
    const p = at[c.id];
    const g = svgEl("g", { class: "city", "data-city": c.id });
    g.appendChild(svgEl("circle", { cx: p[0].toFixed(1), cy: p[1].toFixed(1), r: CITY_R }));
    g.appendChild(svgEl("title", null, c.name));
    citiesLayer.appendChild(g);
    const label = svgEl("text", { class: "city-label", "data-city": c.id }, c.name);
    labels.appendChild(label);
    items.push({ node: label, x: p[0], y: p[1], routes: board.routes.filter(function (r) { return r.a === c.id || r.b === c.id; }).length });
  });
  items.sort(function (a, b) { return b.routes - a.routes; });  // the busiest cities are named first
  svg.appendChild(routesLayer);
  svg.appendChild(citiesLayer);
  svg.appendChild(marksLayer);
  svg.appendChild(labels);

  function routeText(r, owner) {
    return names[r.a] + "–" + names[r.b] + " · " + r.length + " · " + r.colour + (r.ferry ? " · ferry (" + r.locomotives + " locomotive" + (r.locomotives > 1 ? "s" : "") + ")" : "") +
      (r.double_with ? " · double" : "") + (r.companies.length ? " · shares: " + r.companies.join(", ") : "") +
      (owner === null ? " · open" : " · claimed by " + who(owner));
  }

  // Labels in screen pixels, re-laid when the board's width changes: each city's name to its
  // right, else to its left, else above; a name that would cover another is left out (the
  // city's tooltip still names it; zoom in to see it).
  function layoutLabels() {
    const shown = svg.getBoundingClientRect().width;
    if (!shown) return;
    const size = Math.min(40, Math.max(4, LABEL_PX * WIDTH / shown));
    labels.setAttribute("font-size", size.toFixed(2));
    labels.setAttribute("stroke-width", (size * 0.28).toFixed(2));
    const placed = [];
    const hit = function (a, b) { return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height; };
    items.forEach(function (item) {
      const tries = [[item.x + CITY_R + 2, item.y + size * 0.35, "start"], [item.x - CITY_R - 2, item.y + size * 0.35, "end"],
        [item.x, item.y - CITY_R - 3, "middle"], [item.x, item.y + CITY_R + size, "middle"]];
      item.node.classList.remove("unplaced");
      let ok = null;
      for (let i = 0; i < tries.length && ok === null; i++) {
        item.node.setAttribute("x", tries[i][0].toFixed(1));
        item.node.setAttribute("y", tries[i][1].toFixed(1));
        item.node.setAttribute("text-anchor", tries[i][2]);
        const box = item.node.getBBox();
        const inside = box.x >= 0 && box.x + box.width <= WIDTH && box.y >= 0 && box.y + box.height <= height;
        if (inside && !placed.some(function (p) { return hit(p, box); })) ok = box;
      }
      if (ok) placed.push(ok); else item.node.classList.add("unplaced");
    });
    svg.dataset.labelsShown = String(placed.length);
  }

  function render(state) {
    board.routes.forEach(function (r, i) {
      const n = nodes[r.id];
      const owner = state.owner[i];
      n.g.classList.toggle("last-claim", state.last_route === r.id);
      if (n.owner === owner) return;
      n.owner = owner;
      const style = owner === null ? null : board.seats[owner];
      n.cars.forEach(function (car) { car.style.fill = style ? style.colour : (board.colours[r.colour] || "#aaa"); });
      n.g.classList.toggle("claimed", owner !== null);
      if (owner === null) n.g.removeAttribute("data-owner"); else n.g.setAttribute("data-owner", owner);
      n.label.style.display = owner === null ? "" : "none";
      n.title.textContent = routeText(r, owner);
      if (n.mark) { n.mark.remove(); n.mark = null; }
      if (style) {
        const mark = svgEl("g", { class: "owner-mark", "data-route": r.id, "data-owner": owner, "data-shape": style.shape, "data-letter": style.letter });
        const path = svgEl("path", { d: shapePath(style.shape, n.x, n.y, MARK_R) });
        path.style.fill = style.colour;
        mark.appendChild(path);
        mark.appendChild(svgEl("text", { x: n.x.toFixed(1), y: (n.y + 0.4).toFixed(1) }, style.letter));
        mark.appendChild(svgEl("title", null, routeText(r, owner)));
        marksLayer.appendChild(mark);
        n.mark = mark;
      }
    });
  }
  return { render: render, layoutLabels: layoutLabels };
}

function zoomable(box, svg, buttons, onChange) {
  let level = 0;
  function set(next) {
    level = Math.max(0, Math.min(ZOOMS.length - 1, next));
    svg.style.width = ZOOMS[level] * 100 + "%";
    box.dataset.zoom = String(ZOOMS[level]);
    buttons.out.disabled = level === 0;
    buttons.fit.disabled = level === 0;
    buttons.in.disabled = level === ZOOMS.length - 1;
    onChange();
  }
  buttons.in.addEventListener("click", function () { set(level + 1); });
  buttons.out.addEventListener("click", function () { set(level - 1); });
  buttons.fit.addEventListener("click", function () { set(0); });
  set(0);
  return { zoomIn: function () { set(level + 1); }, zoomOut: function () { set(level - 1); } };
}

// -- the viewer --------------------------------------------------------------------------------

function viewer(match, view, board) {
  const replay = match.replay;
  const events = replay.events;
  const info = replay.match || {};
  const names = {};
  replay.seats.forEach(function (s) { names[String(s.seat)] = s.name; });
  names.neutral = "neutral shareholder";
  const who = function (id) { return names[String(id)] !== undefined ? names[String(id)] : "seat " + id; };
  const routes = {}, cities = {}, tickets = {};
  board.routes.forEach(function (r) { routes[r.id] = r; });
  board.cities.forEach(function (c) { cities[c.id] = c.name; });
  board.tickets.forEach(function (t) { tickets[t.id] = t; });
  const place = function (p) { return cities[p] || p.replace(/_/g, " ").replace(/\b\w/g, function (m) { return m.toUpperCase(); }); };
  const routeName = function (id) { const r = routes[id]; return r ? cities[r.a] + "–" + cities[r.b] : id; };
  const ticketName = function (id) { const t = tickets[id]; return t ? id + " " + place(t.a) + "–" + place(t.b) + " (" + t.points + ")" : id; };
  const list = function (ids) { return ids.length ? ids.join(", ") : "none"; };
  const scoringIndex = events.findIndex(function (ev) { return ev.type === "scoring"; });
  const forfeited = (info.forfeited_seats || []).map(String);

  function describe(ev) {
    switch (ev.type) {
      case "setup": return "Set-up: " + ev.players + " players (" + ev.variant + ").";
      case "shuffle": return ev.pile === "tickets" ? "The " + ev.order.length + " destination tickets are shuffled." : "The " + ev.order.length + " train cards are shuffled.";
      case "deal": return who(ev.seat) + " is dealt " + ev.cards.join(", ") + ".";
      case "row": return "Face-up cards: " + ev.row.map(function (c) { return c || "empty"; }).join(", ") + ".";
      case "deal_tickets": return who(ev.seat) + " is dealt the tickets " + ev.tickets.join(", ") + ".";
      case "initial_tickets": return "Tickets kept: " + Object.keys(ev.kept).map(function (s) { return who(s) + " " + ev.kept[s].length + " (" + list(ev.kept[s]) + ")"; }).join("; ") + ".";
      case "turn": return "Turn " + ev.turn + ": " + who(ev.seat) + ".";
      case "claim": return who(ev.seat) + " claims " + routeName(ev.route) + " (" + routes[ev.route].length + ", " + routes[ev.route].colour + ") with " + ev.cards.join(", ") + ": " + ev.points + " points, " + ev.trains_left + " trains left.";
      case "share": return ev.company ? who(ev.seat) + " takes share " + ev.company + " #" + ev.number + "." : who(ev.seat) + " takes no share.";
      case "neutral_share": return who(ev.seat) + " gives the neutral shareholder share " + ev.company + " #" + ev.number + ".";
      case "take": return who(ev.seat) + " takes the face-up " + ev.card + ".";
      case "refill": return "Face-up slot " + (ev.slot + 1) + " is refilled with " + (ev.card || "nothing") + ".";
      case "blind": return who(ev.seat) + " draws a card from the deck.";
      case "refresh": return "Three locomotives face up: the row (" + ev.discarded.join(", ") + ") is discarded and laid again: " + ev.row.map(function (c) { return c || "empty"; }).join(", ") + ".";
      case "reshuffle": return "The discards are shuffled into a new deck of " + ev.order.length + " cards.";
      case "no_second_card": return who(ev.seat) + " cannot draw a second card.";
      case "draw_tickets": return who(ev.seat) + " draws the tickets " + ev.tickets.join(", ") + ".";
      case "keep_tickets": return who(ev.seat) + " keeps " + list(ev.kept) + " and returns " + list(ev.returned) + ".";
      case "pass": return who(ev.seat) + " can do nothing and passes.";
      case "final_round": return who(ev.trigger_seat) + " has " + ev.trains + " trains left: the final round begins.";
      case "deadlock": return "Nobody can act (" + ev.passes + " passes in a row): the game ends.";
      case "neutral_reveal": return "The neutral shareholder's shares are shuffled; " + ev.revealed + " of " + ev.order.length + " are revealed and count.";
      case "scoring": return "Final scoring: " + ev.seats.map(function (s) { return who(s.seat) + " " + s.total; }).join(", ") + ".";
      case "game_end": {
        const order = Object.keys(ev.places).sort(function (a, b) { return ev.places[a] - ev.places[b]; });
        const line = "Game over (" + ev.termination + "): " + order.map(function (p) { return ev.places[p] + ". " + who(p) + " " + ev.cash[p] + " points"; }).join(", ") + ".";
        return forfeited.length ? line + " " + forfeited.map(who).join(", ") + " forfeited and " + (forfeited.length > 1 ? "are" : "is") + " placed last in the match result." : line;
      }
      default: return ev.type;
    }
  }

  // -- the board and its zoom -------------------------------------------------------------------
  const svg = byId("board");
  const drawn = drawBoard(svg, board, who);
  const zoom = zoomable(byId("board-scroll"), svg, { in: byId("zoom-in"), out: byId("zoom-out"), fit: byId("zoom-fit") },
    function () { drawn.layoutLabels(); byId("zoom-label").textContent = byId("board-scroll").dataset.zoom + "×"; });
  let resizing = null;
  window.addEventListener("resize", function () { clearTimeout(resizing); resizing = setTimeout(drawn.layoutLabels, 150); });
  const legend = byId("legend");
  replay.seats.forEach(function (s) {
    const item = el("span", { class: "legend-item legend-seat", "data-seat": s.seat });
    item.appendChild(seatMark(board.seats[s.seat], 15));
    item.appendChild(el("span", { class: "bot-name" }, who(s.seat)));
    legend.appendChild(item);
  });
  legend.appendChild(el("span", { class: "legend-item muted" }, "open routes: cars in the route's colour, the number its length; claimed: the seat's colour and mark"));

  // -- panels -----------------------------------------------------------------------------------
  function cardChip(name) {
    const chip = el("span", { class: "card-chip", "data-card": name || "" });
    const swatch = el("span", { class: "swatch" });
    swatch.style.background = name ? board.colours[name] || "#ccc" : "transparent";
    chip.appendChild(swatch);
    chip.appendChild(document.createTextNode(name || "empty"));
    return chip;
  }
  function head(table, cells) {
    const thead = el("thead"), tr = el("tr");
    cells.forEach(function (c, i) { tr.appendChild(el("th", i > 1 ? { class: "num" } : null, c)); });
    thead.appendChild(tr);
    table.appendChild(thead);
  }
  function shareText(shares) {
    return Object.keys(shares).map(function (c) { return c + " " + shares[c].map(function (n) { return "#" + n; }).join(" "); }).join(", ");
  }

  function seats(table, state) {
    clear(table);
    head(table, ["Seat", "Bot", "Trains", "Route pts", "Cards", "Tickets"]);
    const body = el("tbody");
    state.players.forEach(function (p, seat) {
      const tr = el("tr", { "data-participant": seat });
      if (seat === state.seat) tr.className = "to-move";
      const s = el("td");
      s.appendChild(seatMark(board.seats[seat], 15));
      s.appendChild(document.createTextNode(board.seats[seat].letter));
      tr.appendChild(s);
      const bot = el("td", { class: "seat-bot" });
      bot.appendChild(el("span", { class: "bot-name" }, who(seat)));
      const shares = shareText(p.shares);
      bot.appendChild(el("div", { class: "hand", title: p.tickets.map(ticketName).join("; ") }, "shares: " + (shares || "none")));
      if (p.offer.length) bot.appendChild(el("div", { class: "ticket-list" }, "choosing from: " + p.offer.join(", ")));
      tr.appendChild(bot);
      tr.appendChild(el("td", { class: "num", "data-field": "trains" }, p.trains));
      tr.appendChild(el("td", { class: "num", "data-field": "route-points" }, p.route_points));
      const cards = Object.keys(p.hand).reduce(function (n, k) { return n + p.hand[k]; }, 0);
      tr.appendChild(el("td", { class: "num", "data-field": "cards", title: Object.keys(p.hand).map(function (k) { return p.hand[k] + " " + k; }).join(", ") }, cards));
      tr.appendChild(el("td", { class: "num", "data-field": "tickets", title: p.tickets.map(ticketName).join("; ") }, p.tickets.length));
      body.appendChild(tr);
    });
    if (state.neutral) {
      const tr = el("tr", { class: "reference", "data-participant": "neutral" });
      tr.appendChild(el("td", null, "–"));
      const bot = el("td", { class: "seat-bot" });
      bot.appendChild(el("span", { class: "bot-name" }, who("neutral")));
      bot.appendChild(el("div", { class: "hand" }, "shares: " + (shareText(state.neutral.shares) || "none")));
      tr.appendChild(bot);
      ["", "", "", ""].forEach(function () { tr.appendChild(el("td")); });
      body.appendChild(tr);
    }
    table.appendChild(body);
  }

  function fact(label, value, attrs) {
    const d = el("div", Object.assign({ class: "fact" }, attrs || {}));
    d.appendChild(el("span", { class: "fact-label" }, label));
    const v = el("span", { class: "fact-value" });
    if (value instanceof Node) v.appendChild(value); else v.textContent = String(value);
    d.appendChild(v);
    return d;
  }

  function supply(box, state) {
    clear(box);
    const row = el("span", { class: "chips", "data-testid": "row" });
    state.row.forEach(function (c) { row.appendChild(cardChip(c)); });
    box.appendChild(fact("Face up", row));
    box.appendChild(fact("Train deck", state.deck + " cards", { "data-count": "deck" }));
    box.appendChild(fact("Discards", state.discard + " cards", { "data-count": "discard" }));
    box.appendChild(fact("Ticket deck", state.ticket_deck + " tickets", { "data-count": "ticket-deck" }));
    if (state.final_round) box.appendChild(fact("Final round", "started by " + who(state.final_round.trigger_seat) + "; " + state.final_round.turns_left + " turns left"));
  }

  function companies(table, state) {
    clear(table);
    head(table, ["Company", "Holders", "Taken", "Points"]);
    const body = el("tbody");
    board.companies.forEach(function (c) {
      const tr = el("tr", { "data-company": c.code });
      const name = el("td", { title: c.name });
      const chip = el("span", { class: "co-chip" });
      chip.style.setProperty("--co", c.colour);
      chip.appendChild(el("span", { class: "co-code" }, c.code));
      name.appendChild(chip);
      tr.appendChild(name);
      const holders = [];
      state.players.forEach(function (p, seat) { if (p.shares[c.code]) holders.push(board.seats[seat].letter + " " + p.shares[c.code].length); });
      if (state.neutral && state.neutral.shares[c.code]) holders.push("neutral " + state.neutral.shares[c.code].length);
      tr.appendChild(el("td", null, holders.join(", ") || "–"));
      tr.appendChild(el("td", { class: "num" }, state.taken[c.code] + " / " + c.shares));
      tr.appendChild(el("td", { class: "num" }, c.points.join("/")));
      body.appendChild(tr);
    });
    table.appendChild(body);
  }

  // The final scores as the engine's scoring event says; places as the match's result says
  // (a seat that forfeits is placed last whatever its points).
  function final(panel, step) {
    clear(panel);
    panel.hidden = scoringIndex < 0 || step < scoringIndex;
    if (panel.hidden) return;
    const scoring = events[scoringIndex];
    const places = info.places || replay.result.places;
    panel.appendChild(el("h3", null, "Final scores · " + (info.termination || replay.result.termination)));
    const table = el("table", { class: "data compact final-scores" });
    head(table, ["Place", "Seat", "Routes", "Tickets", "Done", "Globetrotter", "Shares", "Total"]);
    const body = el("tbody");
    scoring.seats.slice().sort(function (a, b) { return places[String(a.seat)] - places[String(b.seat)] || a.seat - b.seat; }).forEach(function (s) {
      const tr = el("tr", { "data-participant": s.seat });
      tr.appendChild(el("td", { class: "place" }, places[String(s.seat)]));
      const name = el("td");
      name.appendChild(seatMark(board.seats[s.seat], 14));
      name.appendChild(el("span", { class: "bot-name" }, who(s.seat)));
      if (forfeited.indexOf(String(s.seat)) >= 0) name.appendChild(el("span", { class: "status status-forfeit" }, "forfeited"));
      tr.appendChild(name);
      const done = s.ticket_results.filter(function (t) { return t.completed; }).length;
      [["routes", s.routes], ["tickets", s.tickets], ["completed", done + " / " + s.ticket_results.length],
        ["globetrotter", s.globetrotter], ["shares", s.shares], ["total", s.total]].forEach(function (cell) {
        const td = el("td", { class: "num " + cell[0], "data-field": cell[0] }, cell[1]);
        if (cell[0] === "completed") td.title = s.ticket_results.map(function (t) { return ticketName(t.ticket) + (t.completed ? " ✓" : " ✗"); }).join("; ");
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    table.appendChild(body);
    const box = el("div", { class: "table-box" });
    box.appendChild(table);
    panel.appendChild(box);
    panel.appendChild(el("p", { class: "caption" }, "Routes: the points of the claimed routes; tickets: completed add, others subtract; " +
      "Globetrotter: the most completed tickets; shares: each company's points by majority (docs/rules-ticket-to-ride-pennsylvania.md)."));
  }

  const marks = [];
  events.forEach(function (ev, i) {
    if (ev.type === "final_round") marks.push({ step: i, kind: "milestone", title: "final round (step " + (i + 1) + ")" });
    if (ev.type === "scoring") marks.push({ step: i, kind: "milestone", title: "final scoring (step " + (i + 1) + ")" });
  });

  return {
    who: who,
    describe: describe,
    turnHead: function (ev) { return ev.type === "turn" ? "Turn " + ev.turn + " · " + who(ev.seat) : null; },
    label: function (step, state) {
      if (!state) return "the stored events only";
      const claimed = state.owner.filter(function (o) { return o !== null; }).length;
      return "turn " + state.turn + " · " + claimed + " routes claimed";
    },
    marks: marks,
    jump: { id: "btn-claim", label: "Next claim", title: "next claimed route (C)", key: "c", is: function (ev) { return ev.type === "claim"; } },
    onKey: function (key) {
      if (key === "+" || key === "=") { zoom.zoomIn(); return true; }
      if (key === "-") { zoom.zoomOut(); return true; }
      return false;
    },
    render: function (step, state) {
      final(byId("final-panel"), step);
      if (!state) return;  // no view: the board and the panels stay as they were drawn
      drawn.render(state);
      seats(byId("seats-table"), state);
      supply(byId("supply"), state);
      companies(byId("companies-table"), state);
    },
  };
}

boot(viewer);
