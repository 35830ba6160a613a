// Tables: on a narrow screen each table row becomes a card (app.css); every cell shows its
// column's header through data-label, copied here from the header row so the templates stay as
// they are. A cell or header with its own data-label keeps it. Wired in main.js.
(function (ps) {
  "use strict";

  function headerText(th) {
    if (th.dataset.label) return th.dataset.label;
    var copy = th.cloneNode(true);
    copy.querySelectorAll("br").forEach(function (br) { br.replaceWith(" · "); });
    return copy.textContent.replace(/\s+/g, " ").trim();
  }

  function labelCells(root) {
    root.querySelectorAll("table.data").forEach(function (table) {
      var head = table.tHead && table.tHead.rows[table.tHead.rows.length - 1];
      if (!head) return;
      var labels = [];
      Array.prototype.forEach.call(head.cells, function (th) {
        for (var i = 0; i < (th.colSpan || 1); i++) labels.push(headerText(th));
      });
      Array.prototype.forEach.call(table.tBodies, function (body) {
        Array.prototype.forEach.call(body.rows, function (row) {
          var column = 0;
          Array.prototype.forEach.call(row.cells, function (cell) {
            if (!cell.hasAttribute("data-label") && labels[column]) cell.dataset.label = labels[column];
            column += cell.colSpan || 1;
          });
        });
      });
    });
  }

  ps.tables = { label: labelCells };
})(window.paretoscope = window.paretoscope || {});
