// Forms: open folds survive a swap, confirm-marked forms ask first, and the series picker's
// search stays local. The htmx swap steps (remember, reopen) are wired in main.js.
(function (ps) {
  "use strict";

  // A settings form is swapped whole on every change: folds (details.fold) the reader opened stay
  // open instead of snapping shut under the cursor. The server still opens those with a value set.
  var openFolds = [];
  function rememberFolds() {
    openFolds = Array.prototype.map.call(document.querySelectorAll("details.fold[open][id]"), function (d) { return d.id; });
  }
  function reopenFolds() {
    openFolds.forEach(function (id) {
      var fold = document.getElementById(id);
      if (fold && fold.tagName === "DETAILS") fold.open = true;
    });
    openFolds = [];
  }

  // A form with data-confirm asks first (an inline onsubmit would need 'unsafe-inline').
  document.addEventListener("submit", function (evt) {
    var message = evt.target.dataset && evt.target.dataset.confirm;
    if (message && !window.confirm(message)) evt.preventDefault();
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

  ps.folds = { remember: rememberFolds, reopen: reopenFolds };
})(window.paretoscope = window.paretoscope || {});
