// Sortable tables: click a column header of a table.sortable to sort its rows by that
// column (again to reverse).  Cells carry their sort key in data-value; headers say
// data-sort="number" or "text".  Empty values sort last.  No data is ever parsed as HTML.
(function () {
  "use strict";

  function key(row, index, numeric) {
    const cell = row.cells[index];
    const raw = cell ? (cell.dataset.value !== undefined ? cell.dataset.value : cell.textContent.trim()) : "";
    if (raw === "") return null;
    if (!numeric) return raw.toLocaleLowerCase();
    const n = Number(raw);
    return Number.isFinite(n) ? n : null;
  }

  function sortBy(table, header) {
    const headers = Array.from(header.parentElement.children);
    const index = headers.indexOf(header);
    const numeric = header.dataset.sort === "number";
    const ascending = header.getAttribute("aria-sort") !== "ascending";
    const body = table.tBodies[0];
    const rows = Array.from(body.rows);
    rows.sort(function (a, b) {
      const x = key(a, index, numeric);
      const y = key(b, index, numeric);
      if (x === null && y === null) return 0;
      if (x === null) return 1;
      if (y === null) return -1;
      const order = x < y ? -1 : x > y ? 1 : 0;
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    headers.forEach(function (h) { h.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }

  document.querySelectorAll("table.sortable").forEach(function (table) {
    if (!table.tHead || !table.tBodies.length) return;
    table.tHead.querySelectorAll("th[data-sort]").forEach(function (header) {
      header.tabIndex = 0;
      header.classList.add("sort-header");
      header.addEventListener("click", function () { sortBy(table, header); });
      header.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          sortBy(table, header);
        }
      });
    });
  });
})();
