// Card tables: filter rows by the controls above them and sort by a clicked column.
// Rows carry their values as data-* attributes (integers as digits, lists joined by "|").
(function () {
  "use strict";

  function value(row, column) {
    return row.dataset[column] === undefined ? "" : row.dataset[column];
  }

  function compare(a, b, numeric) {
    if (numeric) {
      const x = a === "" ? -Infinity : Number(a);
      const y = b === "" ? -Infinity : Number(b);
      return x - y;
    }
    return a.localeCompare(b, "it", { sensitivity: "base" });
  }

  function setUp(controls) {
    const table = document.getElementById(controls.dataset.tabella);
    if (!table) return;
    const body = table.tBodies[0];
    const rows = Array.from(body.rows);
    const inputs = Array.from(controls.querySelectorAll("[data-filtro]"));
    const counter = controls.querySelector(".cartiera-conteggio");

    function matches(row) {
      return inputs.every(function (input) {
        const wanted = input.value.trim();
        if (wanted === "") return true;
        const have = value(row, input.dataset.filtro);
        switch (input.dataset.tipo) {
          case "min": return have !== "" && Number(have) >= Number(wanted);
          case "max": return have !== "" && Number(have) <= Number(wanted);
          case "contiene": return have.split("|").indexOf(wanted) !== -1;
          default: return have === wanted;
        }
      });
    }

    function filter() {
      let shown = 0;
      rows.forEach(function (row) {
        const visible = matches(row);
        row.hidden = !visible;
        if (visible) shown += 1;
      });
      if (counter) counter.textContent = shown + " carte su " + rows.length;
    }

    inputs.forEach(function (input) {
      input.addEventListener("input", filter);
      input.addEventListener("change", filter);
    });

    Array.from(table.tHead.rows[0].cells).forEach(function (header) {
      const column = header.dataset.colonna;
      if (!column) return;
      header.tabIndex = 0;
      function sort() {
        const ascending = header.getAttribute("aria-sort") !== "ascending";
        Array.from(table.tHead.rows[0].cells).forEach(function (other) {
          other.removeAttribute("aria-sort");
        });
        header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        const numeric = header.dataset.tipo === "int";
        rows.slice().sort(function (a, b) {
          const order = compare(value(a, column), value(b, column), numeric) ||
            compare(value(a, "number"), value(b, "number"), true);
          return ascending ? order : -order;
        }).forEach(function (row) { body.appendChild(row); });
      }
      header.addEventListener("click", sort);
      header.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); sort(); }
      });
    });
    filter();
  }

  function start() {
    document.querySelectorAll(".cartiera-filtri[data-tabella]").forEach(setUp);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
