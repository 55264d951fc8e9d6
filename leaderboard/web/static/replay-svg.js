// What the games' replay viewers share to draw on SVG: elements, the shapes that mark a
// company's trains or a seat's routes (so that they read without colour too), and the zoom
// buttons of a board in a scrolling box.  Each game's viewer (in its kit) imports them.

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

// -- zoom ----------------------------------------------------------------------------------

// Zoom buttons for a board inside a scrolling box: the board keeps the point in the middle
// of the box in the middle, and its labels are laid out again for the new size.  ZOOMS: the
// widths to step through, as multiples of the box's width (the first is 1).
export function zoomable(box, svg, buttons, onChange, ZOOMS) {
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
