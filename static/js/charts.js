// Charts: draw every [data-figure] with Plotly from its <script type="application/json"> spec
// (pages carry no inline script: only JSON.parse reads the data). Wired to page events in main.js.
(function (ps) {
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

  // Hover numbers arrive as numbers, not text (app/charts/shown.py): each is written here with
  // its shortest digits, thousands separators and 1.23e-4 / 1.23e15 outside [0.001, 10^15), which
  // gives back the app's formatter's text exactly (the server sends text where it would not).
  function numberText(v) {
    if (typeof v !== "number") return v;
    var size = Math.abs(v);
    if (v !== 0 && (size < 1e-3 || size >= 1e15)) return v.toExponential().replace("e+", "e");
    var s = String(v);
    var dot = s.indexOf(".");
    var whole = dot < 0 ? s : s.slice(0, dot);
    return whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (dot < 0 ? "" : s.slice(dot));
  }

  // A trace whose hover numbers came as columns (meta.hover, one per template slot) gets them
  // as Plotly's customdata: one row of texts per point. One whose points share a few texts
  // (meta.texts) gets each point's (meta.text, an index into them) as Plotly's text.
  function withHover(trace) {
    var meta = trace.meta;
    if (!meta || typeof meta !== "object" || !(meta.hover || meta.texts)) return trace;
    var drawn = Object.assign({}, trace, { meta: Object.assign({}, meta) });
    if (meta.hover) {
      var texts = meta.hover.map(function (column) { return column.map(numberText); });
      drawn.customdata = (trace.x || []).map(function (_, k) {
        return texts.map(function (column) { return column[k]; });
      });
      delete drawn.meta.hover;
    }
    if (meta.texts) {
      drawn.text = meta.text.map(function (i) { return meta.texts[i]; });
      delete drawn.meta.texts;
      delete drawn.meta.text;
    }
    return drawn;
  }

  // A legend beside the plot (x > 1) moves below it on narrow screens, where the plot needs the
  // width; the chart grows by the legend's rows. On a phone every entry shows, one a row (a
  // legend scrolling inside the chart hides entries a reader cannot tell are there); on a wide
  // screen (a legend too wide to sit beside the plot) the rows scroll past a cap.
  var NARROW = window.matchMedia("(max-width: 700px)");
  var ROW = 20;  // px per legend row

  function isSide(layout) { return Boolean(layout.legend && layout.legend.x > 1); }

  // Plotly never wraps a legend entry: below a narrow plot a long name would run off the chart,
  // cut. On a phone names are broken into lines (at spaces) that fit the chart's width.
  var CHAR_PX = 6.6;  // about one character of the 11 px legend font
  function wrapName(name, width, charPx) {
    var max = Math.max(16, Math.floor((width - 60) / (charPx || CHAR_PX)));
    if (typeof name !== "string" || name.length <= max || name.indexOf("<") >= 0) return name;
    var lines = [];
    var line = "";
    name.split(/(?= )/).forEach(function (word) {  // each word keeps the space before it
      if (line && (line + word).length > max) { lines.push(line.trim()); line = word.trim(); }
      else line += word;
    });
    if (line) lines.push(line.trim());
    return lines.join("<br>");
  }
  // Nor an annotation: a chart's "Nothing to draw" reason, longer than a narrow chart is wide,
  // would be cut at both ends. It is broken into lines the same way (13 px font).
  // On a phone the SLO's label above the plot ("SLO: ≥ 25 tok/s/user (p50 TPOT ≤ 40 ms)") takes
  // two lines, so that it fits beside its line wherever the line falls.
  function wrapNotes(layout, width) {
    if (!layout.annotations) return layout;
    var notes = layout.annotations.map(function (a) {
      var text = a.text;
      if (a.name === "empty-reason") text = wrapName(a.text, width, 7.8);
      else if (a.name === "slo-floor-label" && NARROW.matches && text.indexOf("<br>") < 0) {
        text = text.replace(" (", "<br>(");
      }
      return text === a.text ? a : Object.assign({}, a, { text: text });
    });
    return Object.assign({}, layout, { annotations: notes });
  }
  function phoneData(data, width) {
    return data.map(function (t) {
      if (t.showlegend === false || !t.name) return t;
      var name = wrapName(t.name, width);
      return name === t.name ? t : Object.assign({}, t, { name: name });
    });
  }

  // A phone legend's height: a row per line of each entry and per group heading, and the gap
  // Plotly leaves between legend groups (each sweep is its own group).
  function phoneRoom(data, layout) {
    var gap = (layout.legend && layout.legend.tracegroupgap) || 0;
    var seen = {};
    var rows = 0;
    var groups = 0;
    data.forEach(function (t) {
      if (t.showlegend === false) return;
      rows += String(t.name || "").split("<br>").length;
      var key = t.legendgroup || "";
      if (seen[key]) return;
      seen[key] = true;
      groups += 1;
      if (t.legendgrouptitle && t.legendgrouptitle.text) rows += 1;  // the group's heading
    });
    return rows * ROW + groups * gap + 10;
  }

  function legendPlacement(el, layout, entries, below, phone) {
    var legend = layout.legend;
    if (!isSide(layout) || !(below || NARROW.matches)) return layout;
    var room = phone ? phone : Math.min(entries, 10) * ROW + 10;
    el.style.height = Number(el.dataset.baseHeight) + room + "px";
    // The legend sits in the bottom margin, under the axis title: the margin grows by its room.
    var margin = Object.assign({}, layout.margin);
    margin.b = (margin.b || 60) + room;
    return Object.assign({}, layout, {
      margin: margin,
      legend: Object.assign({}, legend, {
        orientation: phone ? "v" : "h", x: 0, xanchor: "left", y: 0, yanchor: "bottom",
        yref: "container",
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

  // A chart with no width yet (hidden, or mid-way through a change of screen width) is not
  // drawn: Plotly would lay it out in 0 px and fail ("axis scaling", negative heights). It is
  // drawn as soon as it has a width.
  var sized = window.ResizeObserver ? new ResizeObserver(function (entries) {
    entries.forEach(function (entry) {
      var el = entry.target;
      if (el.dataset.waiting === "1" && el.clientWidth > 0) {
        el.dataset.waiting = "";
        queueDraw(el);
      }
    });
  }) : null;

  // One draw at a time per chart: a draw asked for while another is in flight (page load, an
  // htmx settle, a change of screen width) waits for it, as two interleaved Plotly.react calls
  // on one element can leave an axis unscaled. data-drawn="1" once the last draw asked for is
  // done (tests wait on it).
  function queueDraw(el) {
    var previous = el.psDrawing || Promise.resolve();
    var drawing = previous.catch(function () {}).then(function () { return drawFigure(el); })
      .then(function (done) { if (done !== false && el.psDrawing === drawing) el.dataset.drawn = "1"; });
    el.psDrawing = drawing;
    el.dataset.drawn = "";
  }

  function drawFigures(root) {
    if (!window.Plotly) return;
    root.querySelectorAll("[data-figure]").forEach(queueDraw);
  }

  // A big chart's hover numbers come in a second answer (app/charts/deferred.py): asked for as
  // the chart is drawn, joined to its traces by index, then drawn again. Kept per address, so a
  // redraw (a change of screen width) does not ask again. Joined only when read under the same
  // version tokens as the page: else the data changed in between, and the chart says so.
  var hoverAnswers = {};
  function laterHovers(fig) {
    var src = fig.hover_src;
    if (!hoverAnswers[src]) {
      hoverAnswers = {};  // one chart's at a time
      hoverAnswers[src] = fetch(src, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); });
      hoverAnswers[src].catch(function () { delete hoverAnswers[src]; });
    }
    return hoverAnswers[src].then(function (answer) {
      if (answer.version !== fig.hover_version) throw new Error("the data changed since this page was drawn");
      return answer.traces;
    });
  }

  function joinHovers(fig, traces) {
    fig.data = fig.data.map(function (trace, k) {
      var columns = traces[String(k)];
      if (!columns || !trace.meta || !trace.meta.hover_later) return trace;
      var meta = Object.assign({}, trace.meta, { hover: columns });
      delete meta.hover_later;
      var joined = Object.assign({}, trace, { meta: meta });
      delete joined.hoverinfo;
      return joined;
    });
  }

  function hoverNote(el, message) {
    var note = el.nextElementSibling && el.nextElementSibling.classList.contains("hover-note")
      ? el.nextElementSibling : null;
    if (!message) { if (note) note.remove(); return; }
    if (!note) {
      note = document.createElement("p");
      note.className = "hover-note muted";
      el.insertAdjacentElement("afterend", note);
    }
    note.textContent = "Hover details are missing (" + message + "): reload the page to see them.";
  }

  function drawFigure(el) {
    var source = document.getElementById(el.dataset.figure);
    if (!source) return;
    if (el.clientWidth === 0) {
      el.dataset.waiting = "1";
      if (sized) sized.observe(el);
      return false;
    }
    var fig = JSON.parse(source.textContent);
    if (!fig.hover_src) return drawParsed(el, fig);
    var hovers = laterHovers(fig);
    el.dataset.hovers = "later";
    return drawParsed(el, fig).then(function () { return hovers; }).then(function (traces) {
      joinHovers(fig, traces);
      el.dataset.hovers = "joined";
      hoverNote(el, null);
      return drawParsed(el, fig);
    }, function (error) {
      el.dataset.hovers = "missing";
      hoverNote(el, error.message);
    });
  }

  function drawParsed(el, fig) {
    // Plotly.react keeps a chart's autosized height: after crossing the phone width (where the
    // legend moves below and the bottom margin grows by its room) it would draw into the old
    // height, a negative plot area ("axis scaling" fails). Such a chart is drawn afresh.
    var narrow = NARROW.matches ? "1" : "0";
    if (el.dataset.narrow && el.dataset.narrow !== narrow && el._fullLayout) {
      window.Plotly.purge(el);
      el.dataset.legendClick = "";  // purge removed the legend's click handler
    }
    el.dataset.narrow = narrow;
    fig = Object.assign({}, fig, { data: fig.data.map(withHover) });
    // The mode bar keeps zoom, pan, reset and PNG (issue 47: a quarter of the controls); box and
    // lasso select do nothing here, zoom in/out and autoscale repeat zoom and reset, and "Share
    // chart" would upload the data to Plotly Cloud.
    var config = Object.assign({
      responsive: true,
      displaylogo: false,
      modeBarButtonsToRemove: ["select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d", "sendDataToCloud", "sendChartToCloud"]
    }, fig.config || {});
    // A chart that says "Nothing to draw" (axes hidden: app/charts/style.empty_note) has nothing
    // to zoom or save: no mode bar.
    var layoutIn = fig.layout || {};
    var nothing = (layoutIn.annotations || []).some(function (a) { return a.name === "empty-reason"; });
    if (nothing && layoutIn.xaxis && layoutIn.xaxis.visible === false) config.displayModeBar = false;
    el.style.height = "";  // back to the stylesheet's height before measuring it
    el.dataset.baseHeight = el.clientHeight;
    var entries = fig.data.filter(function (t) { return t.showlegend !== false; }).length;
    var data = fig.data;
    var phone = 0;
    if (NARROW.matches && isSide(fig.layout || {})) {
      data = phoneData(fig.data, el.clientWidth);
      phone = phoneRoom(data, fig.layout);
    }
    // A side legend whose longest name would take the plot's width goes below it before the
    // first draw: drawn beside, it can leave the plot no width (Plotly then fails on "axis
    // scaling"). The check after drawing stays for the names this estimate misses.
    var longest = 0;
    data.forEach(function (t) {
      if (t.showlegend !== false && typeof t.name === "string") {
        longest = Math.max(longest, t.name.replace(/<[^>]*>/g, "").length);
      }
    });
    var wide = longest * CHAR_PX + 40 > 0.4 * el.clientWidth;
    var layout = legendPlacement(
      el, wrapNotes(numberAxes(fig.layout || {}), el.clientWidth), entries, wide, phone);
    return window.Plotly.react(el, data, layout, config).then(function () {
      // Long names (claims, ceilings) can make a side legend take the plot's width: then
      // it goes below the plot, as on a narrow screen.
      var box = el.querySelector(".legend .bg");
      if (!el.dataset.legendClick) {
        el.dataset.legendClick = "1";
        el.on("plotly_legendclick", function (evt) { return toggleSweep(el, evt); });
        el.on("plotly_click", function (evt) { showMisses(evt); });
      }
      if (isSide(layout) && box && box.getBoundingClientRect().width > 0.4 * el.clientWidth) {
        return window.Plotly.react(el, data, legendPlacement(el, layout, entries, true, phone), config);
      }
    });
  }

  // A clicked sweep point (a trace with meta.sweep and point ids): its requests that missed
  // the SLO, listed below the chart (issue 50), at the page's own query.
  function showMisses(evt) {
    var point = evt && evt.points && evt.points[0];
    if (!point || !window.htmx) return;
    var trace = point.data || {};
    if (trace.meta && trace.meta.misses) { showBucketMisses(trace.meta.misses, point); return; }
    var box = document.getElementById("misses");
    if (!box) return;
    var sweep = trace.meta && trace.meta.sweep;
    var id = trace.ids && trace.ids[point.pointNumber];
    if (!sweep || !id) return;
    var query = new URLSearchParams(window.location.search);
    query.set("misses_sweep", sweep);
    query.set("point_id", id);
    window.htmx.ajax("GET", "/explore/misses?" + query.toString(), { target: "#misses", swap: "outerHTML" });
  }

  // A clicked bucket of a sweep page's TTFT against prompt length (issue 50): its point,
  // prompt-length range and turn are the marker's customdata; the limits are in the URL the
  // server gave the trace.
  function showBucketMisses(target, point) {
    var box = document.getElementById(target.box);
    var data = point.customdata;
    if (!box || !data || data[0] === undefined) return;
    var query = new URLSearchParams();
    query.set("point_id", data[0]);
    if (data[1] !== null && data[1] !== undefined) query.set("input_tokens_low", data[1]);
    if (data[2] !== null && data[2] !== undefined) query.set("input_tokens_high", data[2]);
    if (data[3] !== null && data[3] !== undefined) query.set("turn_index", data[3]);
    var url = target.url + (target.url.indexOf("?") < 0 ? "?" : "&") + query.toString();
    window.htmx.ajax("GET", url, { target: "#" + target.box, swap: "outerHTML" });
  }

  NARROW.addEventListener("change", function () { drawFigures(document); });
  ps.charts = { draw: drawFigures, numberText: numberText };
  ps.drawFigures = drawFigures;
})(window.paretoscope = window.paretoscope || {});
