// The replay viewer of the match page.
//
// It loads the match (with its stored replay) and the board from the JSON endpoints,
// then folds the replay's events in order: state[i] is the game after events 0..i.
// Every number on screen comes from that fold, so it can be traced to the stored
// replay (docs/replay-format.md).  Text from the data (bot names above all) is only
// ever written with textContent / createElement, never parsed as HTML.
(function () {
  "use strict";

  const root = document.getElementById("replay");
  if (!root) return;
  const SVG_NS = "http://www.w3.org/2000/svg";

  // -- small DOM helpers ------------------------------------------------------------

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function svgEl(tag, attrs, text) {
    const node = document.createElementNS(SVG_NS, tag);
    if (attrs) Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function byId(id) {
    return document.getElementById(id);
  }

  function getJSON(url) {
    return fetch(url, { headers: { Accept: "application/json" } }).then(function (response) {
      if (!response.ok) throw new Error(url + ": HTTP " + response.status);
      return response.json();
    });
  }

  function inc(map, key, by) {
    map[key] = (map[key] || 0) + by;
    if (map[key] === 0) delete map[key];
  }

  function total(map) {
    return Object.keys(map).reduce(function (sum, k) { return sum + map[k]; }, 0);
  }

  // -- the fold ------------------------------------------------------------------------

  function initialState(board, replay) {
    const cityIndex = {};
    board.cities.forEach(function (c, i) { cityIndex[c.name] = i; });
    const sections = board.sections.map(function (s) {
      return { slots: new Array(s.spaces).fill(null), start: new Array(s.spaces).fill(null) };
    });
    const trains = {};
    const values = {};
    board.companies.forEach(function (c) {
      trains[c.code] = 0;
      c.start.forEach(function (pair) {
        const index = board.sections.findIndex(function (s) {
          return (s.a === pair[0] && s.b === pair[1]) || (s.a === pair[1] && s.b === pair[0]);
        });
        if (index < 0) return;
        const section = board.sections[index];
        const slot = section.a === c.home ? 0 : section.spaces - 1;
        sections[index].slots[slot] = c.code;
        sections[index].start[slot] = c.code;
        trains[c.code] += 1;
      });
      values[c.code] = trains[c.code] + 1;
    });
    const players = [];
    for (let seat = 0; seat < replay.players; seat++) {
      players.push({ cash: 0, invested: {}, hand: {}, track: {} });
    }
    const trackCards = Object.keys(board.track_types).reduce(function (sum, k) {
      return sum + board.track_types[k];
    }, board.wild_cards);
    return {
      turn: 0, seat: null, players: players, imaginary: null, display: [], deckLaid: false,
      deck: 0, dividendCards: 0, revealed: 0, paid: 0, up: 0, trackDeck: trackCards, discards: {},
      boxed: {}, sections: sections, trains: trains, values: values, pendingSlot: null,
      lastSection: null, result: null, stalemate: false, mismatch: null,
    };
  }

  function apply(state, ev) {
    const p = ev.seat !== undefined && ev.seat !== null ? state.players[ev.seat] : null;
    state.lastSection = null;
    switch (ev.type) {
      case "setup":
        ev.hands.forEach(function (h) {
          Object.assign(state.players[h.seat].hand, h.shares);
          Object.assign(state.players[h.seat].track, h.track);
          state.trackDeck -= total(h.track);
        });
        state.up = ev.up_stack;
        break;
      case "first_investment":
        Object.keys(ev.picks).forEach(function (seat) {
          const pl = state.players[Number(seat)];
          inc(pl.hand, ev.picks[seat], -1);
          inc(pl.invested, ev.picks[seat], 1);
        });
        break;
      case "display":
        if (state.deckLaid) state.deck -= ev.display.length; // turned from the deck after a four of a kind
        state.display = ev.display.slice();
        break;
      case "share_deck":
        state.deckLaid = true;
        state.deck = ev.cards;
        state.dividendCards = ev.order.filter(function (c) { return c === "DIVIDEND"; }).length;
        break;
      case "turn":
        state.turn = ev.turn;
        state.seat = ev.seat;
        inc(p.track, ev.track_card, 1);
        state.trackDeck -= 1;
        break;
      case "reshuffle":
        state.trackDeck = ev.cards;
        state.discards = {};
        break;
      case "build": {
        inc(p.track, ev.card, -1);
        inc(state.discards, ev.card, 1);
        const slots = state.sections[ev.section].slots;
        const free = slots.indexOf(null);
        if (free >= 0) slots[free] = ev.company;
        state.trains[ev.company] += 1;
        state.values[ev.company] = ev.value;
        state.lastSection = ev.section;
        break;
      }
      case "draw":
        if (ev.source === "up") {
          state.up -= 1;
          inc(p.hand, "UP", 1);
        } else if (ev.source === "deck") {
          if (ev.company) {
            state.deck -= 1;
            inc(p.hand, ev.company, 1);
          }
        } else {
          inc(p.hand, ev.company, 1);
          state.pendingSlot = state.display.indexOf(ev.company);
        }
        break;
      case "refill":
        if (state.pendingSlot !== null && state.pendingSlot >= 0) {
          if (ev.company) state.display[state.pendingSlot] = ev.company;
          else state.display.splice(state.pendingSlot, 1);
        }
        if (ev.company) state.deck -= 1;
        state.pendingSlot = null;
        break;
      case "four_of_a_kind":
        inc(state.boxed, ev.company, 4);
        state.display = [];
        break;
      case "exchange":
        inc(p.hand, ev.company, -1);
        inc(p.hand, "UP", 1);
        state.up -= 1;
        break;
      case "invest":
        Object.keys(ev.shares).forEach(function (c) {
          inc(p.hand, c, -ev.shares[c]);
          inc(p.invested, c, ev.shares[c]);
        });
        inc(p.track, ev.discard, -1);
        inc(state.discards, ev.discard, 1);
        break;
      case "pass":
        inc(p.track, ev.discard, -1);
        inc(state.discards, ev.discard, 1);
        break;
      case "dividend_revealed":
        state.revealed = ev.number;
        state.deck -= 1;
        break;
      case "imaginary_shareholder":
        state.imaginary = { invested: Object.assign({}, ev.invested), cash: 0 };
        state.display = [];
        state.deck = state.dividendCards - state.revealed;
        state.up = 0;
        break;
      case "dividend": {
        // Fold the payouts into the cash, then check against the cash the event states.
        const gains = {};
        ev.companies.forEach(function (row) {
          state.values[row.company] = row.value;
          Object.keys(row.payouts).forEach(function (who) { gains[who] = (gains[who] || 0) + row.payouts[who]; });
        });
        Object.keys(ev.union_pacific.payouts).forEach(function (who) {
          gains[who] = (gains[who] || 0) + ev.union_pacific.payouts[who];
        });
        Object.keys(gains).forEach(function (who) {
          if (who === "imaginary") state.imaginary.cash += gains[who];
          else state.players[Number(who)].cash += gains[who];
        });
        const wrong = Object.keys(ev.cash).filter(function (who) {
          const mine = who === "imaginary" ? (state.imaginary ? state.imaginary.cash : 0) : state.players[Number(who)].cash;
          return mine !== ev.cash[who];
        });
        state.mismatch = wrong.length ? "dividend " + ev.number + ": the folded cash differs from the replay's for " + wrong.join(", ") : state.mismatch;
        state.paid = ev.number;
        break;
      }
      case "stalemate":
        state.stalemate = true;
        break;
      case "game_end":
        state.result = ev;
        break;
      default:
        break;
    }
  }

  function fold(board, replay) {
    const states = [];
    let state = initialState(board, replay);
    replay.events.forEach(function (ev) {
      state = structuredClone(state);
      apply(state, ev);
      states.push(state);
    });
    return states;
  }

  // -- words -----------------------------------------------------------------------------

  function viewer(match, board) {
    const replay = match.replay;
    const events = replay.events;
    const names = {};
    replay.seats.forEach(function (s) { names[String(s.seat)] = s.name; });
    names.imaginary = "imaginary shareholder";
    const colours = {};
    const companyNames = {};
    board.companies.forEach(function (c) { colours[c.code] = c.colour; companyNames[c.code] = c.name; });
    colours.UP = board.union_pacific.colour;
    companyNames.UP = "Union Pacific";
    const codes = board.companies.map(function (c) { return c.code; });
    const sectionName = function (i) { const s = board.sections[i]; return s ? s.a + "–" + s.b : "section " + i; };
    const who = function (seat) { return names[String(seat)] !== undefined ? names[String(seat)] : "seat " + seat; };
    const shares = function (map) {
      return Object.keys(map).map(function (c) { return map[c] + " " + c; }).join(", ");
    };

    function describe(ev) {
      switch (ev.type) {
        case "setup": return "Set-up: " + ev.players + " players (" + ev.variant + "); each dealt 3 track cards, 1 UP and 4 company shares; UP stack " + ev.up_stack + ".";
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
        case "dividend": return "Dividend " + ev.number + " paid: " + Object.keys(ev.cash).map(function (p) { return who(p) + " $" + ev.cash[p]; }).join(", ") + ".";
        case "stalemate": return "Stalemate: nothing can be built or invested any more; the remaining dividends are paid at once.";
        case "game_end": return "Game over (" + ev.termination + "): " + Object.keys(ev.places).sort(function (a, b) { return ev.places[a] - ev.places[b]; }).map(function (p) { return ev.places[p] + ". " + who(p) + " $" + ev.cash[p]; }).join(", ") + ".";
        default: return ev.type;
      }
    }

    function chip(code, count) {
      const span = el("span", { class: "co-chip", title: companyNames[code] || code, "data-company": code });
      span.style.setProperty("--co", colours[code] || "#777");
      span.appendChild(el("span", { class: "co-code" }, code));
      if (count !== undefined) span.appendChild(el("span", { class: "co-count" }, count));
      return span;
    }

    function chips(map) {
      const box = el("span", { class: "chips" });
      codes.concat(["UP"]).forEach(function (c) { if (map[c]) box.appendChild(chip(c, map[c])); });
      if (!box.childNodes.length) box.appendChild(el("span", { class: "muted" }, "–"));
      return box;
    }

    // -- the board -----------------------------------------------------------------------

    const svg = byId("board");
    const slotNodes = [];
    const sectionNodes = [];
    (function drawBoard() {
      const lons = board.cities.map(function (c) { return c.lon; });
      const lats = board.cities.map(function (c) { return c.lat; });
      const minLon = Math.min.apply(null, lons), maxLon = Math.max.apply(null, lons);
      const minLat = Math.min.apply(null, lats), maxLat = Math.max.apply(null, lats);
      const k = Math.cos(((minLat + maxLat) / 2) * Math.PI / 180);
      const width = 1000, pad = 46;
      const scale = (width - 2 * pad) / ((maxLon - minLon) * k);
      const height = Math.round((maxLat - minLat) * scale + 2 * pad);
      svg.setAttribute("viewBox", "0 0 " + width + " " + height);
      const at = {};
      board.cities.forEach(function (c) {
        at[c.name] = [pad + (c.lon - minLon) * k * scale, pad + (maxLat - c.lat) * scale];
      });
      const tracks = svgEl("g", { class: "tracks" });
      const slots = svgEl("g", { class: "slots" });
      const cities = svgEl("g", { class: "cities" });
      board.sections.forEach(function (s, i) {
        const a = at[s.a], b = at[s.b];
        const style = board.track_styles[s.type] || { colour: "#999", dash: "" };
        const line = svgEl("line", {
          x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: style.colour, "stroke-width": 3.2,
          "stroke-linecap": "round", class: "track track-" + s.type, "data-section": i,
        });
        if (style.dash) line.setAttribute("stroke-dasharray", style.dash);
        line.appendChild(svgEl("title", null, sectionName(i) + " · " + s.type + " · " + s.spaces + " spaces"));
        tracks.appendChild(line);
        sectionNodes.push(line);
        const nodes = [];
        for (let j = 0; j < s.spaces; j++) {
          const t = (j + 1) / (s.spaces + 1);
          const slot = svgEl("circle", {
            cx: (a[0] + (b[0] - a[0]) * t).toFixed(1), cy: (a[1] + (b[1] - a[1]) * t).toFixed(1), r: 5.2,
            class: "slot", "data-section": i, "data-slot": j,
          });
          const title = svgEl("title", null, "");
          slot.appendChild(title);
          slots.appendChild(slot);
          nodes.push({ node: slot, title: title });
        }
        slotNodes.push(nodes);
      });
      const homes = {};
      board.companies.forEach(function (c) { (homes[c.home] = homes[c.home] || []).push(c.code); });
      board.cities.forEach(function (c) {
        const p = at[c.name];
        const g = svgEl("g", { class: "city" + (homes[c.name] ? " home" : "") });
        g.appendChild(svgEl("circle", { cx: p[0], cy: p[1], r: homes[c.name] ? 6.5 : 4.5 }));
        if (homes[c.name]) {
          const ring = svgEl("circle", { cx: p[0], cy: p[1], r: 3, class: "home-dot" });
          ring.setAttribute("fill", colours[homes[c.name][0]]);
          g.appendChild(ring);
        }
        const label = svgEl("text", { x: p[0] + 8, y: p[1] - 7, class: "city-label" }, c.name);
        g.appendChild(label);
        g.appendChild(svgEl("title", null, c.name + (homes[c.name] ? " · home of " + homes[c.name].join(", ") : "")));
        cities.appendChild(g);
      });
      svg.appendChild(tracks);
      svg.appendChild(cities);
      svg.appendChild(slots);

      const legend = byId("legend");
      Object.keys(board.track_styles).forEach(function (type) {
        const item = el("span", { class: "legend-item" });
        const sample = svgEl("svg", { width: 30, height: 10, "aria-hidden": "true" });
        const line = svgEl("line", { x1: 1, y1: 5, x2: 29, y2: 5, stroke: board.track_styles[type].colour, "stroke-width": 3.2 });
        if (board.track_styles[type].dash) line.setAttribute("stroke-dasharray", board.track_styles[type].dash);
        sample.appendChild(line);
        item.appendChild(sample);
        item.appendChild(document.createTextNode(" " + type.toLowerCase()));
        legend.appendChild(item);
      });
      const slotItem = el("span", { class: "legend-item" });
      slotItem.appendChild(el("span", { class: "slot-sample" }));
      slotItem.appendChild(document.createTextNode(" empty space"));
      legend.appendChild(slotItem);
      codes.forEach(function (c) { legend.appendChild(chip(c)); });
    })();

    function renderBoard(state) {
      state.sections.forEach(function (s, i) {
        sectionNodes[i].classList.toggle("last-build", state.lastSection === i);
        s.slots.forEach(function (co, j) {
          const n = slotNodes[i][j];
          n.node.setAttribute("class", "slot" + (co ? " train" : "") + (s.start[j] ? " start" : ""));
          if (co) {
            n.node.style.fill = colours[co];
            n.node.setAttribute("data-company", co);
          } else {
            n.node.style.removeProperty("fill");
            n.node.removeAttribute("data-company");
          }
          n.title.textContent = sectionName(i) + ": " + (co ? co + " train" + (s.start[j] ? " (starting space)" : "") : "empty space");
        });
      });
    }

    // -- the side panels ---------------------------------------------------------------

    function participants(state) {
      const list = state.players.map(function (pl, seat) { return { id: String(seat), data: pl }; });
      if (state.imaginary) list.push({ id: "imaginary", data: state.imaginary });
      return list;
    }

    function renderSeats(state) {
      const table = byId("seats-table");
      clear(table);
      const head = el("thead");
      const hr = el("tr");
      ["Seat", "Bot · hand", "Cash", "Invested shares"].forEach(function (h, i) {
        hr.appendChild(el("th", i === 2 ? { class: "num" } : null, h));
      });
      head.appendChild(hr);
      table.appendChild(head);
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

    function fact(label, value, attrs) {
      const d = el("div", Object.assign({ class: "fact" }, attrs || {}));
      d.appendChild(el("span", { class: "fact-label" }, label));
      const v = el("span", { class: "fact-value" });
      if (value instanceof Node) v.appendChild(value); else v.textContent = String(value);
      d.appendChild(v);
      return d;
    }

    function renderSupply(state) {
      const box = byId("supply");
      clear(box);
      const display = el("span", { class: "chips", "data-testid": "display" });
      state.display.forEach(function (c) { display.appendChild(chip(c)); });
      if (!state.display.length) display.appendChild(el("span", { class: "muted" }, "empty"));
      box.appendChild(fact("Display", display));
      box.appendChild(fact("Share deck", cards(state.deck) + " (" + (state.dividendCards - state.revealed) + " dividend)", { "data-count": "share-deck" }));
      box.appendChild(fact("Track deck", cards(state.trackDeck), { "data-count": "track-deck" }));
      box.appendChild(fact("UP stack", state.up, { "data-count": "up-stack" }));
      box.appendChild(fact("Track discards", shares(state.discards) || "none"));
      box.appendChild(fact("Dividends paid", state.paid + " of " + (replay.players === 2 ? 3 : 4)));
      if (total(state.boxed)) box.appendChild(fact("Boxed (four of a kind)", shares(state.boxed)));
      if (state.mismatch) box.appendChild(el("p", { class: "warn-text" }, state.mismatch));
    }

    function renderCompanies(state) {
      const table = byId("companies-table");
      clear(table);
      const head = el("thead");
      const hr = el("tr");
      ["Company", "Trains", "Value", "Invested"].forEach(function (h, i) { hr.appendChild(el("th", i ? { class: "num" } : null, h)); });
      head.appendChild(hr);
      table.appendChild(head);
      const body = el("tbody");
      codes.forEach(function (c) {
        const invested = participants(state).reduce(function (sum, p) { return sum + (p.data.invested[c] || 0); }, 0);
        const tr = el("tr", { "data-company": c });
        const name = el("td");
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

    function renderDividend(ev, state) {
      const panel = byId("dividend-panel");
      clear(panel);
      panel.hidden = ev.type !== "dividend";
      if (panel.hidden) return;
      const ids = Object.keys(ev.cash);
      panel.appendChild(el("h3", null, "Dividend " + ev.number + " · payouts"));
      const table = el("table", { class: "data compact dividend", "data-dividend": ev.number });
      const head = el("thead");
      const r1 = el("tr");
      r1.appendChild(el("th", { rowspan: 2 }, "Company"));
      r1.appendChild(el("th", { rowspan: 2, class: "num" }, "Value"));
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
      const row = function (code, value, holdings, payouts) {
        const tr = el("tr", { "data-company": code });
        const name = el("td");
        name.appendChild(chip(code));
        tr.appendChild(name);
        tr.appendChild(el("td", { class: "num" }, value));
        ids.forEach(function (id) {
          const held = holdings[id];
          tr.appendChild(el("td", { class: "num holding", "data-participant": id, "data-field": "holding" }, held ? held : ""));
          const paid = el("td", { class: "num payout", "data-participant": id, "data-field": "payout" }, held ? payouts[id] : "");
          if (held && payouts[id] > 0) paid.classList.add("paid");
          tr.appendChild(paid);
        });
        body.appendChild(tr);
      };
      ev.companies.forEach(function (c) { row(c.company, c.value, c.holdings, c.payouts); });
      row("UP", "by position", ev.union_pacific.holdings, ev.union_pacific.payouts);
      table.appendChild(body);
      const foot = el("tfoot");
      const sum = el("tr", { class: "sum" });
      sum.appendChild(el("td", { colspan: 2 }, "Paid in total"));
      ids.forEach(function (id) {
        let paid = ev.union_pacific.payouts[id] || 0;
        ev.companies.forEach(function (c) { paid += c.payouts[id] || 0; });
        sum.appendChild(el("td", { class: "num" }, ""));
        sum.appendChild(el("td", { class: "num", "data-participant": id, "data-field": "total" }, paid));
      });
      foot.appendChild(sum);
      const cash = el("tr", { class: "sum" });
      cash.appendChild(el("td", { colspan: 2 }, "Cash after"));
      ids.forEach(function (id) {
        cash.appendChild(el("td", { class: "num" }, ""));
        cash.appendChild(el("td", { class: "num", "data-participant": id, "data-field": "cash" }, ev.cash[id]));
      });
      foot.appendChild(cash);
      table.appendChild(foot);
      panel.appendChild(table);
      panel.appendChild(el("p", { class: "caption" }, "Each company pays its value V to the only shareholder, V + ⌊V/2⌋ shared by tied leaders, or V to the leader and ⌊V/2⌋ shared by the seconds; UP pays by position and dividend number (docs/rules.md)."));
    }

    function renderFinal(state) {
      const panel = byId("final-panel");
      clear(panel);
      panel.hidden = !state.result;
      if (!state.result) return;
      const res = state.result;
      panel.appendChild(el("h3", null, "Final result · " + res.termination));
      const list = el("ol", { class: "final-list" });
      Object.keys(res.places).sort(function (a, b) { return res.places[a] - res.places[b] || Number(a) - Number(b); }).forEach(function (id) {
        const li = el("li", { "data-participant": id });
        li.appendChild(el("span", { class: "place" }, res.places[id]));
        li.appendChild(el("span", { class: "bot-name" }, who(id)));
        li.appendChild(el("span", { class: "cash" }, "$" + res.cash[id]));
        list.appendChild(li);
      });
      panel.appendChild(list);
      const forfeited = (replay.match && replay.match.forfeited_seats) || [];
      if (forfeited.length) {
        panel.appendChild(el("p", { class: "caption" }, "Forfeited (placed last in the match result above the page): " + forfeited.map(who).join(", ") + "."));
      }
    }

    function renderLog(step) {
      const log = byId("event-log");
      clear(log);
      for (let i = step; i >= Math.max(0, step - 7); i--) {
        const li = el("li", { value: i + 1, class: i === step ? "current" : "" });
        li.appendChild(el("span", { class: "ev-type" }, events[i].type));
        li.appendChild(document.createTextNode(" " + describe(events[i])));
        log.appendChild(li);
      }
    }

    // -- stepping ------------------------------------------------------------------------

    const states = fold(board, replay);
    const slider = byId("step-slider");
    const label = byId("step-label");
    const text = byId("event-text");
    const playButton = byId("btn-play");
    let current = 0;
    let timer = null;
    slider.max = String(events.length - 1);

    if (replay.board && board.sha256 && replay.board.sha256 !== board.sha256) {
      root.insertBefore(el("p", { class: "warn-text" }, "This replay was played on board " + replay.board.name + ", not on the board drawn here (" + board.name + ")."), root.firstChild);
    }

    function show(step) {
      current = Math.max(0, Math.min(events.length - 1, step));
      const state = states[current];
      const ev = events[current];
      slider.value = String(current);
      root.dataset.step = String(current);
      root.dataset.eventType = ev.type;
      label.textContent = "Step " + (current + 1) + " / " + events.length + " · turn " + state.turn + " · dividends paid " + state.paid;
      text.textContent = describe(ev);
      text.className = "event-text ev-" + ev.type;
      renderBoard(state);
      renderSeats(state);
      renderSupply(state);
      renderCompanies(state);
      renderDividend(ev, state);
      renderFinal(state);
      renderLog(current);
      if (current === events.length - 1) stop();
    }

    function nextDividend() {
      for (let i = current + 1; i < events.length; i++) {
        if (events[i].type === "dividend") { show(i); return; }
      }
      show(events.length - 1);
    }

    function stop() {
      if (timer !== null) clearInterval(timer);
      timer = null;
      playButton.textContent = "▶ Play";
    }

    function play() {
      if (timer !== null) { stop(); return; }
      if (current === events.length - 1) show(0);
      playButton.textContent = "❚❚ Pause";
      timer = setInterval(function () { show(current + 1); }, 300);
    }

    byId("btn-first").addEventListener("click", function () { stop(); show(0); });
    byId("btn-prev").addEventListener("click", function () { stop(); show(current - 1); });
    byId("btn-next").addEventListener("click", function () { stop(); show(current + 1); });
    byId("btn-last").addEventListener("click", function () { stop(); show(events.length - 1); });
    byId("btn-dividend").addEventListener("click", function () { stop(); nextDividend(); });
    playButton.addEventListener("click", play);
    slider.addEventListener("input", function () { stop(); show(Number(slider.value)); });
    document.addEventListener("keydown", function (event) {
      const tag = event.target && event.target.tagName;
      if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || event.altKey || event.ctrlKey || event.metaKey) return;
      if (event.key === "ArrowRight") { stop(); show(current + 1); }
      else if (event.key === "ArrowLeft") { stop(); show(current - 1); }
      else if (event.key === "Home") { stop(); show(0); }
      else if (event.key === "End") { stop(); show(events.length - 1); }
      else if (event.key === "d" || event.key === "D") { stop(); nextDividend(); }
      else if (event.key === " " && tag !== "BUTTON" && tag !== "A") { play(); }
      else return;
      event.preventDefault();
    });

    show(0);
    root.dataset.ready = "true";
  }

  Promise.all([getJSON(root.dataset.matchUrl), getJSON(root.dataset.boardUrl)])
    .then(function (loaded) {
      const match = loaded[0];
      if (!match.replay) throw new Error(match.replay_error || "the match has no replay");
      viewer(match, loaded[1]);
    })
    .catch(function (error) {
      const label = byId("step-label");
      label.textContent = "";
      root.insertBefore(el("p", { class: "warn-text", "data-testid": "viewer-error" }, "The replay cannot be shown: " + error.message), root.firstChild);
      root.dataset.ready = "error";
    });
})();
