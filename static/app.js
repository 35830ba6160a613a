// Paretoscope page glue: draw every [data-figure] with Plotly, on load and after htmx swaps,
// ask before confirm-marked forms submit, and show upload progress. Pages carry no inline script:
// figure data sits in <script type="application/json"> blocks that only JSON.parse reads.
(function () {
  "use strict";

  // Axis numbers follow the app's rule (app/domain/numbers.py): thousands separators, no SI
  // suffixes ("14,000", not "14k"). A figure that sets its own tick format keeps it.
  function numberAxes(layout) {
    ["xaxis", "yaxis"].forEach(function (key) { layout[key] = layout[key] || {}; });
    Object.keys(layout).forEach(function (key) {
      var axis = layout[key];
      if (!/^[xy]axis\d*$/.test(key) || !axis || axis.tickformat) return;
      if (axis.separatethousands === undefined) axis.separatethousands = true;
      if (axis.exponentformat === undefined) axis.exponentformat = "none";
    });
    return layout;
  }

  function drawFigures(root) {
    if (!window.Plotly) return;
    root.querySelectorAll("[data-figure]").forEach(function (el) {
      var source = document.getElementById(el.dataset.figure);
      if (!source) return;
      var fig = JSON.parse(source.textContent);
      var config = Object.assign({ responsive: true, displaylogo: false }, fig.config || {});
      window.Plotly.react(el, fig.data, numberAxes(fig.layout || {}), config);
    });
  }

  // On a narrow screen each table row becomes a card (app.css); every cell shows its column's
  // header through data-label, copied here from the header row so the templates stay as they are.
  // A cell or header with its own data-label keeps it.
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

  // A settings form is swapped whole on every change: folds (details.fold) the reader opened stay
  // open instead of snapping shut under the cursor. The server still opens those with a value set.
  var openFolds = [];
  document.addEventListener("htmx:beforeSwap", function () {
    openFolds = Array.prototype.map.call(document.querySelectorAll("details.fold[open][id]"), function (d) { return d.id; });
  });
  document.addEventListener("htmx:afterSwap", function () {
    openFolds.forEach(function (id) {
      var fold = document.getElementById(id);
      if (fold && fold.tagName === "DETAILS") fold.open = true;
    });
    openFolds = [];
  });

  document.addEventListener("DOMContentLoaded", function () { labelCells(document); drawFigures(document); });
  document.addEventListener("htmx:afterSettle", function (evt) {
    labelCells(document);
    drawFigures(evt.detail.elt || document);
  });

  // A form with data-confirm asks first (an inline onsubmit would need 'unsafe-inline').
  document.addEventListener("submit", function (evt) {
    var message = evt.target.dataset && evt.target.dataset.confirm;
    if (message && !window.confirm(message)) evt.preventDefault();
  });

  // Upload progress: htmx reports XHR upload progress for multipart posts.
  document.addEventListener("htmx:xhr:progress", function (evt) {
    var bar = document.getElementById("upload-progress");
    if (!bar || !evt.detail.lengthComputable) return;
    bar.hidden = false;
    bar.value = Math.round((evt.detail.loaded / evt.detail.total) * 100);
  });
  document.addEventListener("htmx:afterRequest", function () {
    var bar = document.getElementById("upload-progress");
    if (bar) { bar.hidden = true; bar.value = 0; }
  });

  // The series picker's search box updates only the picker's list (htmx, on input): its
  // change and Enter must not also send the whole Explore form (a full re-analysis or reload).
  document.addEventListener("change", function (evt) {
    if (evt.target.matches && evt.target.matches("[data-picker-search]")) evt.stopPropagation();
  }, true);
  document.addEventListener("keydown", function (evt) {
    if (evt.key === "Enter" && evt.target.matches && evt.target.matches("[data-picker-search]")) {
      evt.preventDefault();
    }
  });

  window.paretoscope = { drawFigures: drawFigures };
})();
