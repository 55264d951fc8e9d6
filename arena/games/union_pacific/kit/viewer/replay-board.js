// The board of the replay viewer: cities, sections and their train spaces, drawn from
// the board data (/api/board?game=union_pacific); trains in their company's colour *and* shape, so that
// they read without colour too; city labels placed where they hide no train space.

import { mapCities, shapeIcon, shapePath, sizeLabels, svgEl } from "../../replay-svg.js";

const WIDTH = 1000;          // the board's width in SVG units
const PAD = 46;
const SLOT_R = 5.2;          // an empty train space
const TRAIN_R = 5.6;         // a train (its shape's nominal radius)
const LABEL_PX = 11;         // city labels are drawn this many screen pixels high
export const ZOOMS = [1, 1.5, 2, 3, 4];  // the board's zoom levels (replay-svg.js's zoomBoard)

//: A small SVG of a company's train (legend, chips).
export function trainIcon(company, size) {
  return shapeIcon("train-icon", company.shape, company.colour, size, { class: "train-shape" });
}

// -- label placement ---------------------------------------------------------------------

function overlaps(a, b) {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}


function segmentHitsBox(seg, box) {
  // Liang–Barsky clipping of the segment against the box.
  let t0 = 0, t1 = 1;
  const dx = seg[2] - seg[0], dy = seg[3] - seg[1];
  const checks = [[-dx, seg[0] - box.x0], [dx, box.x1 - seg[0]], [-dy, seg[1] - box.y0], [dy, box.y1 - seg[1]]];
  for (let i = 0; i < 4; i++) {
    const p = checks[i][0], q = checks[i][1];
    if (p === 0) { if (q < 0) return false; continue; }
    const t = q / p;
    if (p < 0) { if (t > t1) return false; if (t > t0) t0 = t; } else { if (t < t0) return false; if (t < t1) t1 = t; }
  }
  return true;
}

// Candidate places around a city, best first: the anchor, text-anchor and the text's box
// (``ascent`` and ``descent`` as the font draws them).
function candidates(x, y, r, width, size, ascent, descent) {
  const out = [];
  [r + 2.5, r + 2.5 + size * 0.6, r + 10, r + 16].forEach(function (d) {  // the farther rings only when the near ones are taken
    const diag = d * 0.72;
    [
      [diag, -diag, "start"], [d, ascent / 2 - descent / 2, "start"], [diag, diag + ascent, "start"],
      [-diag, -diag, "end"], [-d, ascent / 2 - descent / 2, "end"], [-diag, diag + ascent, "end"],
      [0, -d - descent, "middle"], [0, d + ascent, "middle"],
    ].forEach(function (c) {
      const ax = x + c[0], ay = y + c[1];
      const x0 = c[2] === "start" ? ax : c[2] === "end" ? ax - width : ax - width / 2;
      out.push({ x: ax, y: ay, anchor: c[2], box: { x0: x0 - 1, x1: x0 + width + 1, y0: ay - ascent - 1, y1: ay + descent + 1 } });
    });
  });
  return out;
}

// Place each city's label where it covers no train space, no city and no other label
// (and crosses as few tracks as it can), most important cities first; a label with no
// such place is hidden (the city's tooltip still names it; zoom in to see it).
function placeLabels(items, obstacles, segments, size, metrics, height) {
  const placed = [];
  const bounds = { x0: 0, y0: 0, x1: WIDTH, y1: height };
  items.forEach(function (item) {
    let best = null;
    candidates(item.x, item.y, item.r, item.width, size, metrics.ascent, metrics.descent).forEach(function (c, order) {
      const b = c.box;
      let hard = b.x0 < bounds.x0 || b.x1 > bounds.x1 || b.y0 < bounds.y0 || b.y1 > bounds.y1;
      for (let i = 0; !hard && i < obstacles.length; i++) hard = overlaps(b, obstacles[i]);
      for (let i = 0; !hard && i < placed.length; i++) hard = overlaps(b, placed[i].box);
      if (hard) return;
      let cost = order;
      segments.forEach(function (s) { if (segmentHitsBox(s, b)) cost += 12; });
      if (best === null || cost < best.cost) best = Object.assign({ cost: cost }, c);
    });
    if (best) placed.push(best);
    item.place = best;
  });
}

// -- the board -------------------------------------------------------------------------

export function drawBoard(svg, board, words, starts) {
  const companies = {};
  board.companies.forEach(function (c) { companies[c.code] = c; });
  const map = mapCities(svg, board.cities, WIDTH, PAD);
  const height = map.height;
  const at = {};
  board.cities.forEach(function (c) { at[c.name] = map.at(c); });

  const tracks = svgEl("g", { class: "tracks" });
  const slots = svgEl("g", { class: "slots" });
  const cities = svgEl("g", { class: "cities" });
  const labels = svgEl("g", { class: "city-labels" });
  const slotNodes = [];
  const sectionNodes = [];
  const obstacles = [];
  const segments = [];
  const degree = {};
  board.sections.forEach(function (s, i) {
    const a = at[s.a], b = at[s.b];
    degree[s.a] = (degree[s.a] || 0) + 1;
    degree[s.b] = (degree[s.b] || 0) + 1;
    segments.push([a[0], a[1], b[0], b[1]]);
    const style = board.track_styles[s.type] || { colour: "#999", dash: "" };
    const line = svgEl("line", {
      x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: style.colour, "stroke-width": 3.2,
      "stroke-linecap": "round", class: "track track-" + s.type, "data-section": i,
    });
    if (style.dash) line.setAttribute("stroke-dasharray", style.dash);
    line.appendChild(svgEl("title", null, words.sectionName(i) + " · " + s.type + " · " + s.spaces + " spaces"));
    tracks.appendChild(line);
    sectionNodes.push(line);
    const nodes = [];
    for (let j = 0; j < s.spaces; j++) {
      const t = (j + 1) / (s.spaces + 1);
      const x = a[0] + (b[0] - a[0]) * t, y = a[1] + (b[1] - a[1]) * t;
      const reach = TRAIN_R * 1.4;  // the largest train shape (the star) fits in this square
      obstacles.push({ x0: x - reach, x1: x + reach, y0: y - reach, y1: y + reach });
      const slot = svgEl("path", { d: shapePath("circle", x, y, SLOT_R), class: "slot", "data-section": i, "data-slot": j,
        "data-x": x.toFixed(1), "data-y": y.toFixed(1) });
      const title = svgEl("title", null, "");
      slot.appendChild(title);
      slots.appendChild(slot);
      nodes.push({ node: slot, title: title, x: x, y: y, company: undefined });
    }
    slotNodes.push(nodes);
  });

  const homes = {};
  board.companies.forEach(function (c) { (homes[c.home] = homes[c.home] || []).push(c.code); });
  const items = [];
  board.cities.forEach(function (c) {
    const p = at[c.name];
    const r = homes[c.name] ? 6.5 : 4.5;
    obstacles.push({ x0: p[0] - r - 1, x1: p[0] + r + 1, y0: p[1] - r - 1, y1: p[1] + r + 1 });
    const g = svgEl("g", { class: "city" + (homes[c.name] ? " home" : "") });
    g.appendChild(svgEl("circle", { cx: p[0], cy: p[1], r: r }));
    if (homes[c.name]) {
      const dot = svgEl("circle", { cx: p[0], cy: p[1], r: 3, class: "home-dot" });
      dot.setAttribute("fill", companies[homes[c.name][0]].colour);
      g.appendChild(dot);
    }
    g.appendChild(svgEl("title", null, c.name + (homes[c.name] ? " · home of " + homes[c.name].join(", ") : "")));
    cities.appendChild(g);
    const label = svgEl("text", { class: "city-label", "data-city": c.name }, c.name);
    labels.appendChild(label);
    items.push({ name: c.name, x: p[0], y: p[1], r: r, node: label, home: !!homes[c.name], degree: degree[c.name] || 0 });
  });
  items.sort(function (a, b) { return (b.home - a.home) || (b.degree - a.degree) || (a.name < b.name ? -1 : 1); });
  svg.appendChild(tracks);
  svg.appendChild(cities);
  svg.appendChild(slots);
  svg.appendChild(labels);

  // Label sizes are chosen in screen pixels: the board is redrawn when its width changes.
  let laidFor = null;
  function layoutLabels() {
    const size = sizeLabels(svg, labels, LABEL_PX, WIDTH);
    if (!size || (laidFor !== null && Math.abs(laidFor - size) < 0.01)) return;
    laidFor = size;
    let metrics = { ascent: size * 0.95, descent: size * 0.25 };
    items.forEach(function (item, i) {
      item.node.setAttribute("x", "0");
      item.node.setAttribute("y", "0");
      item.node.setAttribute("text-anchor", "start");
      item.node.setAttribute("class", "city-label");
      const box = item.node.getBBox();
      item.width = box.width || item.name.length * size * 0.6;
      if (i === 0 && box.height) metrics = { ascent: -box.y, descent: box.height + box.y };
    });
    placeLabels(items, obstacles, segments, size, metrics, height);
    items.forEach(function (item) {
      if (item.place) {
        item.node.setAttribute("x", item.place.x.toFixed(1));
        item.node.setAttribute("y", item.place.y.toFixed(1));
        item.node.setAttribute("text-anchor", item.place.anchor);
      } else {
        item.node.setAttribute("class", "city-label unplaced");
      }
    });
    svg.dataset.labelsShown = String(items.filter(function (i) { return i.place; }).length);
  }

  // state.sections[i]: the company on each space of section i (null: empty), as the view
  // (the game's kit, from the engine's state) lays them out; starts[i]: its starting spaces.
  function render(state) {
    state.sections.forEach(function (slots, i) {
      sectionNodes[i].classList.toggle("last-build", state.last_section === i);
      const first = (starts && starts[i]) || [];
      slots.forEach(function (co, j) {
        const n = slotNodes[i][j];
        const start = first.indexOf(j) >= 0 && !!co;
        if (n.company !== co) {
          n.company = co;
          const c = co ? companies[co] : null;
          n.node.setAttribute("d", shapePath(c ? c.shape : "circle", n.x, n.y, c ? TRAIN_R : SLOT_R));
          if (c) {
            n.node.style.fill = c.colour;
            n.node.setAttribute("data-company", co);
            n.node.setAttribute("data-shape", c.shape);
          } else {
            n.node.style.removeProperty("fill");
            n.node.removeAttribute("data-company");
            n.node.removeAttribute("data-shape");
          }
        }
        n.node.setAttribute("class", "slot" + (co ? " train" : "") + (start ? " start" : ""));
        n.title.textContent = words.sectionName(i) + ": " +
          (co ? co + " train (" + companies[co].shape.replace("-", " ") + ")" + (start ? ", starting space" : "") : "empty space");
      });
    });
  }

  return { render: render, layoutLabels: layoutLabels, height: height };
}
