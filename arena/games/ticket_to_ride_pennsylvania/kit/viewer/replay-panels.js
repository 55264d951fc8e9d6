// The panels of Ticket to Ride: Pennsylvania's replay viewer: the seats, the cards and tickets,
// the shares, and the final scores (the engine's scoring event, in the order of the match's
// result).  Text from the data (bot names above all) is only written with textContent.

import { el, clear } from "../../replay-core.js";
import { boxed, coChip, fact, tableHead, total } from "../../replay-parts.js";
import { seatMark } from "./replay-board.js";

export function makePanels(replay, board, words) {
  const events = replay.events;
  const who = words.who, ticketName = words.ticketName, forfeited = words.forfeited, info = words.info;
  const scoringIndex = words.scoringIndex;

  function cardChip(name) {
    const chip = el("span", { class: "card-chip", "data-card": name || "" });
    const swatch = el("span", { class: "swatch" });
    swatch.style.background = name ? board.colours[name] || "#ccc" : "transparent";
    chip.appendChild(swatch);
    chip.appendChild(document.createTextNode(name || "empty"));
    return chip;
  }
  function head(table, cells) {
    tableHead(table, cells, function (i) { return i > 1; });
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
      tr.appendChild(el("td", { class: "num", "data-field": "cards", title: Object.keys(p.hand).map(function (k) { return p.hand[k] + " " + k; }).join(", ") }, total(p.hand)));
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
      name.appendChild(coChip(c.code, c.colour));
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
    panel.appendChild(boxed(table));
    panel.appendChild(el("p", { class: "caption" }, "Routes: the points of the claimed routes; tickets: completed add, others subtract; " +
      "Globetrotter: the most completed tickets; shares: each company's points by majority (docs/rules-ticket-to-ride-pennsylvania.md)."));
  }

  return { seats: seats, supply: supply, companies: companies, final: final };
}
