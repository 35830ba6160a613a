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

  // Charts: a legend beside the plot (x > 1) moves below it on narrow screens, where the plot
  // needs the width; the chart grows by the legend's rows, which scroll past a cap.
  var NARROW = window.matchMedia("(max-width: 700px)");

  function isSide(layout) { return Boolean(layout.legend && layout.legend.x > 1); }

  function legendPlacement(el, layout, entries, below) {
    var legend = layout.legend;
    if (!isSide(layout) || !(below || NARROW.matches)) return layout;
    var room = Math.min(entries, 10) * 20 + 10;
    el.style.height = Number(el.dataset.baseHeight) + room + "px";
    // The legend sits in the bottom margin, under the axis title: the margin grows by its room.
    var margin = Object.assign({}, layout.margin);
    margin.b = (margin.b || 60) + room;
    return Object.assign({}, layout, {
      margin: margin,
      legend: Object.assign({}, legend, {
        orientation: "h", x: 0, xanchor: "left", y: 0, yanchor: "bottom", yref: "container",
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

  function drawFigures(root) {
    if (!window.Plotly) return;
    root.querySelectorAll("[data-figure]").forEach(function (el) {
      var source = document.getElementById(el.dataset.figure);
      if (!source) return;
      var fig = JSON.parse(source.textContent);
      var config = Object.assign({ responsive: true, displaylogo: false }, fig.config || {});
      el.style.height = "";  // back to the stylesheet's height before measuring it
      el.dataset.baseHeight = el.clientHeight;
      var entries = fig.data.filter(function (t) { return t.showlegend !== false; }).length;
      var layout = legendPlacement(el, numberAxes(fig.layout || {}), entries, false);
      window.Plotly.react(el, fig.data, layout, config).then(function () {
        // Long names (claims, ceilings) can make a side legend take the plot's width: then
        // it goes below the plot, as on a narrow screen.
        var box = el.querySelector(".legend .bg");
        if (isSide(layout) && box && box.getBoundingClientRect().width > 0.4 * el.clientWidth) {
          window.Plotly.react(el, fig.data, legendPlacement(el, layout, entries, true), config);
        }
        if (!el.dataset.legendClick) {
          el.dataset.legendClick = "1";
          el.on("plotly_legendclick", function (evt) { return toggleSweep(el, evt); });
        }
      });
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
  NARROW.addEventListener("change", function () { drawFigures(document); });

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
  }, true);

  // A request that got no answer at all (a connection cut off, e.g. a body over the upload cap
  // refused before it was read, or the server down) says so where the answer would have gone,
  // so the upload page never sits silent; the form stays as it was and works again at once.
  document.addEventListener("htmx:sendError", function (evt) {
    var box = evt.detail && evt.detail.target;
    if (!box || box.id !== "upload-result") return;
    var alert = document.createElement("div");
    alert.className = "alert alert-error";
    alert.setAttribute("role", "alert");
    var title = document.createElement("strong");
    title.textContent = "The upload got no answer. ";
    var text = document.createElement("span");
    text.textContent = "The connection was closed before the server answered: the files may be " +
      "over the upload limit, or the server is unreachable. Nothing was stored; choose the files again.";
    alert.append(title, text);
    box.replaceChildren(alert);
  });

  // The files go up once: choosing them stages and previews them. Until other files are
  // chosen, the upload form sends nothing more (its button, Enter or an edit in the token
  // field), and its button, needed only to retry a refused upload, is hidden.
  document.addEventListener("htmx:confirm", function (evt) {
    var form = evt.detail.elt;
    if (!form || form.id !== "upload-form") return;
    var trigger = evt.detail.triggeringEvent;
    if (trigger && trigger.target && trigger.target.type === "file") {
      delete form.dataset.staged;
      form.querySelectorAll("button[type=submit]").forEach(function (b) { b.hidden = false; });
    } else if (form.dataset.staged) {
      evt.preventDefault();
    }
  });
  document.addEventListener("htmx:afterSwap", function (evt) {
    var from = evt.detail.requestConfig && evt.detail.requestConfig.elt;
    if (!from || from.id !== "upload-form" || !document.getElementById("details-form")) return;
    from.dataset.staged = "1";
    from.querySelectorAll("button[type=submit]").forEach(function (b) { b.hidden = true; });
  });

  // Upload details: a preview answer replaces the details form, but never an input the user
  // is in or has changed since that request left: the live input (its value, focus and caret)
  // takes the place of the answer's, all in one task, so no keystroke lands in a field that
  // is going away. Inputs changed since are previewed again once the answer has settled.
  var keep = null;
  var previewAgain = null;
  function inputKey(input) {
    var box = input.type === "checkbox" || input.type === "radio";
    return 'input[name="' + CSS.escape(input.name) + '"]' +
      (box ? '[value="' + CSS.escape(input.value) + '"]' : "");
  }
  function changedSince(input, sent) {
    if (input.type === "checkbox" || input.type === "radio") {
      return input.checked !== (sent.getAll(input.name).indexOf(input.value) >= 0);
    }
    return input.value !== (sent.has(input.name) ? String(sent.get(input.name)) : "");
  }
  document.addEventListener("htmx:beforeSwap", function (evt) {
    keep = null;
    var config = evt.detail.requestConfig;
    var from = config && config.elt;
    var form = document.getElementById("details-form");
    if (!form || !config.formData || !from || !from.closest || !from.closest("#details-form")) return;
    var active = form.contains(document.activeElement) ? document.activeElement : null;
    var token = form.querySelector("input[name=staging]");
    keep = {
      token: token ? token.value : "",
      sent: config.formData,
      inputs: Array.prototype.slice.call(form.querySelectorAll("input[name]:not([type=hidden])")),
      active: active,
      start: active && active.selectionStart,
      end: active && active.selectionEnd,
      direction: active && active.selectionDirection
    };
  });
  document.addEventListener("htmx:afterSwap", function () {
    var k = keep;
    keep = null;
    var form = document.getElementById("details-form");
    var token = form && form.querySelector("input[name=staging]");
    if (!k || !token || token.value !== k.token) return;  // saved, or other files now
    var edited = false;
    k.inputs.forEach(function (old) {
      var fresh = form.querySelector(inputKey(old));
      if (!fresh || fresh === old) return;
      var changed = changedSince(old, k.sent);
      if (!changed && old !== k.active) return;
      if (!changed) {  // focused but untouched since: it shows the answer's value
        if (old.type === "checkbox" || old.type === "radio") old.checked = fresh.checked;
        else if (old.value !== fresh.value) old.value = fresh.value;
      }
      ["aria-invalid", "aria-describedby"].forEach(function (name) {
        if (fresh.hasAttribute(name)) old.setAttribute(name, fresh.getAttribute(name));
        else old.removeAttribute(name);
      });
      fresh.replaceWith(old);
      edited = edited || changed;
    });
    if (k.active && k.active.isConnected) {
      k.active.focus({ preventScroll: true });
      if (k.start !== null && k.active.setSelectionRange) {
        try { k.active.setSelectionRange(k.start, k.end, k.direction || "none"); } catch (e) { /* not a text field */ }
      }
    }
    previewAgain = edited ? form : null;
  });
  // After settling: htmx wires the new form's triggers only then.
  document.addEventListener("htmx:afterSettle", function () {
    var form = previewAgain;
    previewAgain = null;
    if (form && form.isConnected && window.htmx) window.htmx.trigger(form, "change");
  });

  window.paretoscope = { drawFigures: drawFigures };
})();
