// What the games' replay viewers share to say and to lay out a step (an ES module): who is
// who, a forfeit, the line of the game's end; facts, tables in their own box, company chips.
// Each game's words and panels (in its kit) import them.  Text from the data (bot names
// above all) is only written with textContent, through el().

import { el } from "./replay-core.js";

// -- words ---------------------------------------------------------------------------------

// who(id): a participant's name: a seat's bot as the replay names it, one of others (the
// game's participants that are not seats, {id: name}), else "seat N".
export function namer(replay, others) {
  const names = {};
  replay.seats.forEach(function (s) { names[String(s.seat)] = s.name; });
  Object.keys(others || {}).forEach(function (id) { names[id] = others[id]; });
  return function (id) { return names[String(id)] !== undefined ? names[String(id)] : "seat " + id; };
}

// The seats that forfeited, as strings (the host's match section of the replay).
export function forfeitedSeats(replay) {
  return ((replay.match && replay.match.forfeited_seats) || []).map(String);
}

// The line of a game_end event: each place with its amount (amount(n), e.g. "$n"), and
// who forfeited and so is placed last in the match result.  by: what follows "Game over
// (termination)" before the places (e.g. ", by cash").
export function gameOverLine(ev, who, forfeited, by, amount) {
  const order = Object.keys(ev.places).sort(function (a, b) { return ev.places[a] - ev.places[b]; });
  const line = "Game over (" + ev.termination + ")" + by + ": " +
    order.map(function (p) { return ev.places[p] + ". " + who(p) + " " + amount(ev.cash[p]); }).join(", ") + ".";
  return forfeited.length ? line + " " + forfeited.map(who).join(", ") + " forfeited and " + (forfeited.length > 1 ? "are" : "is") +
    " placed last in the match result." : line;
}

// The sum of a map's counts ({card: n}).
export function total(map) {
  return Object.keys(map).reduce(function (sum, k) { return sum + map[k]; }, 0);
}

// -- panels --------------------------------------------------------------------------------

// A labelled fact (a supply's count, a deck): value is text or a node.
export function fact(label, value, attrs) {
  const d = el("div", Object.assign({ class: "fact" }, attrs || {}));
  d.appendChild(el("span", { class: "fact-label" }, label));
  const v = el("span", { class: "fact-value" });
  if (value instanceof Node) v.appendChild(value); else v.textContent = String(value);
  d.appendChild(v);
  return d;
}

// A table inside a box that scrolls sideways on its own when the table is too wide.
export function boxed(table) {
  const box = el("div", { class: "table-box" });
  box.appendChild(table);
  return box;
}

// A table's head row of cells; numeric(i): the column i holds numbers (aligned right).
export function tableHead(table, cells, numeric) {
  const thead = el("thead"), tr = el("tr");
  cells.forEach(function (c, i) { tr.appendChild(el("th", numeric(i) ? { class: "num" } : null, c)); });
  thead.appendChild(tr);
  table.appendChild(thead);
}

// A company's chip: its code on its colour (count: a number after it, optional).
export function coChip(code, colour, attrs, count) {
  const span = el("span", Object.assign({ class: "co-chip" }, attrs || {}));
  span.style.setProperty("--co", colour);
  span.appendChild(el("span", { class: "co-code" }, code));
  if (count !== undefined) span.appendChild(el("span", { class: "co-count" }, count));
  return span;
}
