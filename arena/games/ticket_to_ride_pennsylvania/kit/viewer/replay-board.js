// Ticket to Ride: Pennsylvania's board in the replay viewer: cities at their coordinates, each
// route as a row of cars in its colour with its length on it (double routes side by side,
// ferries dashed), a claimed route in its seat's colour with the seat's shape and letter at
// its middle, so that it reads without colour too.

import { mapCities, shapeIcon, shapePath, sizeLabels, svgEl } from "../../replay-svg.js";

const WIDTH = 1000, PAD = 40, CITY_R = 5.5, CAR_W = 7, GAP = 1.6, LABEL_PX = 11, MARK_R = 6;
export const ZOOMS = [1, 1.5, 2, 3];  // the board's zoom levels (replay-svg.js's zoomBoard)

// A seat's shape in its colour with its letter (legend, tables).
export function seatMark(style, size) {
  const icon = shapeIcon("seat-mark", style.shape, style.colour, size, { stroke: "#111", "stroke-width": 0.9 });
  icon.appendChild(svgEl("text", { x: 8, y: 8.5, "font-size": 7, "font-weight": 800, fill: "#fff", "text-anchor": "middle", "dominant-baseline": "central" }, style.letter));
  return icon;
}

function dark(hex) {
  const n = parseInt(hex.slice(1), 16);
  return ((n >> 16) * 299 + ((n >> 8) & 255) * 587 + (n & 255) * 114) / 1000 < 120;
}

// -- the board ---------------------------------------------------------------------------------

export function drawBoard(svg, board, who) {
  const map = mapCities(svg, board.cities, WIDTH, PAD);
  const height = map.height;
  const at = {}, names = {};
  board.cities.forEach(function (c) {
    at[c.id] = map.at(c);
    names[c.id] = c.name;
  });
  const routesLayer = svgEl("g", { class: "routes" });
  const marksLayer = svgEl("g", { class: "owner-marks" });
  const citiesLayer = svgEl("g", { class: "cities" });
  const labels = svgEl("g", { class: "city-labels" });
  const routeById = {};
  board.routes.forEach(function (r) { routeById[r.id] = r; });
  const nodes = {};
  board.routes.forEach(function (r) {
    const a = at[r.a], b = at[r.b];
    const dx = b[0] - a[0], dy = b[1] - a[1];
    const len = Math.hypot(dx, dy);
    const angle = Math.atan2(dy, dx) * 180 / Math.PI;
    // A double route's two tracks run side by side: the first of the pair above, its partner below.
    const offset = r.double_with === null ? 0 : (r.index < routeById[r.double_with].index ? -CAR_W * 0.62 : CAR_W * 0.62);
    const g = svgEl("g", { class: "route" + (r.ferry ? " ferry" : ""), "data-route": r.id, "data-colour": r.colour,
      "data-length": r.length, transform: "translate(" + a[0].toFixed(1) + " " + a[1].toFixed(1) + ") rotate(" + angle.toFixed(2) + ")" });
    const free = len - 2 * (CITY_R + 1.5);
    const car = Math.max(2, (free - GAP * (r.length - 1)) / r.length);
    const cars = [];
    for (let i = 0; i < r.length; i++) {
      const x = CITY_R + 1.5 + i * (car + GAP);
      const rect = svgEl("rect", { class: "car", x: x.toFixed(2), y: (offset - CAR_W / 2).toFixed(2), width: car.toFixed(2), height: CAR_W, rx: 1 });
      rect.style.fill = board.colours[r.colour] || "#aaa";
      g.appendChild(rect);
      cars.push(rect);
    }
    const mid = CITY_R + 1.5 + free / 2;
    const flip = Math.abs(angle) > 90;  // keep the number upright
    const label = svgEl("text", { class: "length" + (dark(board.colours[r.colour] || "#aaa") ? " on-dark" : ""), x: mid.toFixed(2), y: offset.toFixed(2),
      transform: flip ? "rotate(180 " + mid.toFixed(2) + " " + offset.toFixed(2) + ")" : "" }, r.length);
    g.appendChild(label);
    const title = svgEl("title", null, "");
    g.appendChild(title);
    routesLayer.appendChild(g);
    // The owner's mark sits at the middle of the route, unrotated.
    const rad = angle * Math.PI / 180;
    const mx = a[0] + Math.cos(rad) * mid - Math.sin(rad) * offset, my = a[1] + Math.sin(rad) * mid + Math.cos(rad) * offset;
    nodes[r.id] = { g: g, cars: cars, label: label, title: title, x: mx, y: my, mark: null, owner: undefined };
  });
  const items = [];
  board.cities.forEach(function (c) {
    const p = at[c.id];
    const g = svgEl("g", { class: "city", "data-city": c.id });
    g.appendChild(svgEl("circle", { cx: p[0].toFixed(1), cy: p[1].toFixed(1), r: CITY_R }));
    g.appendChild(svgEl("title", null, c.name));
    citiesLayer.appendChild(g);
    const label = svgEl("text", { class: "city-label", "data-city": c.id }, c.name);
    labels.appendChild(label);
    items.push({ node: label, x: p[0], y: p[1], routes: board.routes.filter(function (r) { return r.a === c.id || r.b === c.id; }).length });
  });
  items.sort(function (a, b) { return b.routes - a.routes; });  // the busiest cities are named first
  svg.appendChild(routesLayer);
  svg.appendChild(citiesLayer);
  svg.appendChild(marksLayer);
  svg.appendChild(labels);

  function routeText(r, owner) {
    return names[r.a] + "–" + names[r.b] + " · " + r.length + " · " + r.colour + (r.ferry ? " · ferry (" + r.locomotives + " locomotive" + (r.locomotives > 1 ? "s" : "") + ")" : "") +
      (r.double_with ? " · double" : "") + (r.companies.length ? " · shares: " + r.companies.join(", ") : "") +
      (owner === null ? " · open" : " · claimed by " + who(owner));
  }

  // Labels in screen pixels, re-laid when the board's width changes: each city's name to its
  // right, else to its left, else above; a name that would cover another is left out (the
  // city's tooltip still names it; zoom in to see it).
  function layoutLabels() {
    const size = sizeLabels(svg, labels, LABEL_PX, WIDTH);
    if (!size) return;
    const placed = [];
    const hit = function (a, b) { return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height; };
    items.forEach(function (item) {
      const tries = [[item.x + CITY_R + 2, item.y + size * 0.35, "start"], [item.x - CITY_R - 2, item.y + size * 0.35, "end"],
        [item.x, item.y - CITY_R - 3, "middle"], [item.x, item.y + CITY_R + size, "middle"]];
      item.node.classList.remove("unplaced");
      let ok = null;
      for (let i = 0; i < tries.length && ok === null; i++) {
        item.node.setAttribute("x", tries[i][0].toFixed(1));
        item.node.setAttribute("y", tries[i][1].toFixed(1));
        item.node.setAttribute("text-anchor", tries[i][2]);
        const box = item.node.getBBox();
        const inside = box.x >= 0 && box.x + box.width <= WIDTH && box.y >= 0 && box.y + box.height <= height;
        if (inside && !placed.some(function (p) { return hit(p, box); })) ok = box;
      }
      if (ok) placed.push(ok); else item.node.classList.add("unplaced");
    });
    svg.dataset.labelsShown = String(placed.length);
  }

  function render(state) {
    board.routes.forEach(function (r, i) {
      const n = nodes[r.id];
      const owner = state.owner[i];
      n.g.classList.toggle("last-claim", state.last_route === r.id);
      if (n.owner === owner) return;
      n.owner = owner;
      const style = owner === null ? null : board.seats[owner];
      n.cars.forEach(function (car) { car.style.fill = style ? style.colour : (board.colours[r.colour] || "#aaa"); });
      n.g.classList.toggle("claimed", owner !== null);
      if (owner === null) n.g.removeAttribute("data-owner"); else n.g.setAttribute("data-owner", owner);
      n.label.style.display = owner === null ? "" : "none";
      n.title.textContent = routeText(r, owner);
      if (n.mark) { n.mark.remove(); n.mark = null; }
      if (style) {
        const mark = svgEl("g", { class: "owner-mark", "data-route": r.id, "data-owner": owner, "data-shape": style.shape, "data-letter": style.letter });
        const path = svgEl("path", { d: shapePath(style.shape, n.x, n.y, MARK_R) });
        path.style.fill = style.colour;
        mark.appendChild(path);
        mark.appendChild(svgEl("text", { x: n.x.toFixed(1), y: (n.y + 0.4).toFixed(1) }, style.letter));
        mark.appendChild(svgEl("title", null, routeText(r, owner)));
        marksLayer.appendChild(mark);
        n.mark = mark;
      }
    });
  }
  return { render: render, layoutLabels: layoutLabels };
}
