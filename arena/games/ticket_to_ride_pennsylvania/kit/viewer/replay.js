// Ticket to Ride: Pennsylvania's replay viewer (an ES module served from the game's kit): the
// board, the panels and the words of this game; the controls, the address, the event list and
// the steps' states are the web app's (/static/replay-core.js).
//
// Every number on screen is the engine's: the view (/api/replay-view/MATCH) holds the game
// after each event as the engine had it; the final scores are the engine's scoring event.
// Text from the data (bot names above all) is only written with textContent.

import { boot, byId, el, eventMarks } from "../../replay-core.js";
import { zoomBoard } from "../../replay-svg.js";
import { drawBoard, seatMark, ZOOMS } from "./replay-board.js";
import { makeWords } from "./replay-words.js";
import { makePanels } from "./replay-panels.js";

function viewer(match, view, board) {
  const replay = match.replay;
  const events = replay.events;
  const words = makeWords(replay, board);
  const who = words.who;
  const panels = makePanels(replay, board, words);

  // -- the board and its zoom -------------------------------------------------------------------
  const svg = byId("board");
  const drawn = drawBoard(svg, board, who);
  const zoom = zoomBoard(svg, drawn.layoutLabels, ZOOMS);
  const legend = byId("legend");
  replay.seats.forEach(function (s) {
    const item = el("span", { class: "legend-item legend-seat", "data-seat": s.seat });
    item.appendChild(seatMark(board.seats[s.seat], 15));
    item.appendChild(el("span", { class: "bot-name" }, who(s.seat)));
    legend.appendChild(item);
  });
  legend.appendChild(el("span", { class: "legend-item muted" }, "open routes: cars in the route's colour, the number its length; claimed: the seat's colour and mark"));

  const marks = eventMarks(events, function (ev) {
    if (ev.type === "final_round") return ["milestone", "final round"];
    return ev.type === "scoring" ? ["milestone", "final scoring"] : null;
  });

  return {
    who: who,
    describe: words.describe,
    label: function (step, state) {
      const claimed = state.owner.filter(function (o) { return o !== null; }).length;
      return "turn " + state.turn + " · " + claimed + " routes claimed";
    },
    marks: marks,
    jump: { id: "btn-claim", label: "Next claim", title: "next claimed route (C)", key: "c", is: function (ev) { return ev.type === "claim"; } },
    onKey: zoom.onKey,
    render: function (step, state) {
      panels.final(byId("final-panel"), step);
      if (!state) return;  // no view: the board and the panels stay as they were drawn
      drawn.render(state);
      panels.seats(byId("seats-table"), state);
      panels.supply(byId("supply"), state);
      panels.companies(byId("companies-table"), state);
    },
  };
}

boot(viewer);
