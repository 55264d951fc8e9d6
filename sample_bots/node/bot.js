#!/usr/bin/env node
// Sample Arena bot for Union Pacific, in JavaScript (Node.js).
//
// Built only from protos/arena/v1/bot.proto (loaded at run time) and
// docs/protocol.md. It serves the arena.v1.Bot gRPC service on
// 127.0.0.1:<port>, plays many matches at once, logs to stderr only and exits
// as soon as its stdin closes (the host is gone).
//
//   node bot.js --port 50051        (or ARENA_BOT_PORT=50051 node bot.js)
'use strict';

const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_PATH = path.join(__dirname, '..', '..', 'protos', 'arena', 'v1', 'bot.proto');
const PROTOCOL_VERSION = 1;
const GAME = 'union_pacific';
const IDENTITY = {
  name: 'node-sample',
  version: '1.0.0',
  author: 'Arena',
  language: 'javascript',
};

function log(...parts) {
  console.error(`[${IDENTITY.name}]`, ...parts);
}

// ------------------------------------------------------------------ strategy
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
// another player's lead exceeds everything this seat could add by 3 or more.
function chooseExchange(obs, actions) {
  const mine = myPlayer(obs).invested;
  let pick = null;
  let worst = 0;
  for (const a of actions) {
    const code = a.body.company;
    if (!code || code === 'UP' || count(mine, code) > 0 || count(obs.hand.shares, code) === 0) continue;
    const deficit = bestOther(obs, code) - count(obs.hand.shares, code);
    if (deficit >= 3 && deficit > worst) {
      pick = a;
      worst = deficit;
    }
  }
  if (pick) return { action: pick, why: `exchange useless ${pick.body.company}` };
  const none = actions.find((a) => !a.body.company);
  return { action: none || actions[0], why: 'exchange nothing' };
}

// The index of the chosen legal action, always within range.
function decide(request) {
  const legal = request.legal_actions || [];
  if (legal.length === 0) return { index: 0, why: 'no legal actions given' };
  const obs = request.observation && request.observation.union_pacific;
  const actions = legal.map((a, i) => {
    const up = a.union_pacific || {};
    const kind = up.kind || null;
    return { index: i, text: a.text, kind, body: (kind && up[kind]) || {} };
  });
  let choice;
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
  const index = choice.action.index;
  if (!Number.isInteger(index) || index < 0 || index >= legal.length) return { index: 0, why: 'fallback' };
  return { index, why: choice.why };
}

// ------------------------------------------------------------------- service

// One process may hold several seats of one match: key by match id and seat.
const matches = new Map(); // `${match_id}/${seat}` -> {num_players, variant, board}
const matchKey = (r) => `${r.match_id}/${r.seat}`;

const service = {
  Describe(call, callback) {
    const hostVersion = call.request.protocol_version;
    if (hostVersion && hostVersion !== PROTOCOL_VERSION) {
      log(`host speaks protocol ${hostVersion}, this bot ${PROTOCOL_VERSION}`);
    }
    callback(null, { ...IDENTITY, games: [GAME], protocol_version: PROTOCOL_VERSION });
  },

  StartMatch(call, callback) {
    const r = call.request;
    if (r.game !== GAME) {
      callback({ code: grpc.status.INVALID_ARGUMENT, details: `this bot plays only ${GAME}, not ${r.game}` });
      return;
    }
    matches.set(matchKey(r), { num_players: r.num_players, variant: r.variant, board: r.board });
    log(`match ${r.match_id}: seat ${r.seat} of ${r.num_players} (${r.variant}); ${matches.size} open`);
    callback(null, {});
  },

  Decide(call, callback) {
    let result;
    try {
      result = decide(call.request);
    } catch (err) {
      log(`match ${call.request.match_id}: decision failed, playing index 0:`, err && err.stack ? err.stack : err);
      result = { index: 0, why: 'error' };
    }
    callback(null, { action_index: result.index, debug: String(result.why).slice(0, 200) });
  },

  EndMatch(call, callback) {
    const r = call.request;
    matches.delete(matchKey(r));
    const termination = r.result ? r.result.termination : 'unknown';
    const place = r.result && r.result.places ? r.result.places[String(r.seat)] : undefined;
    log(`match ${r.match_id} over (${termination}): place ${place}${r.forfeited ? ', forfeited' : ''}`);
    callback(null, {});
  },
};

// ---------------------------------------------------------------------- main

function parsePort(argv, env) {
  let text = env.ARENA_BOT_PORT;
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--port' && i + 1 < argv.length) text = argv[i + 1];
    else if (argv[i].startsWith('--port=')) text = argv[i].slice('--port='.length);
  }
  const port = Number(text);
  return Number.isInteger(port) && port > 0 && port < 65536 ? port : null;
}

function main() {
  const port = parsePort(process.argv.slice(2), process.env);
  if (port === null) {
    log('usage: node bot.js --port PORT (or set ARENA_BOT_PORT)');
    process.exit(2);
  }
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

  server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err, bound) => {
    if (err) {
      log(`cannot listen on 127.0.0.1:${port}: ${err.message}`);
      process.exit(1);
    }
    log(`serving arena.v1.Bot on 127.0.0.1:${bound}`);
  });
}

if (require.main === module) {
  main();
}

module.exports = { decide, parsePort };
