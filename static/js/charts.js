// Charts: draw every [data-figure] with Plotly from its <script type="application/json"> spec
// (pages carry no inline script: only JSON.parse reads the data). Wired to page events in main.js.
(function (ps) {
  "use strict";

  // Axis numbers follow the app's rule (app/domain/numbers.py): thousands separators, no SI
  // suffixes ("14,000", not "14k"). A figure that sets its own ticks (log axes carry ticktext
  // written by the server's formatter) or tick format keeps them.
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

  // A legend beside the plot (x > 1) moves below it on narrow screens, where the plot needs the
  // width. The chart grows by the legend's rows, every entry shown: a legend that scrolls inside
  // the chart hides entries a phone reader cannot tell are there.
  var NARROW = window.matchMedia("(max-width: 700px)");
  var ROW = 20;  // px per legend entry, one entry a row below the plot

  function isSide(layout) { return Boolean(layout.legend && layout.legend.x > 1); }

  function legendPlacement(el, layout, room, below) {
    var legend = layout.legend;
    if (!isSide(layout) || !(below || NARROW.matches)) return layout;
    el.style.height = Number(el.dataset.baseHeight) + room + "px";
    // The legend sits in the bottom margin, under the axis title: the margin grows by its room.
    var margin = Object.assign({}, layout.margin);
    margin.b = (margin.b || 60) + room;
    return Object.assign({}, layout, {
      margin: margin,
      legend: Object.assign({}, legend, {
        orientation: "v", x: 0, xanchor: "left", y: 0, yanchor: "bottom", yref: "container",
        maxheight: room
      })
    });
  }

  // Clicking a sweep's legend entry hides or shows every trace of that sweep (its dominated
  // points, spreads and star too), also when the legend groups sweeps under a heading.
  function toggleSweep(gd, evt) {
    var item = evt.node && evt.node.__data__;
    if (item && item[0] && item[0].groupTitle) return true;  // a heading: Plotly toggles its group
    var trace = evt.data[evt.curveNumber];
    var sweep = trace && trace.meta && trace.meta.sweep;
    if (sweep === undefined) return true;
    var hidden = trace.visible === "legendonly";
    var ids = [];
    evt.data.forEach(function (t, k) { if (t.meta && t.meta.sweep === sweep) ids.push(k); });
    window.Plotly.restyle(gd, { visible: hidden ? true : "legendonly" }, ids);
    return false;
  }

  // The legend's height below the plot: a row per entry and per group heading, and the gap
  // Plotly leaves between legend groups (each sweep is its own group).
  function legendRoom(fig) {
    var gap = (fig.layout && fig.layout.legend && fig.layout.legend.tracegroupgap) || 0;
    var seen = {};
    var rows = 0;
    var groups = 0;
    fig.data.forEach(function (t) {
      if (t.showlegend === false) return;
      rows += 1;
      var key = t.legendgroup || "";
      if (seen[key]) return;
      seen[key] = true;
      groups += 1;
      if (t.legendgrouptitle && t.legendgrouptitle.text) rows += 1;  // the group's heading
    });
    return rows * ROW + groups * gap + 10;
  }

  function drawFigures(root) {
    if (!window.Plotly) return;
    root.querySelectorAll("[data-figure]").forEach(function (el) {
      var source = document.getElementById(el.dataset.figure);
      if (!source) return;
      var fig = JSON.parse(source.textContent);
      var config = Object.assign({ responsive: true, displaylogo: false }, fig.config || {});
      el.style.height = "";  // back to the stylesheet's height before measuring it
      el.dataset.baseHeight = el.clientHeight;
      var room = legendRoom(fig);
      var layout = legendPlacement(el, numberAxes(fig.layout || {}), room, false);
      window.Plotly.react(el, fig.data, layout, config).then(function () {
        // Long names (claims, ceilings) can make a side legend take the plot's width: then
        // it goes below the plot, as on a narrow screen.
        var box = el.querySelector(".legend .bg");
        if (isSide(layout) && box && box.getBoundingClientRect().width > 0.4 * el.clientWidth) {
          window.Plotly.react(el, fig.data, legendPlacement(el, layout, room, true), config);
        }
        if (!el.dataset.legendClick) {
          el.dataset.legendClick = "1";
          el.on("plotly_legendclick", function (evt) { return toggleSweep(el, evt); });
        }
      });
    });
  }

  NARROW.addEventListener("change", function () { drawFigures(document); });

  ps.charts = { draw: drawFigures };
  ps.drawFigures = drawFigures;
})(window.paretoscope = window.paretoscope || {});
