// Union Pacific's replay viewer (an ES module served from the game's kit): the board, the
// panels and the words of this game; the controls, the address, the event list and the
// steps' states are the web app's (/static/replay-core.js).
//
// Every number on screen is the engine's: the view (/api/replay-view/MATCH) holds the game
// after each event as the engine had it, and each dividend's payout rule as its holdings
// met it; the words read the events the engine emitted (docs/replay-format.md).

import { boot, byId, el, eventMarks } from "../../replay-core.js";
import { lineSample, zoomBoard } from "../../replay-svg.js";
import { makeWords } from "./replay-words.js";
import { drawBoard, ZOOMS } from "./replay-board.js";
import { makePanels } from "./replay-panels.js";
import { drawCashChart } from "./replay-chart.js";

function viewer(match, view, board, shown) {
  const replay = match.replay;
  const events = replay.events;
  const words = makeWords(replay, board, view);
  const panels = makePanels(replay, board, words);
  const gameEnd = events.findIndex(function (ev) { return ev.type === "game_end"; });

  // -- the board, its zoom, the chart ----------------------------------------------------------
  const svg = byId("board");
  const drawn = drawBoard(svg, board, words, view.starts);
  panels.legend(byId("legend"));
  const zoom = zoomBoard(svg, drawn.layoutLabels, ZOOMS);
  let controls = null;
  const chart = shown ? drawCashChart(byId("cash-chart"), shown, events, words, function (i) { controls.go(i, "push"); }) : null;
  const chartLegend = byId("cash-legend");
  if (!chart) byId("cash-chart").style.display = "none";
  (chart ? chart.ids : []).forEach(function (id, n) {
    const item = el("span", { class: "legend-item", "data-participant": id });
    item.appendChild(lineSample(26, { class: "series series-" + (id === "imaginary" ? "imaginary" : n) }));
    item.appendChild(el("span", { class: "bot-name" }, words.who(id)));
    item.appendChild(el("span", { class: "legend-cash", "data-chart-cash": id }, ""));
    chartLegend.appendChild(item);
  });

  const marks = eventMarks(events, function (ev) { return ev.type === "dividend" ? ["dividend", "dividend " + ev.number] : null; });

  return {
    who: words.who,
    describe: words.describe,
    label: function (step, state) { return "turn " + state.turn + " · dividends paid " + state.paid; },
    marks: marks,
    jump: { id: "btn-dividend", label: "Next dividend", title: "next dividend (D)", key: "d", is: function (ev) { return ev.type === "dividend"; } },
    bind: function (c) { controls = c; },
    onKey: zoom.onKey,
    render: function (step, state, ev) {
      panels.dividend(byId("dividend-panel"), ev, view.dividends ? view.dividends[String(step)] : null);
      panels.final(byId("final-panel"), gameEnd >= 0 && step >= gameEnd ? events[gameEnd] : null);
      if (!state) return;  // no view: the board and the panels stay empty
      drawn.render(state);
      panels.seats(byId("seats-table"), state);
      panels.supply(byId("supply"), state);
      panels.companies(byId("companies-table"), state);
      chart.show(step);
      chart.ids.forEach(function (id) {
        const cash = chart.cashAt(state, id);
        const node = chartLegend.querySelector("[data-chart-cash='" + id + "']");
        if (node) node.textContent = cash === null ? "" : " $" + cash;
      });
    },
  };

}

boot(viewer);
