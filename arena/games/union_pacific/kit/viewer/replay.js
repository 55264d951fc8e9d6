// Union Pacific's replay viewer (an ES module served from the game's kit): the board, the
// panels and the words of this game; the controls, the address, the event list and the
// steps' states are the web app's (/static/replay-core.js).
//
// Every number on screen is the engine's: the view (/api/replay-view/MATCH) holds the game
// after each event as the engine had it, and each dividend's payout rule as its holdings
// met it; the words read the events the engine emitted (docs/replay-format.md).

import { boot, el } from "../../replay-core.js";
import { makeWords } from "./replay-words.js";
import { drawBoard, zoomable } from "./replay-board.js";
import { makePanels } from "./replay-panels.js";
import { drawCashChart } from "./replay-chart.js";

function byId(id) {
  return document.getElementById(id);
}

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
  const zoom = zoomable(byId("board-scroll"), svg, { in: byId("zoom-in"), out: byId("zoom-out"), fit: byId("zoom-fit") },
    function () { drawn.layoutLabels(); byId("zoom-label").textContent = byId("board-scroll").dataset.zoom + "×"; });
  let resizing = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(drawn.layoutLabels, 150);
  });
  let controls = null;
  const chart = shown ? drawCashChart(byId("cash-chart"), shown, events, words, function (i) { controls.go(i, "push"); }) : null;
  const chartLegend = byId("cash-legend");
  if (!chart) byId("cash-chart").style.display = "none";
  (chart ? chart.ids : []).forEach(function (id, n) {
    const item = el("span", { class: "legend-item", "data-participant": id });
    const swatch = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    swatch.setAttribute("width", "26");
    swatch.setAttribute("height", "10");
    swatch.setAttribute("aria-hidden", "true");
    const line = document.createElementNS("http://www.w3.org/2000/svg", "line");
    [["x1", 1], ["y1", 5], ["x2", 25], ["y2", 5], ["class", "series series-" + (id === "imaginary" ? "imaginary" : n)]]
      .forEach(function (a) { line.setAttribute(a[0], a[1]); });
    swatch.appendChild(line);
    item.appendChild(swatch);
    item.appendChild(el("span", { class: "bot-name" }, words.who(id)));
    item.appendChild(el("span", { class: "legend-cash", "data-chart-cash": id }, ""));
    chartLegend.appendChild(item);
  });

  const marks = [];
  events.forEach(function (ev, i) {
    if (ev.type === "dividend") marks.push({ step: i, kind: "dividend", title: "dividend " + ev.number + " (step " + (i + 1) + ")" });
  });

  return {
    who: words.who,
    describe: words.describe,
    turnHead: function (ev) { return ev.type === "turn" ? "Turn " + ev.turn + " · " + words.who(ev.seat) : null; },
    label: function (step, state) { return state ? "turn " + state.turn + " · dividends paid " + state.paid : "the stored events only"; },
    marks: marks,
    jump: { id: "btn-dividend", label: "Next dividend", title: "next dividend (D)", key: "d", is: function (ev) { return ev.type === "dividend"; } },
    bind: function (c) { controls = c; },
    onKey: function (key) {
      if (key === "+" || key === "=") { zoom.zoomIn(); return true; }
      if (key === "-") { zoom.zoomOut(); return true; }
      return false;
    },
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
        const cash = id === "imaginary" ? (state.imaginary ? state.imaginary.cash : null) : state.players[Number(id)].cash;
        const node = chartLegend.querySelector("[data-chart-cash='" + id + "']");
        if (node) node.textContent = cash === null ? "" : " $" + cash;
      });
    },
  };

}

boot(viewer);
