// Card tables: filter rows by the controls above them and sort by a clicked column.
// Rows carry their values as data-* attributes (integers as digits, lists joined by "|").
// The filters and the order live in the page's fragment (#forma=Ombra&occhio-min=5&ordine=-nome),
// so a reload, a bookmark or a shared link shows the same selection, also from file://.
(function () {
  "use strict";

  function value(row, column) {
    return row.dataset[column] === undefined ? "" : row.dataset[column];
  }

  function compare(a, b, numeric) {
    if (numeric) {
      var x = a === "" ? -Infinity : Number(a);
      var y = b === "" ? -Infinity : Number(b);
      return x - y;
    }
    return a.localeCompare(b, "it", { sensitivity: "base", numeric: true });
  }

  function key(input) {
    var tipo = input.dataset.tipo;
    return input.dataset.filtro + (tipo === "min" || tipo === "max" ? "-" + tipo : "");
  }

  function setUp(controls) {
    var table = document.getElementById(controls.dataset.tabella);
    if (!table) return;
    var body = table.tBodies[0];
    var rows = Array.from(body.rows);
    var headers = Array.from(table.tHead.rows[0].cells).filter(function (h) { return h.dataset.colonna; });
    var inputs = Array.from(controls.querySelectorAll("[data-filtro]"));
    var counter = controls.querySelector(".cartiera-conteggio");
    var order = "";

    function matches(row) {
      return inputs.every(function (input) {
        var wanted = input.value.trim();
        if (wanted === "") return true;
        var have = value(row, input.dataset.filtro);
        switch (input.dataset.tipo) {
          case "min": return have !== "" && Number(have) >= Number(wanted);
          case "max": return have !== "" && Number(have) <= Number(wanted);
          case "contiene": return have.split("|").indexOf(wanted) !== -1;
          default: return have === wanted;
        }
      });
    }

    function save() {
      var state = new URLSearchParams();
      inputs.forEach(function (input) {
        if (input.value.trim() !== "") state.set(key(input), input.value.trim());
      });
      if (order) state.set("ordine", order);
      var text = state.toString();
      if (text !== location.hash.replace(/^#/, "")) {
        history.replaceState(history.state, "", text ? "#" + text : location.pathname + location.search);
      }
    }

    function filter() {
      var shown = 0;
      rows.forEach(function (row) {
        var visible = matches(row);
        row.hidden = !visible;
        if (visible) shown += 1;
      });
      if (counter) counter.textContent = (shown === 1 ? "1 carta" : shown + " carte") + " su " + rows.length;
    }

    function sort(column, ascending) {
      var header = headers.find(function (h) { return h.dataset.colonna === column; });
      if (!header) return;
      headers.forEach(function (other) { other.removeAttribute("aria-sort"); });
      header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      var numeric = header.dataset.tipo === "int";
      rows.slice().sort(function (a, b) {
        var main = compare(value(a, column), value(b, column), numeric);
        if (!ascending) main = -main;
        return main || compare(value(a, "number"), value(b, "number"), true);
      }).forEach(function (row) { body.appendChild(row); });
      order = (ascending ? "" : "-") + column;
    }

    function restore() {
      var state = new URLSearchParams(location.hash.replace(/^#/, ""));
      inputs.forEach(function (input) { input.value = state.get(key(input)) || ""; });
      var wanted = state.get("ordine");
      if (wanted) sort(wanted.replace(/^-/, ""), wanted.charAt(0) !== "-");
      filter();
    }

    inputs.forEach(function (input) {
      input.addEventListener("input", function () { filter(); save(); });
      input.addEventListener("change", function () { filter(); save(); });
    });
    // Enter in a filter box must not send the form (no handler attribute on the page:
    // the site's HTML carries none).
    controls.addEventListener("submit", function (event) { event.preventDefault(); });
    controls.addEventListener("reset", function () {
      setTimeout(function () {
        order = "";
        sort("number", true);
        order = "";
        filter();
        save();
      });
    });

    headers.forEach(function (header) {
      header.tabIndex = 0;
      header.title = "Ordina per " + header.textContent.trim();
      function click() {
        sort(header.dataset.colonna, header.getAttribute("aria-sort") !== "ascending");
        save();
      }
      header.addEventListener("click", click);
      header.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); click(); }
      });
    });
    window.addEventListener("hashchange", restore);
    restore();
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
