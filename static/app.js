// Paretoscope page glue: draw every [data-figure] with Plotly, on load and after htmx swaps,
// ask before confirm-marked forms submit, and show upload progress. Pages carry no inline script:
// figure data sits in <script type="application/json"> blocks that only JSON.parse reads.
(function () {
  "use strict";

  function drawFigures(root) {
    if (!window.Plotly) return;
    root.querySelectorAll("[data-figure]").forEach(function (el) {
      var source = document.getElementById(el.dataset.figure);
      if (!source) return;
      var fig = JSON.parse(source.textContent);
      var config = Object.assign({ responsive: true, displaylogo: false }, fig.config || {});
      window.Plotly.react(el, fig.data, fig.layout, config);
    });
  }

  document.addEventListener("DOMContentLoaded", function () { drawFigures(document); });
  document.addEventListener("htmx:afterSettle", function (evt) { drawFigures(evt.detail.elt || document); });

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

  // Upload details: each preview answer replaces the details form. Whatever was typed after
  // that request left (a field still being edited, or changed while it was in flight) is
  // carried into the new form and previewed again, so no keystroke is lost to a swap.
  var detailsSent = null;
  var detailsEdits = [];
  document.addEventListener("htmx:configRequest", function (evt) {
    var elt = evt.detail.elt;
    if (elt && elt.closest && elt.closest("#details-form")) {
      detailsSent = evt.detail.formData || null;
    }
  });
  document.addEventListener("htmx:beforeSwap", function (evt) {
    detailsEdits = [];
    var from = evt.detail.requestConfig && evt.detail.requestConfig.elt;
    var form = document.getElementById("details-form");
    if (!form || !detailsSent || !from || !from.closest || !from.closest("#details-form")) return;
    form.querySelectorAll("input[name]").forEach(function (input) {
      var sent = detailsSent.has(input.name) ? String(detailsSent.get(input.name)) : "";
      if (input.type !== "hidden" && input.value !== sent) {
        detailsEdits.push({ name: input.name, value: input.value });
      }
    });
    var token = form.querySelector("input[name=staging]");
    detailsEdits.token = token ? token.value : "";
  });
  // After settling: htmx wires the new form's triggers only then.
  document.addEventListener("htmx:afterSettle", function () {
    var edits = detailsEdits;
    detailsEdits = [];
    var form = document.getElementById("details-form");
    if (!edits.length || !form) return;
    var token = form.querySelector("input[name=staging]");
    if (!token || token.value !== edits.token) return;  // other files now: nothing to carry
    edits.forEach(function (edit) {
      var input = form.querySelector('input[name="' + CSS.escape(edit.name) + '"]');
      if (input) input.value = edit.value;
    });
    if (window.htmx) window.htmx.trigger(form, "change");
  });

  window.paretoscope = { drawFigures: drawFigures };
})();
