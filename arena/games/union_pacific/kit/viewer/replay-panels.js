// The panels beside and below the board: seats, the supply, the companies, the payouts of
// a dividend and the final result, drawn from a step's state (the engine's, through the
// view).  Text from the data (bot names above all) is only ever written with textContent /
// createElement, never parsed as HTML.

import { el, clear } from "../../replay-core.js";
import { boxed, coChip, fact, forfeitedSeats, tableHead, total } from "../../replay-parts.js";
import { lineSample } from "../../replay-svg.js";
import { trainIcon } from "./replay-board.js";

export function makePanels(replay, board, words) {
  const who = words.who, shares = words.shares;
  const colours = {}, companyNames = {}, companies = {};
  board.companies.forEach(function (c) { colours[c.code] = c.colour; companyNames[c.code] = c.name; companies[c.code] = c; });
  colours.UP = board.union_pacific.colour;
  companyNames.UP = "Union Pacific";
  const codes = board.companies.map(function (c) { return c.code; });
  const match = replay.match || {};
  const forfeited = forfeitedSeats(replay);

  function chip(code, count) {
    return coChip(code, colours[code] || "#777", { title: companyNames[code] || code, "data-company": code }, count);
  }

  function chips(map) {
    const box = el("span", { class: "chips" });
    codes.concat(["UP"]).forEach(function (c) { if (map[c]) box.appendChild(chip(c, map[c])); });
    if (!box.childNodes.length) box.appendChild(el("span", { class: "muted" }, "–"));
    return box;
  }

  function legend(node) {
    Object.keys(board.track_styles).forEach(function (type) {
      const item = el("span", { class: "legend-item" });
      const style = board.track_styles[type];
      item.appendChild(lineSample(30, Object.assign({ stroke: style.colour, "stroke-width": 3.2 }, style.dash ? { "stroke-dasharray": style.dash } : {})));
      item.appendChild(document.createTextNode(" " + type.toLowerCase()));
      node.appendChild(item);
    });
    const slotItem = el("span", { class: "legend-item" });
    slotItem.appendChild(el("span", { class: "slot-sample" }));
    slotItem.appendChild(document.createTextNode(" empty space"));
    node.appendChild(slotItem);
    codes.forEach(function (c) {
      const item = el("span", { class: "legend-item legend-train", "data-company": c, title: companyNames[c] + " trains" });
      item.appendChild(trainIcon(companies[c], 14));
      item.appendChild(document.createTextNode(" " + c));
      node.appendChild(item);
    });
  }

  function participants(state) {
    const list = state.players.map(function (pl, seat) { return { id: String(seat), data: pl }; });
    if (state.imaginary) list.push({ id: "imaginary", data: state.imaginary });
    return list;
  }

  function seats(table, state) {
    clear(table);
    tableHead(table, ["Seat", "Bot · hand", "Cash", "Invested shares"], function (i) { return i === 2; });
    const body = el("tbody");
    participants(state).forEach(function (p) {
      const tr = el("tr", { "data-participant": p.id });
      if (p.id === String(state.seat)) tr.className = "to-move";
      if (p.id === "imaginary") tr.className = "reference";
      tr.appendChild(el("td", { class: "num" }, p.id === "imaginary" ? "–" : p.id));
      const bot = el("td", { class: "seat-bot" });
      bot.appendChild(el("span", { class: "bot-name" }, who(p.id)));
      if (p.id !== "imaginary") {
        const hand = el("div", {
          class: "hand", "data-seat-hand": p.id,
          title: "shares: " + (shares(p.data.hand) || "none") + "; track: " + (shares(p.data.track) || "none"),
        });
        hand.textContent = "hand: " + total(p.data.hand) + " shares, " + total(p.data.track) + " track";
        bot.appendChild(hand);
      }
      tr.appendChild(bot);
      tr.appendChild(el("td", { class: "num cash", "data-seat-cash": p.id }, p.data.cash));
      const inv = el("td", { "data-seat-invested": p.id });
      inv.appendChild(chips(p.data.invested));
      tr.appendChild(inv);
      body.appendChild(tr);
    });
    table.appendChild(body);
  }

  function cards(n) {
    return n + (n === 1 ? " card" : " cards");
  }

  function supply(box, state) {
    clear(box);
    const display = el("span", { class: "chips", "data-testid": "display" });
    state.display.forEach(function (c) { display.appendChild(chip(c)); });
    if (!state.display.length) display.appendChild(el("span", { class: "muted" }, "empty"));
    box.appendChild(fact("Display", display));
    box.appendChild(fact("Share deck", cards(state.deck) + " (" + state.deck_dividends + " dividend)", { "data-count": "share-deck" }));
    box.appendChild(fact("Track deck", cards(state.track_deck), { "data-count": "track-deck" }));
    box.appendChild(fact("UP stack", state.up, { "data-count": "up-stack" }));
    box.appendChild(fact("Track discards", shares(state.discards) || "none"));
    box.appendChild(fact("Dividends paid", state.paid + " of " + state.dividends_to_end));
    if (total(state.boxed)) box.appendChild(fact("Boxed (four of a kind)", shares(state.boxed)));
  }

  function companiesTable(table, state) {
    clear(table);
    tableHead(table, ["Company", "Trains", "Value", "Invested"], function (i) { return i > 0; });
    const body = el("tbody");
    codes.forEach(function (c) {
      const invested = participants(state).reduce(function (sum, p) { return sum + (p.data.invested[c] || 0); }, 0);
      const tr = el("tr", { "data-company": c });
      const name = el("td", { class: "co-cell" });
      name.appendChild(trainIcon(companies[c], 13));
      name.appendChild(chip(c));
      name.appendChild(el("span", { class: "co-name" }, " " + companyNames[c]));
      tr.appendChild(name);
      tr.appendChild(el("td", { class: "num" }, state.trains[c]));
      tr.appendChild(el("td", { class: "num" }, state.values[c]));
      tr.appendChild(el("td", { class: "num" }, invested));
      body.appendChild(tr);
    });
    table.appendChild(body);
  }

  // The payouts of one dividend event: every company's value, the rule its holdings met and
  // UP's positions (``explained``: the view's, from the game's kit), each participant's
  // shares and what the event says it was paid.
  function dividend(panel, ev, explained) {
    clear(panel);
    panel.hidden = !ev || ev.type !== "dividend";
    if (panel.hidden) return;
    const ids = Object.keys(ev.cash);
    const paidBy = words.paidBy(ev);
    panel.appendChild(el("h3", null, "Dividend " + ev.number + " · payouts"));
    const table = el("table", { class: "data compact dividend", "data-dividend": ev.number });
    const head = el("thead");
    const r1 = el("tr");
    r1.appendChild(el("th", { rowspan: 2 }, "Company"));
    r1.appendChild(el("th", { rowspan: 2, class: "num" }, "Value"));
    r1.appendChild(el("th", { rowspan: 2 }, "Rule"));
    ids.forEach(function (id) { r1.appendChild(el("th", { colspan: 2, class: "num group" }, who(id))); });
    const r2 = el("tr");
    ids.forEach(function () {
      r2.appendChild(el("th", { class: "num sub" }, "shares"));
      r2.appendChild(el("th", { class: "num sub" }, "paid"));
    });
    head.appendChild(r1);
    head.appendChild(r2);
    table.appendChild(head);
    const body = el("tbody");
    const notes = el("ul", { class: "payout-notes", "data-testid": "payout-notes" });
    const row = function (code, value, rule, holdings, payouts) {
      const tr = el("tr", { "data-company": code, "data-rule": rule.rule || "up" });
      const name = el("td");
      name.appendChild(chip(code));
      tr.appendChild(name);
      tr.appendChild(el("td", { class: "num" }, value));
      tr.appendChild(el("td", { class: "rule", title: rule.text, "data-field": "rule" }, rule.short));
      ids.forEach(function (id) {
        const held = holdings[id];
        tr.appendChild(el("td", { class: "num holding", "data-participant": id, "data-field": "holding" }, held ? held : ""));
        const paid = el("td", { class: "num payout", "data-participant": id, "data-field": "payout" }, held ? payouts[id] : "");
        if (held && payouts[id] > 0) paid.classList.add("paid");
        tr.appendChild(paid);
      });
      body.appendChild(tr);
      if (Object.keys(holdings).length && rule.text) notes.appendChild(el("li", { "data-company": code }, rule.text));
    };
    const unknown = { rule: "", short: "–", text: "" };  // no view: the amounts only
    ev.companies.forEach(function (c, i) { row(c.company, c.value, explained ? words.companyRule(c, explained.companies[i]) : unknown, c.holdings, c.payouts); });
    row("UP", "by position", explained ? words.upRule(ev, explained.up) : unknown, ev.union_pacific.holdings, ev.union_pacific.payouts);
    table.appendChild(body);
    const foot = el("tfoot");
    const sum = el("tr", { class: "sum" });
    sum.appendChild(el("td", { colspan: 3 }, "Paid in total"));
    ids.forEach(function (id) {
      sum.appendChild(el("td", { class: "num" }, ""));
      sum.appendChild(el("td", { class: "num", "data-participant": id, "data-field": "total" }, paidBy[id]));
    });
    foot.appendChild(sum);
    const cash = el("tr", { class: "sum" });
    cash.appendChild(el("td", { colspan: 3 }, "Cash after"));
    ids.forEach(function (id) {
      cash.appendChild(el("td", { class: "num" }, ""));
      cash.appendChild(el("td", { class: "num", "data-participant": id, "data-field": "cash" }, ev.cash[id]));
    });
    foot.appendChild(cash);
    table.appendChild(foot);
    panel.appendChild(boxed(table));
    const why = el("details", { class: "payout-why", open: "" });
    why.appendChild(el("summary", null, "Why these amounts"));
    why.appendChild(notes);
    panel.appendChild(why);
    panel.appendChild(el("p", { class: "caption" }, "With V a company's value (its trains on the board + 1): one shareholder gets V + ⌊V/2⌋; " +
      "players tied for most shares split V + ⌊V/2⌋; otherwise the one with most gets V and the players with the " +
      "second-highest count split ⌊V/2⌋. UP pays by position (most shares first, ties split their positions' amounts) " +
      "and dividend number (docs/rules.md). Amounts are those the replay records."));
  }

  // The final result as the match's result says: a forfeiting seat is placed last
  // whatever its cash (the host's result in the replay's match section).
  function final(panel, res) {
    clear(panel);
    panel.hidden = !res;
    if (!res) return;
    const places = match.places || res.places;
    const cash = match.cash || res.cash;
    panel.appendChild(el("h3", null, "Final result · " + (match.termination || res.termination)));
    const list = el("ol", { class: "final-list" });
    Object.keys(places).sort(function (a, b) {
      return places[a] - places[b] || (forfeited.indexOf(a) >= 0) - (forfeited.indexOf(b) >= 0) || (a < b ? -1 : 1);
    }).forEach(function (id) {
      const li = el("li", { "data-participant": id });
      li.appendChild(el("span", { class: "place" }, places[id]));
      li.appendChild(el("span", { class: "bot-name" }, who(id)));
      li.appendChild(el("span", { class: "cash" }, "$" + cash[id]));
      if (forfeited.indexOf(id) >= 0) li.appendChild(el("span", { class: "status status-forfeit" }, "forfeited"));
      list.appendChild(li);
    });
    panel.appendChild(list);
    if (forfeited.length) {
      panel.appendChild(el("p", { class: "caption" }, "A seat that forfeits is placed last whatever its cash, as in the result at the top of the page; " +
        "the game itself ended (" + res.termination + ") with " + Object.keys(res.places).sort(function (a, b) { return res.places[a] - res.places[b]; })
        .map(function (id) { return res.places[id] + ". " + who(id); }).join(", ") + " by cash."));
    }
  }

  return {
    chip: chip, legend: legend, seats: seats, supply: supply, companies: companiesTable,
    dividend: dividend, final: final, colours: colours,
  };
}
