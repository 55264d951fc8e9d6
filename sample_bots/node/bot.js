#!/usr/bin/env node
// Sample Arena bot for Union Pacific and Ticket to Ride: Pennsylvania, in JavaScript (Node.js).
//
// Built only from protos/arena/v1/bot.proto (loaded at run time) and
// docs/protocol.md. Every game is a member of the protocol's `game` oneofs
// (Observation, Action, Board): `observation.game` names the member that is set
// ("union_pacific" or "ticket_to_ride_pennsylvania"), and the bot dispatches on it.
// It serves the arena.v1.Bot gRPC service where the host tells it to, plays many matches at once, logs to stderr only and exits as
// soon as its stdin closes (the host is gone). It ships its own copy of the
// .proto (protos/arena/v1/bot.proto next to this file): in the host's sandbox
// a bot sees nothing outside its own folder.
//
// Where it listens, first match wins:
//   1. $ARENA_BOT_ADDRESS, which the host always sets (in a sandbox a Unix
//      domain socket such as unix:/run/arena/bot.sock: there is no network);
//   2. --address ADDR (the manifest passes "{address}"): unix:/path or HOST:PORT;
//   3. --port N, else $ARENA_BOT_PORT, on 127.0.0.1 (the protocol's first form).
//
//   node bot.js --address unix:/tmp/bot.sock
//   node bot.js --port 50051        (or ARENA_BOT_PORT=50051 node bot.js)
'use strict';

const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_PATH = path.join(__dirname, 'protos', 'arena', 'v1', 'bot.proto');
const PROTOCOL_VERSION = 1;
const UNION_PACIFIC = 'union_pacific';
const TICKET_TO_RIDE = 'ticket_to_ride_pennsylvania';
const GAMES = [UNION_PACIFIC, TICKET_TO_RIDE]; // Describe lists them; the host asks only for these
const IDENTITY = {
  name: 'node-sample',
  version: '1.0.0',
  author: 'Arena',
  language: 'javascript',
};

function log(...parts) {
  console.error(`[${IDENTITY.name}]`, ...parts);
}

// ------------------------------------------------------------------ strategy: Union Pacific
//
// Pure functions of the observation (the UnionPacificObservation, as
// proto-loader gives it with keepCase/defaults/oneofs) and the legal actions.
// Each legal action is turned into {index, text, kind, body}: `kind` is the
// member set in UnionPacificAction's `kind` oneof and `body` its fields.

function count(map, key) {
  return (map && map[key]) || 0;
}

function myPlayer(obs) {
  return obs.players.find((p) => p.seat === obs.seat) || { invested: {}, cash: 0 };
}

// Most shares of `code` invested by anyone but this seat (imaginary included).
function bestOther(obs, code) {
  let best = 0;
  for (const p of obs.players) {
    if (p.seat !== obs.seat) best = Math.max(best, count(p.invested, code));
  }
  if (obs.imaginary) best = Math.max(best, count(obs.imaginary.invested, code));
  return best;
}

// The share cards of `code` known to be in `seat`'s hand (observation.known_shares: cards it
// took from the display or the UP stack that cannot have left its hand since; a lower bound).
function knownInHand(obs, seat, code) {
  const entry = obs.known_shares && obs.known_shares[String(seat)];
  return entry ? count(entry.shares, code) : 0;
}

// The most shares of `code` another seat could have invested after its next turn: invested,
// plus the cards known to be in its hand.
function bestOtherThreat(obs, code) {
  let best = bestOther(obs, code);
  for (const p of obs.players) {
    if (p.seat !== obs.seat) best = Math.max(best, count(p.invested, code) + knownInHand(obs, p.seat, code));
  }
  return best;
}

function companyValue(obs, code) {
  const company = obs.companies.find((c) => c.code === code);
  return company ? company.value : 0;
}

// How much this seat cares about `code` growing: invested shares count double,
// hand shares once, and leading adds a bonus (the leader takes the big payout).
function interest(obs, code) {
  const mine = count(myPlayer(obs).invested, code);
  const hand = count(obs.hand.shares, code);
  const leads = mine > 0 && mine > bestOther(obs, code) ? 2 : 0;
  return 2 * mine + hand + leads;
}

// Lower is better to throw away: keep wild cards, throw the kind held most.
function discardCost(obs, kind) {
  return (kind === 'WILD' ? 100 : 0) - count(obs.hand.track, kind);
}

function best(items, score) {
  let top = null;
  let topScore = -Infinity;
  for (const item of items) {
    const s = score(item);
    if (s > topScore) {
      top = item;
      topScore = s;
    }
  }
  return top;
}

function chooseFirstInvest(obs, actions) {
  const companies = actions.filter((a) => a.body.company !== 'UP');
  const pool = companies.length > 0 ? companies : actions; // UP last
  const pick = best(pool, (a) => 100 * count(obs.hand.shares, a.body.company) + companyValue(obs, a.body.company));
  return { action: pick, why: `first investment in the company held most (${pick.body.company})` };
}

function investShares(a) {
  return Object.entries(a.body.shares || {});
}

function chooseMain(obs, actions) {
  const invests = actions.filter((a) => a.kind === 'invest');
  const builds = actions.filter((a) => a.kind === 'build');
  const mine = myPlayer(obs).invested;

  // 1. Invest 2+ shares of one company (UP too) when that takes or keeps the lead.
  const strong = invests.filter((a) => {
    const shares = investShares(a);
    if (shares.length !== 1) return false;
    const [code, n] = shares[0];
    return n >= 2 && count(obs.hand.shares, code) >= 2 && count(mine, code) + n > bestOther(obs, code);
  });
  if (strong.length > 0) {
    const pick = best(strong, (a) => {
      const [code, n] = investShares(a)[0];
      return 10 * n + (code === 'UP' ? 0 : companyValue(obs, code)) - discardCost(obs, a.body.discard) / 1000;
    });
    return { action: pick, why: 'invest to take or keep a lead' };
  }

  // 2. Build for a company this seat has invested in or holds: biggest interest,
  //    saving wild cards and spending the kind held most.
  const useful = builds.filter((a) => interest(obs, a.body.company) > 0);
  if (useful.length > 0) {
    const pick = best(useful, (a) => 1000 * interest(obs, a.body.company) - discardCost(obs, a.body.card));
    return { action: pick, why: `build for ${pick.body.company}` };
  }

  // 3. Late in the game, or with a fat hand, shares in hand are worth nothing:
  //    invest the largest single-company block.
  const handTotal = Object.values(obs.hand.shares).reduce((s, n) => s + n, 0);
  const late = obs.dividends_paid >= obs.dividends_to_end - 1;
  if (invests.length > 0 && (late || handTotal >= 5)) {
    const pick = best(invests, (a) => {
      const total = investShares(a).reduce((s, [, n]) => s + n, 0);
      return 10 * total - discardCost(obs, a.body.discard) / 1000;
    });
    return { action: pick, why: 'invest the hand before it is worthless' };
  }

  // 4. Build anything (it still draws a share), helping opponents least.
  if (builds.length > 0) {
    const pick = best(builds, (a) => -10 * bestOther(obs, a.body.company) - discardCost(obs, a.body.card));
    return { action: pick, why: 'build to draw a share' };
  }

  // 5. Any investment, else pass, throwing the least useful card.
  if (invests.length > 0) {
    const pick = best(invests, (a) => -discardCost(obs, a.body.discard));
    return { action: pick, why: 'invest (no build possible)' };
  }
  const passes = actions.filter((a) => a.kind === 'pass');
  if (passes.length > 0) {
    const pick = best(passes, (a) => -discardCost(obs, a.body.discard));
    return { action: pick, why: 'pass' };
  }
  return { action: actions[0], why: 'no known main action' };
}

function chooseDraw(obs, actions) {
  const mine = myPlayer(obs).invested;
  const display = actions.filter((a) => a.body.source === 'display');
  const led = display.filter((a) => count(mine, a.body.company) > 0 && count(mine, a.body.company) >= bestOther(obs, a.body.company));
  if (led.length > 0) {
    const pick = best(led, (a) => interest(obs, a.body.company));
    return { action: pick, why: `draw ${pick.body.company}, a company it leads` };
  }
  const liked = display.filter((a) => interest(obs, a.body.company) > 0);
  if (liked.length > 0) {
    const pick = best(liked, (a) => interest(obs, a.body.company));
    return { action: pick, why: `draw ${pick.body.company}, a company it holds` };
  }
  const deck = actions.find((a) => a.body.source === 'deck');
  if (deck) return { action: deck, why: 'draw blind' };
  return { action: actions[0], why: 'only draw left' };
}

// A hand share is useless when this seat has nothing invested in the company and
// another player's lead (counting the cards known to be in its hand) exceeds
// everything this seat could add by 3 or more.
function chooseExchange(obs, actions) {
  const mine = myPlayer(obs).invested;
  let pick = null;
  let worst = 0;
  for (const a of actions) {
    const code = a.body.company;
    if (!code || code === 'UP' || count(mine, code) > 0 || count(obs.hand.shares, code) === 0) continue;
    const deficit = bestOtherThreat(obs, code) - count(obs.hand.shares, code);
    if (deficit >= 3 && deficit > worst) {
      pick = a;
      worst = deficit;
    }
  }
  if (pick) return { action: pick, why: `exchange useless ${pick.body.company}` };
  const none = actions.find((a) => !a.body.company);
  return { action: none || actions[0], why: 'exchange nothing' };
}

// ------------------------------------------------------------------ strategy: Ticket to Ride
//
// A simple plan: for each ticket not yet completed, the shortest chain of routes
// (by trains) between its cities over routes this seat owns (free) or that are
// still unclaimed. Claim a route of a chain when the hand pays it; otherwise take
// a face-up card of a colour a chain needs, else a blind card. Keep as few
// tickets as allowed (the cheapest), take the share of the richest company.
// `board` is the TicketToRidePennsylvaniaBoard of StartMatch; `obs` the
// TicketToRidePennsylvaniaObservation: obs.routes[i] is route i's owner (-1: none).

function ticketEnds(board, place) {
  const alias = board.locations && board.locations[place];
  return alias ? alias.nodes : [place];
}

// The routes of the cheapest chain from `from` to `to` (node lists), or null.
function chain(board, obs, from, to) {
  const dist = new Map(from.map((n) => [n, 0]));
  const via = new Map();
  const done = new Set();
  let u;
  for (;;) {
    u = null;
    for (const [n, d] of dist) if (!done.has(n) && (u === null || d < dist.get(u))) u = n;
    if (u === null) return null; // no chain left
    if (to.includes(u)) break;
    done.add(u);
    board.routes.forEach((r, i) => {
      if (r.a !== u && r.b !== u) return;
      const owner = obs.routes[i];
      if (owner !== -1 && owner !== obs.seat) return;
      const v = r.a === u ? r.b : r.a;
      const d = dist.get(u) + (owner === obs.seat ? 0 : r.length);
      if (!dist.has(v) || d < dist.get(v)) {
        dist.set(v, d);
        via.set(v, i);
      }
    });
  }
  const routes = [];
  while (via.has(u)) {
    const i = via.get(u);
    routes.push(i);
    u = board.routes[i].a === u ? board.routes[i].b : board.routes[i].a;
  }
  return routes;
}

// Unclaimed routes on the chains of this seat's tickets, by route id.
function plannedRoutes(board, obs) {
  const planned = new Set();
  for (const id of obs.tickets) {
    const ticket = board.tickets.find((t) => t.id === id);
    if (!ticket) continue;
    const routes = chain(board, obs, ticketEnds(board, ticket.a), ticketEnds(board, ticket.b)) || [];
    for (const i of routes) if (obs.routes[i] === -1) planned.add(board.routes[i].id);
  }
  return planned;
}

function ticketPoints(board, id) {
  const ticket = board.tickets.find((t) => t.id === id);
  return ticket ? ticket.points : 0;
}

function ttrKeep(board, obs, actions) {
  const pick = best(actions, (a) => -100 * a.body.positions.length
    - a.body.positions.reduce((s, p) => s + ticketPoints(board, obs.offered_tickets[p]), 0));
  return { action: pick, why: `keep ${pick.body.positions.length} tickets, the shortest` };
}

function ttrDraw(board, obs, actions, planned) {
  const wanted = new Set();
  for (const r of board.routes) if (planned.has(r.id) && r.colour !== 'grey') wanted.add(r.colour);
  const take = actions.find((a) => a.kind === 'take' && wanted.has(a.body.card));
  if (take) return { action: take, why: `take ${take.body.card}, a colour the plan needs` };
  const blind = actions.find((a) => a.kind === 'blind');
  if (blind) return { action: blind, why: 'draw blind' };
  const any = actions.find((a) => a.kind === 'take' && a.body.card !== 'locomotive');
  return { action: any || actions[0], why: 'take what shows' };
}

function ttrTurn(board, obs, actions) {
  const planned = plannedRoutes(board, obs);
  const claims = actions.filter((a) => a.kind === 'claim');
  const length = (a) => board.routes.find((r) => r.id === a.body.route).length;
  const onPlan = claims.filter((a) => planned.has(a.body.route));
  if (onPlan.length > 0) {
    const pick = best(onPlan, (a) => 10 * length(a) - a.body.locomotives);
    return { action: pick, why: `claim ${pick.body.route} for a ticket` };
  }
  const long = claims.filter((a) => length(a) >= 4 || obs.final_round);
  if (long.length > 0) {
    const pick = best(long, (a) => 10 * length(a) - a.body.locomotives);
    return { action: pick, why: `claim ${pick.body.route} for its points` };
  }
  const tickets = actions.find((a) => a.kind === 'draw_tickets');
  const me = obs.players.find((p) => p.seat === obs.seat);
  if (planned.size === 0 && tickets && me && me.trains >= 15) return { action: tickets, why: 'tickets done: draw new ones' };
  const draws = actions.filter((a) => a.kind === 'take' || a.kind === 'blind');
  if (draws.length > 0) return ttrDraw(board, obs, draws, planned);
  return { action: claims[0] || actions[0], why: 'the only kind of action left' };
}

function chooseTicketToRide(board, obs, actions) {
  const richest = (a) => {
    const company = board.companies.find((c) => c.code === a.body.company);
    return company ? company.points[0] : 0;
  };
  switch (obs.decision) {
    case 'initial_tickets':
    case 'keep_tickets':
      return ttrKeep(board, obs, actions);
    case 'share': {
      const pick = best(actions, (a) => (a.body.company ? richest(a) : -1));
      return { action: pick, why: `share ${pick.body.company || 'none'}` };
    }
    case 'neutral_share': {
      const pick = best(actions, (a) => -richest(a));
      return { action: pick, why: `neutral share ${pick.body.company}` };
    }
    case 'second_card':
      return ttrDraw(board, obs, actions, plannedRoutes(board, obs));
    default:
      return ttrTurn(board, obs, actions);
  }
}

// ------------------------------------------------------------------ decisions

// The legal actions of `game` as {index, text, kind, body}: `kind` is the member set in the
// game's action `kind` oneof (e.g. "claim"), `body` its fields.
function actionsOf(legal, game) {
  return legal.map((a, i) => {
    const member = a[game] || {};
    const kind = member.kind || null;
    return { index: i, text: a.text, kind, body: (kind && member[kind]) || {} };
  });
}

// The index of the chosen legal action, always within range. `match` is what StartMatch said.
function decide(request, match) {
  const legal = request.legal_actions || [];
  if (legal.length === 0) return { index: 0, why: 'no legal actions given' };
  const game = request.observation && request.observation.game; // the oneof member that is set
  let choice;
  if (game === TICKET_TO_RIDE) {
    const board = match && match.board && match.board.ticket_to_ride_pennsylvania;
    const obs = request.observation.ticket_to_ride_pennsylvania;
    choice = board ? chooseTicketToRide(board, obs, actionsOf(legal, game)) : null;
    if (!choice || !choice.action) choice = { action: { index: 0 }, why: 'no board: first action' };
    return checked(choice, legal);
  }
  const obs = request.observation && request.observation.union_pacific;
  const actions = actionsOf(legal, UNION_PACIFIC);
  if (!obs) {
    choice = { action: actions[0], why: 'no union_pacific observation' };
  } else {
    const byKind = (k) => actions.filter((a) => a.kind === k);
    switch (obs.decision) {
      case 'first_invest':
        choice = byKind('first_invest').length ? chooseFirstInvest(obs, byKind('first_invest')) : null;
        break;
      case 'main':
        choice = chooseMain(obs, actions);
        break;
      case 'draw_share':
        choice = byKind('draw').length ? chooseDraw(obs, byKind('draw')) : null;
        break;
      case 'exchange':
        choice = byKind('exchange').length ? chooseExchange(obs, byKind('exchange')) : null;
        break;
      default:
        choice = null;
    }
    if (!choice || !choice.action) choice = { action: actions[0], why: `fallback for decision ${obs.decision}` };
  }
  return checked(choice, legal);
}

function checked(choice, legal) {
  const index = choice.action.index;
  if (!Number.isInteger(index) || index < 0 || index >= legal.length) return { index: 0, why: 'fallback' };
  return { index, why: choice.why };
}

// ------------------------------------------------------------------- service

// One process may hold several seats of one match: key by match id and seat.
// Each match keeps a tally of the public record: every Decide carries the events since this
// seat's previous decision (observation.public_events), each with `kind` naming its member.
const matches = new Map(); // `${match_id}/${seat}` -> {game, num_players, variant, board, tallies}
const matchKey = (r) => `${r.match_id}/${r.seat}`;

function record(request) {
  const seen = matches.get(matchKey(request));
  const game = request.observation && request.observation.game;
  const obs = game && request.observation[game]; // either game's observation has public_events
  if (!seen || !obs) return;
  for (const event of obs.public_events || []) {
    seen.events += 1;
    if (event.kind === 'build') seen.builds += 1;
    if (event.kind === 'dividend') seen.dividends += 1;
    if (event.kind === 'claim') seen.claims += 1;
  }
}

function tally(seen) {
  if (seen.game === TICKET_TO_RIDE) return `; saw ${seen.events} public events (${seen.claims} claims)`;
  return `; saw ${seen.events} public events (${seen.builds} builds, ${seen.dividends} dividends)`;
}

const service = {
  Describe(call, callback) {
    const hostVersion = call.request.protocol_version;
    if (hostVersion && hostVersion !== PROTOCOL_VERSION) {
      log(`host speaks protocol ${hostVersion}, this bot ${PROTOCOL_VERSION}`);
    }
    callback(null, { ...IDENTITY, games: GAMES, protocol_version: PROTOCOL_VERSION });
  },

  StartMatch(call, callback) {
    const r = call.request;
    if (!GAMES.includes(r.game)) {
      callback({ code: grpc.status.INVALID_ARGUMENT, details: `this bot plays ${GAMES.join(', ')}, not ${r.game}` });
      return;
    }
    matches.set(matchKey(r), { game: r.game, num_players: r.num_players, variant: r.variant, board: r.board,
      events: 0, builds: 0, dividends: 0, claims: 0 });
    log(`match ${r.match_id}: ${r.game}, seat ${r.seat} of ${r.num_players} (${r.variant}); ${matches.size} open`);
    callback(null, {});
  },

  Decide(call, callback) {
    let result;
    try {
      record(call.request);
      result = decide(call.request, matches.get(matchKey(call.request)));
    } catch (err) {
      log(`match ${call.request.match_id}: decision failed, playing index 0:`, err && err.stack ? err.stack : err);
      result = { index: 0, why: 'error' };
    }
    callback(null, { action_index: result.index, debug: String(result.why).slice(0, 200) });
  },

  EndMatch(call, callback) {
    const r = call.request;
    const termination = r.result ? r.result.termination : 'unknown';
    const place = r.result && r.result.places ? r.result.places[String(r.seat)] : undefined;
    const seen = matches.get(matchKey(r));
    matches.delete(matchKey(r));
    log(`match ${r.match_id} over (${termination}): place ${place}${r.forfeited ? ', forfeited' : ''}${seen ? tally(seen) : ''}`);
    callback(null, {});
  },
};

// ---------------------------------------------------------------------- main

// The value of option `name` (`--name VALUE` or `--name=VALUE`; the last one wins), or undefined.
function option(argv, name) {
  let value;
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === name && i + 1 < argv.length) value = argv[i + 1];
    else if (argv[i].startsWith(`${name}=`)) value = argv[i].slice(name.length + 1);
  }
  return value;
}

function parsePort(argv, env) {
  const text = option(argv, '--port') ?? env.ARENA_BOT_PORT;
  const port = Number(text);
  return Number.isInteger(port) && port > 0 && port < 65536 ? port : null;
}

// The socket file of a unix:PATH or unix:///ABSOLUTE/PATH address, else null.
function socketPath(address) {
  if (address.startsWith('unix://')) return address.slice('unix://'.length);
  if (address.startsWith('unix:')) return address.slice('unix:'.length);
  return null;
}

function validAddress(address) {
  const file = socketPath(address);
  if (file !== null) return file.length > 0 && (!address.startsWith('unix://') || file.startsWith('/'));
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$/.exec(address);
  return m !== null && Number(m[2]) > 0 && Number(m[2]) < 65536;
}

// Where to listen: {address, source}, or {error} saying what is wrong.
function listenAddress(argv, env) {
  const fromEnv = (env.ARENA_BOT_ADDRESS || '').trim();
  const fromArg = option(argv, '--address');
  let address;
  let source;
  if (fromEnv) {
    [address, source] = [fromEnv, 'ARENA_BOT_ADDRESS'];
  } else if (fromArg !== undefined) {
    [address, source] = [fromArg.trim(), '--address'];
  } else {
    const text = option(argv, '--port') ?? env.ARENA_BOT_PORT;
    source = option(argv, '--port') !== undefined ? '--port' : 'ARENA_BOT_PORT';
    if (text === undefined || String(text).trim() === '') {
      return { error: 'no address to listen on: the host sets ARENA_BOT_ADDRESS; by hand, pass '
        + '--address unix:/path/bot.sock, --address HOST:PORT or --port N (or set ARENA_BOT_PORT)' };
    }
    const port = parsePort(argv, env);
    if (port === null) return { error: `${source}: port must be 1 to 65535, got ${JSON.stringify(text)}` };
    return { address: `127.0.0.1:${port}`, source };
  }
  if (!validAddress(address)) {
    return { error: `${source}: ${JSON.stringify(address)} is not an address to listen on: `
      + 'give unix:/path/to/bot.sock or HOST:PORT (port 1 to 65535)' };
  }
  return { address, source };
}

// grpc-js will not bind over an existing file: remove a socket left by a process that is
// gone, but never one another process still listens on, nor a file that is not a socket.
function clearStaleSocket(file, done) {
  let stat;
  try {
    stat = fs.lstatSync(file);
  } catch (err) {
    done(err.code === 'ENOENT' ? null : err);
    return;
  }
  if (!stat.isSocket()) {
    done(new Error(`${file} exists and is not a socket; not replacing it`));
    return;
  }
  const probe = net.createConnection({ path: file });
  probe.on('connect', () => {
    probe.destroy();
    done(new Error(`another process is listening on ${file}`));
  });
  probe.on('error', (err) => {
    if (err.code !== 'ECONNREFUSED') {
      done(new Error(`cannot tell whether ${file} is in use: ${err.message}`));
      return;
    }
    try {
      fs.unlinkSync(file);
      log(`removed the stale socket ${file}`);
      done(null);
    } catch (unlinkErr) {
      done(unlinkErr.code === 'ENOENT' ? null : unlinkErr);
    }
  });
}

function main() {
  const where = listenAddress(process.argv.slice(2), process.env);
  if (where.error) {
    log(where.error);
    log('usage: node bot.js [--address unix:/path/bot.sock | --address HOST:PORT | --port PORT]');
    process.exit(2);
  }
  const { address, source } = where;
  const definition = protoLoader.loadSync(PROTO_PATH, {
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const arena = grpc.loadPackageDefinition(definition).arena.v1;
  const server = new grpc.Server();
  server.addService(arena.Bot.service, service);

  const stop = (why) => {
    log(`${why}; exiting`);
    server.forceShutdown();
    process.exit(0);
  };
  // The host keeps stdin open and never writes to it: EOF means it is gone.
  process.stdin.on('end', () => stop('stdin closed'));
  process.stdin.on('error', () => stop('stdin failed'));
  process.stdin.on('data', () => {});
  process.stdin.resume();
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  const file = socketPath(address);
  const bind = () => server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err) => {
    if (err) {
      log(`cannot listen on ${address}: ${err.message}`);
      process.exit(1);
    }
    // grpc-js removes the socket file when the server shuts down.
    log(`serving arena.v1.Bot on ${address} (from ${source}, pid ${process.pid})`);
  });
  if (file === null) {
    bind();
  } else {
    clearStaleSocket(file, (err) => {
      if (err) {
        log(`cannot listen on ${address}: ${err.message}`);
        process.exit(1);
      }
      bind();
    });
  }
}

if (require.main === module) {
  main();
}

module.exports = { decide, listenAddress, parsePort };
