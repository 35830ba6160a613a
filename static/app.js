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

  window.paretoscope = { drawFigures: drawFigures };
})();
