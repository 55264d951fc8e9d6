// The words of the replay viewer: one line per event, and why each payout was what it was.
//
// Everything said here is read from the events the engine emitted (docs/replay-format.md):
// a dividend event carries every company's value, each participant's invested shares and
// what each was paid.  The payout rules are not computed here: which case each company's
// holdings met and UP's positions come with the view (the game's kit, on the server), and
// every amount shown is the amount the event says was paid.

import { forfeitedSeats, gameOverLine, namer, total } from "../../replay-parts.js";

export function makeWords(replay, board) {
  const who = namer(replay, { imaginary: "imaginary shareholder" });
  const sectionName = function (i) { const s = board.sections[i]; return s ? s.a + "–" + s.b : "section " + i; };
  const shares = function (map) {
    return Object.keys(map).map(function (c) { return map[c] + " " + c; }).join(", ");
  };
  const money = function (n) { return "$" + n; };
  const list = function (ids) { return ids.map(who).join(", "); };
  const forfeited = forfeitedSeats(replay);

  // What each participant was paid by one dividend event (companies and UP).
  function paidBy(ev) {
    const paid = {};
    Object.keys(ev.cash).forEach(function (id) { paid[id] = 0; });
    ev.companies.concat([ev.union_pacific]).forEach(function (row) {
      Object.keys(row.payouts).forEach(function (id) { paid[id] = (paid[id] || 0) + row.payouts[id]; });
    });
    return paid;
  }

  // Which rule of docs/rules.md (§7.3) a company's payout followed (``explained``: the
  // view's {rule, groups}), with the amounts the event paid: {rule, short, text}.
  function companyRule(row, explained) {
    const v = row.value;
    const groups = explained.groups;
    const pay = function (id) { return money(row.payouts[id]); };
    if (explained.rule === "none") {
      return { rule: "none", short: "no shareholder", text: row.company + " has no invested shares: nothing is paid." };
    }
    const top = groups[0];
    if (explained.rule === "tie") {
      return {
        rule: "tie",
        short: top.ids.length + " tie for most: (" + v + "+⌊" + v + "/2⌋)/" + top.ids.length,
        text: row.company + " (value " + v + "): " + list(top.ids) + " tie for most shares (" + top.count +
          " each) and share V + ⌊V/2⌋: " + pay(top.ids[0]) + " each" +
          (groups.length > 1 ? "; " + list(groups.slice(1).flatMap(function (g) { return g.ids; })) + " get nothing" : "") + ".",
      };
    }
    if (explained.rule === "only") {
      return {
        rule: "only",
        short: "only holder: " + v + "+⌊" + v + "/2⌋",
        text: row.company + " (value " + v + "): " + who(top.ids[0]) + " is the only shareholder and gets V + ⌊V/2⌋ = " +
          pay(top.ids[0]) + ".",
      };
    }
    const second = groups[1];
    const seconds = second.ids.length > 1
      ? list(second.ids) + " (" + second.count + " each) share ⌊V/2⌋: " + pay(second.ids[0]) + " each"
      : who(second.ids[0]) + " (" + second.count + ") gets ⌊V/2⌋ = " + pay(second.ids[0]);
    const rest = groups.slice(2).flatMap(function (g) { return g.ids; });
    return {
      rule: "leader",
      short: "most: " + v + "; 2nd" + (second.ids.length > 1 ? " (" + second.ids.length + ") share" : ":") + " ⌊" + v + "/2⌋",
      text: row.company + " (value " + v + "): " + who(top.ids[0]) + " has most shares (" + top.count + ") and gets V = " +
        pay(top.ids[0]) + "; " + seconds + (rest.length ? "; " + list(rest) + " get nothing" : "") + ".",
    };
  }

  function positionName(p) {
    return p.first === p.last ? "position " + p.first : "positions " + p.first + "–" + p.last;
  }

  // Union Pacific (§7.4): the positions each group of equal holdings took (the view's) and
  // what each was paid.
  function upRule(ev, places) {
    if (!places.length) return { short: "no shareholder", text: "Union Pacific has no invested shares: nothing is paid." };
    return {
      short: places.map(function (p) { return p.first === p.last ? String(p.first) : p.first + "–" + p.last; }).join(" · "),
      text: "Union Pacific, dividend " + ev.number + ": " + places.map(function (p) {
        return positionName(p) + (p.ids.length > 1 ? " (tied, " : " (") + p.count + " share" + (p.count === 1 ? "" : "s") +
          "): " + list(p.ids) + " " + money(p.each) + (p.ids.length > 1 ? " each" : "");
      }).join("; ") + (ev.number === 1 ? " (the first dividend pays nothing for UP)" : "") + ".",
    };
  }

  function describe(ev) {
    switch (ev.type) {
      case "setup": {
        const hand = ev.hands[0] || { track: {}, shares: {} };
        return "Set-up: " + ev.players + " players (" + ev.variant + "); each dealt " + total(hand.track) + " track cards and " +
          total(hand.shares) + " shares; UP stack " + ev.up_stack + ".";
      }
      case "first_investment": return "First investment: " + Object.keys(ev.picks).map(function (s) { return who(s) + " " + ev.picks[s]; }).join(", ") + ".";
      case "display": return "Display: " + (ev.display.length ? ev.display.join(" ") : "empty") + ".";
      case "share_deck": return "Share deck laid out: " + ev.cards + " cards, " + ev.order.filter(function (c) { return c === "DIVIDEND"; }).length + " of them dividend cards.";
      case "turn": return "Turn " + ev.turn + ": " + who(ev.seat) + " draws a " + ev.track_card + " track card.";
      case "reshuffle": return "Track discards reshuffled into a new deck of " + ev.cards + " cards.";
      case "build": return who(ev.seat) + " builds " + ev.company + " on " + sectionName(ev.section) + " with a " + ev.card + " card; " + ev.company + " is now worth " + ev.value + ".";
      case "draw":
        if (ev.source === "up") return who(ev.seat) + " takes a UP share from the stack.";
        if (ev.source === "deck") return ev.company ? who(ev.seat) + " draws blind from the deck: " + ev.company + "." : who(ev.seat) + " draws from the deck and finds only dividend cards.";
        return who(ev.seat) + " takes " + ev.company + " from the display.";
      case "refill": return ev.company ? "The display is refilled with " + ev.company + "." : "The deck is empty: the display is not refilled.";
      case "four_of_a_kind": return "Four " + ev.company + " shares in the display go to the box.";
      case "draw_skipped": return who(ev.seat) + " has nothing to draw.";
      case "exchange": return who(ev.seat) + " boxes a " + ev.company + " share for a UP share.";
      case "invest": return who(ev.seat) + " invests " + shares(ev.shares) + " and discards " + ev.discard + ".";
      case "pass": return who(ev.seat) + " passes and discards " + ev.discard + ".";
      case "dividend_revealed": return "Dividend card " + ev.number + " revealed.";
      case "imaginary_shareholder": return "The imaginary shareholder takes the display, the deck's shares and the UP stack: " + shares(ev.invested) + ".";
      case "dividend": {
        const paid = paidBy(ev);
        return "Dividend " + ev.number + " paid: " + Object.keys(ev.cash).map(function (id) {
          return who(id) + " +" + money(paid[id]) + " (cash " + money(ev.cash[id]) + ")";
        }).join(", ") + ".";
      }
      case "stalemate": return "Stalemate: nothing can be built or invested any more; the remaining dividends are paid at once.";
      case "game_end": return gameOverLine(ev, who, forfeited, ", by cash", money);
      default: return ev.type;
    }
  }

  return {
    who: who, shares: shares, sectionName: sectionName, describe: describe, paidBy: paidBy,
    companyRule: companyRule, upRule: upRule,
  };
}
