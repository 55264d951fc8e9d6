// The words of Ticket to Ride: Pennsylvania's replay viewer: who is who, and one line per
// event, read from the events the engine emitted (docs/replay-format.md).

import { forfeitedSeats, gameOverLine, namer } from "../../replay-parts.js";

export function makeWords(replay, board) {
  const events = replay.events;
  const info = replay.match || {};
  const who = namer(replay, { neutral: "neutral shareholder" });
  const routes = {}, cities = {}, tickets = {};
  board.routes.forEach(function (r) { routes[r.id] = r; });
  board.cities.forEach(function (c) { cities[c.id] = c.name; });
  board.tickets.forEach(function (t) { tickets[t.id] = t; });
  const place = function (p) { return cities[p] || p.replace(/_/g, " ").replace(/\b\w/g, function (m) { return m.toUpperCase(); }); };
  const routeName = function (id) { const r = routes[id]; return r ? cities[r.a] + "–" + cities[r.b] : id; };
  const ticketName = function (id) { const t = tickets[id]; return t ? id + " " + place(t.a) + "–" + place(t.b) + " (" + t.points + ")" : id; };
  const list = function (ids) { return ids.length ? ids.join(", ") : "none"; };
  const scoringIndex = events.findIndex(function (ev) { return ev.type === "scoring"; });
  const forfeited = forfeitedSeats(replay);

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
      case "blind": return who(ev.seat) + " draws a card from the deck (" + ev.card + ").";
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
      case "game_end": return gameOverLine(ev, who, forfeited, "", function (n) { return n + " points"; });
      default: return ev.type;
    }
  }

  return { who: who, describe: describe, ticketName: ticketName, routeName: routeName, forfeited: forfeited, info: info, scoringIndex: scoringIndex };
}
