// Cash over time in the replay viewer: one step line per participant over the replay's
// steps, read from the folded states (cash changes only at dividend events).  Plain SVG;
// the series' colours and dashes come from the stylesheet (series-0 … series-5, imaginary).

import { svgEl } from "../../replay-svg.js";

const H = 200, LEFT = 40, RIGHT = 14, TOP = 12, BOTTOM = 30;

function niceStep(max) {
  const raw = max / 4;
  const p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1))));
  return [1, 2, 5, 10].map(function (m) { return m * p; }).find(function (s) { return s >= raw; }) || p * 10;
}

export function drawCashChart(svg, states, events, words, onPick) {
  // As wide in SVG units as on screen (within reason), so that its text is about 11 pixels.
  const W = Math.round(Math.max(320, Math.min(640, svg.getBoundingClientRect().width || 640)));
  const last = states.length - 1;
  const ids = states[0].players.map(function (_, seat) { return String(seat); });
  if (states[last].imaginary) ids.push("imaginary");
  const cashAt = function (state, id) {
    if (id === "imaginary") return state.imaginary ? state.imaginary.cash : null;
    return state.players[Number(id)].cash;
  };
  const top = Math.max(10, Math.max.apply(null, ids.map(function (id) { return cashAt(states[last], id) || 0; })));
  const step = niceStep(top);
  const high = Math.ceil(top / step) * step;
  const x = function (i) { return LEFT + (W - LEFT - RIGHT) * (last ? i / last : 0.5); };
  const y = function (cash) { return TOP + (H - TOP - BOTTOM) * (1 - cash / high); };

  svg.setAttribute("viewBox", "0 0 " + W + " " + H);
  for (let v = 0; v <= high; v += step) {
    svg.appendChild(svgEl("line", { class: "grid", x1: LEFT, x2: W - RIGHT, y1: y(v), y2: y(v) }));
    svg.appendChild(svgEl("text", { class: "tick", x: LEFT - 5, y: y(v) + 4, "text-anchor": "end" }, v));
  }
  let labelEnd = -Infinity, row = 0;
  events.forEach(function (ev, i) {
    if (ev.type !== "dividend") return;
    const line = svgEl("line", { class: "dividend-line", x1: x(i), x2: x(i), y1: TOP, y2: H - BOTTOM });
    line.appendChild(svgEl("title", null, "dividend " + ev.number + " (step " + (i + 1) + ")"));
    svg.appendChild(line);
    row = x(i) - 9 < labelEnd && row === 0 ? 1 : 0;  // a label that would overlap the last one goes a row lower
    labelEnd = x(i) + 9;
    svg.appendChild(svgEl("text", { class: "tick", x: x(i), y: H - BOTTOM + 13 + 10 * row, "text-anchor": "middle" }, "D" + ev.number));
  });
  ids.forEach(function (id, n) {
    // A step line: flat between dividends, a vertical jump at each.
    const points = [];
    let previous = null;
    states.forEach(function (state, i) {
      const cash = cashAt(state, id);
      if (cash === null) return;
      if (previous === null) points.push([x(i), y(cash)]);
      else if (cash !== previous) { points.push([x(i), y(previous)]); points.push([x(i), y(cash)]); }
      previous = cash;
    });
    if (previous === null) return;
    points.push([x(last), y(previous)]);
    const series = "series series-" + (id === "imaginary" ? "imaginary" : n);
    const line = svgEl("polyline", { class: series, points: points.map(function (p) { return p[0].toFixed(1) + "," + p[1].toFixed(1); }).join(" "), "data-participant": id });
    line.appendChild(svgEl("title", null, words.who(id) + ": $" + previous + " at the end"));
    svg.appendChild(line);
  });
  const cursor = svgEl("line", { class: "cursor", x1: LEFT, x2: LEFT, y1: TOP, y2: H - BOTTOM });
  svg.appendChild(cursor);

  // Pick a step by clicking (or tapping) the chart.
  svg.addEventListener("click", function (event) {
    const box = svg.getBoundingClientRect();
    const at = (event.clientX - box.left) * W / box.width;
    const i = Math.round((at - LEFT) / (W - LEFT - RIGHT) * last);
    onPick(Math.max(0, Math.min(last, i)));
  });

  return {
    ids: ids,
    cashAt: cashAt,  // a participant's cash in a state (null: the imaginary shareholder is not in play yet)
    show: function (i) {
      cursor.setAttribute("x1", x(i).toFixed(1));
      cursor.setAttribute("x2", x(i).toFixed(1));
    },
  };
}
