// What the games' replay viewers share to draw on SVG: elements, the shapes that mark a
// company's trains or a seat's routes (so that they read without colour too), a map of the
// cities, and the board in its scrolling box with its zoom buttons and keys (the markup of
// templates/replay-board.html).  Each game's viewer (in its kit) imports them.

import { byId } from "./replay-core.js";

const SVG_NS = "http://www.w3.org/2000/svg";

export function svgEl(tag, attrs, text) {
  const node = document.createElementNS(SVG_NS, tag);
  if (attrs) Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// -- shapes --------------------------------------------------------------------------

function polygon(x, y, radius, degrees) {
  return degrees.map(function (d, i) {
    const a = d * Math.PI / 180;
    return (i ? "L" : "M") + (x + radius * Math.cos(a)).toFixed(2) + " " + (y + radius * Math.sin(a)).toFixed(2);
  }).join(" ") + " Z";
}

function star(x, y, r) {
  const points = [];
  for (let i = 0; i < 10; i++) {
    const a = (-90 + i * 36) * Math.PI / 180;
    const radius = i % 2 ? r * 0.55 : r * 1.35;
    points.push((i ? "L" : "M") + (x + radius * Math.cos(a)).toFixed(2) + " " + (y + radius * Math.sin(a)).toFixed(2));
  }
  return points.join(" ") + " Z";
}

function plus(x, y, r, turn) {
  const w = r * 0.42, l = r * 1.2;
  const pts = [[-w, -l], [w, -l], [w, -w], [l, -w], [l, w], [w, w], [w, l], [-w, l], [-w, w], [-l, w], [-l, -w], [-w, -w]];
  const c = Math.cos(turn), s = Math.sin(turn);
  return pts.map(function (p, i) {
    return (i ? "L" : "M") + (x + p[0] * c - p[1] * s).toFixed(2) + " " + (y + p[0] * s + p[1] * c).toFixed(2);
  }).join(" ") + " Z";
}

// The path of a shape named by the board data (a company's or a seat's "shape") centred on x, y.
export function shapePath(shape, x, y, r) {
  switch (shape) {
    case "square": { const s = r * 0.88; return "M" + (x - s) + " " + (y - s) + " h" + 2 * s + " v" + 2 * s + " h" + -2 * s + " Z"; }
    case "triangle-up": return polygon(x, y + r * 0.15, r * 1.3, [-90, 30, 150]);
    case "triangle-down": return polygon(x, y - r * 0.15, r * 1.3, [90, 210, 330]);
    case "triangle-right": return polygon(x - r * 0.15, y, r * 1.3, [0, 120, 240]);
    case "triangle-left": return polygon(x + r * 0.15, y, r * 1.3, [180, 300, 60]);
    case "diamond": return polygon(x, y, r * 1.25, [-90, 0, 90, 180]);
    case "star": return star(x, y, r);
    case "plus": return plus(x, y, r, 0);
    case "cross": return plus(x, y, r, Math.PI / 4);
    default: return "M" + (x - r) + " " + y + " a" + r + " " + r + " 0 1 0 " + 2 * r + " 0 a" + r + " " + r + " 0 1 0 " + -2 * r + " 0 Z";
  }
}

// A small SVG of a shape in a colour (legends, chips, table cells): class cls, size pixels
// square; pathAttrs: more attributes of its path.
export function shapeIcon(cls, shape, colour, size, pathAttrs) {
  const icon = svgEl("svg", { width: size, height: size, viewBox: "0 0 16 16", class: cls, "aria-hidden": "true" });
  const path = svgEl("path", Object.assign({ d: shapePath(shape, 8, 8, 5.2) }, pathAttrs));
  path.style.fill = colour;
  icon.appendChild(path);
  return icon;
}

// A sample of a line, width pixels wide, for a legend: lineAttrs style it.
export function lineSample(width, lineAttrs) {
  const sample = svgEl("svg", { width: width, height: 10, "aria-hidden": "true" });
  sample.appendChild(svgEl("line", Object.assign({ x1: 1, y1: 5, x2: width - 1, y2: 5 }, lineAttrs)));
  return sample;
}

// -- the map -------------------------------------------------------------------------------

// Cities ({lon, lat}) on a board width units wide with pad units round them: longitude
// scaled by the cosine of the middle latitude, north up.  Sets the svg's viewBox; returns
// {at(city) -> [x, y], height}.
export function mapCities(svg, cities, width, pad) {
  const lons = cities.map(function (c) { return c.lon; });
  const lats = cities.map(function (c) { return c.lat; });
  const minLon = Math.min.apply(null, lons), maxLon = Math.max.apply(null, lons);
  const minLat = Math.min.apply(null, lats), maxLat = Math.max.apply(null, lats);
  const k = Math.cos(((minLat + maxLat) / 2) * Math.PI / 180);
  const scale = (width - 2 * pad) / ((maxLon - minLon) * k);
  const height = Math.round((maxLat - minLat) * scale + 2 * pad);
  svg.setAttribute("viewBox", "0 0 " + width + " " + height);
  return {
    height: height,
    at: function (c) { return [pad + (c.lon - minLon) * k * scale, pad + (maxLat - c.lat) * scale]; },
  };
}

// City labels px screen pixels high whatever the zoom: sets the font size (in board units,
// the board width units wide) and the halo of the labels' group for the board's drawn width.
// Returns the size, or 0 while the board is not drawn.
export function sizeLabels(svg, labels, px, width) {
  const shown = svg.getBoundingClientRect().width;
  if (!shown) return 0;
  const size = Math.min(40, Math.max(4, px * width / shown));
  labels.setAttribute("font-size", size.toFixed(2));
  labels.setAttribute("stroke-width", (size * 0.28).toFixed(2));
  return size;
}

// -- zoom ----------------------------------------------------------------------------------

// Zoom buttons for a board inside a scrolling box: the board keeps the point in the middle
// of the box in the middle, and its labels are laid out again for the new size.  ZOOMS: the
// widths to step through, as multiples of the box's width (the first is 1).
function zoomable(box, svg, buttons, onChange, ZOOMS) {
  let level = 0;
  function set(next) {
    next = Math.max(0, Math.min(ZOOMS.length - 1, next));
    const before = svg.getBoundingClientRect().width || 1;
    const cx = (box.scrollLeft + box.clientWidth / 2) / before;
    const cy = (box.scrollTop + box.clientHeight / 2) / (svg.getBoundingClientRect().height || 1);
    level = next;
    svg.style.width = ZOOMS[level] * 100 + "%";
    box.dataset.zoom = String(ZOOMS[level]);
    box.classList.toggle("zoomed", level > 0);
    const after = svg.getBoundingClientRect();
    box.scrollLeft = cx * after.width - box.clientWidth / 2;
    box.scrollTop = cy * after.height - box.clientHeight / 2;
    buttons.out.disabled = level === 0;
    buttons.fit.disabled = level === 0;
    buttons.in.disabled = level === ZOOMS.length - 1;
    onChange();
  }
  buttons.in.addEventListener("click", function () { set(level + 1); });
  buttons.out.addEventListener("click", function () { set(level - 1); });
  buttons.fit.addEventListener("click", function () { set(0); });
  set(0);
  return { zoomIn: function () { set(level + 1); }, zoomOut: function () { set(level - 1); } };
}

// The board of a game's viewer as templates/replay-board.html lays it out (#board in
// #board-scroll, the zoom buttons, #zoom-label): zoom through ZOOMS by the buttons, and by
// the keys + (or =) and - through the returned onKey (start()'s game.onKey); labels are laid
// out again (layoutLabels()) at each zoom and when the window's size changes.
export function zoomBoard(svg, layoutLabels, ZOOMS) {
  const box = byId("board-scroll");
  const zoom = zoomable(box, svg, { in: byId("zoom-in"), out: byId("zoom-out"), fit: byId("zoom-fit") },
    function () { layoutLabels(); byId("zoom-label").textContent = box.dataset.zoom + "×"; }, ZOOMS);
  let resizing = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(layoutLabels, 150);
  });
  return {
    onKey: function (key) {
      if (key === "+" || key === "=") { zoom.zoomIn(); return true; }
      if (key === "-") { zoom.zoomOut(); return true; }
      return false;
    },
  };
}
