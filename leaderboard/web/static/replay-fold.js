// The fold of the replay viewer: state[i] is the game after the replay's events 0..i.
//
// Every number the viewer shows comes from folding the stored replay's events in order
// (docs/replay-format.md): the events say what happened, this file only keeps count.
// Cash is the sum of the folded payouts, checked against the cash each dividend states.

function inc(map, key, by) {
  map[key] = (map[key] || 0) + by;
  if (map[key] === 0) delete map[key];
}

export function total(map) {
  return Object.keys(map).reduce(function (sum, k) { return sum + map[k]; }, 0);
}

function initialState(board, replay) {
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

export function fold(board, replay) {
  const states = [];
  let state = initialState(board, replay);
  replay.events.forEach(function (ev) {
    state = structuredClone(state);
    apply(state, ev);
    states.push(state);
  });
  return states;
}
