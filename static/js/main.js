// Page events, each handled once, in order: the concerns (charts.js, tables.js, forms.js,
// upload.js) only define what to do; this file decides when. Loaded last.
(function (ps) {
  "use strict";

  function each(fn) { if (fn) fn.apply(null, Array.prototype.slice.call(arguments, 1)); }

  document.addEventListener("DOMContentLoaded", function () {
    ps.tables.label(document);
    ps.charts.draw(document);
  });

  // Before a swap: note the open folds and the details inputs being edited.
  document.addEventListener("htmx:beforeSwap", function (evt) {
    ps.folds.remember();
    each(ps.upload && ps.upload.keepDetails, evt);
  });

  // After a swap: reopen those folds, mark staged files, put the edited inputs back.
  document.addEventListener("htmx:afterSwap", function (evt) {
    ps.folds.reopen();
    each(ps.upload && ps.upload.markStaged, evt);
    each(ps.upload && ps.upload.restoreDetails);
  });

  // After settling: label the new tables, draw the new charts, preview edits made meanwhile.
  document.addEventListener("htmx:afterSettle", function (evt) {
    ps.tables.label(document);
    ps.charts.draw(evt.detail.elt || document);
    each(ps.upload && ps.upload.previewEdited);
  });
})(window.paretoscope = window.paretoscope || {});
