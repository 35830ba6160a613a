// Upload page: progress, a request that got no answer, files staged once, and the details form
// kept as the user edits it while a preview is on its way. Swap steps are wired in main.js.
(function (ps) {
  "use strict";

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
  function markStaged(evt) {
    var from = evt.detail.requestConfig && evt.detail.requestConfig.elt;
    if (!from || from.id !== "upload-form" || !document.getElementById("details-form")) return;
    from.dataset.staged = "1";
    from.querySelectorAll("button[type=submit]").forEach(function (b) { b.hidden = true; });
  }

  // Upload details: a preview answer replaces the details form, but never an input the user
  // is in or has changed since that request left: the live input (its value, focus and caret)
  // takes the place of the answer's, all in one task, so no keystroke lands in a field that
  // is going away. Inputs changed since are previewed again once the answer has settled, and
  // so are inputs changed between the swap and the settle, when the new form's triggers are
  // not wired yet and a change would be lost.
  var keep = null;
  var previewAgain = null;
  var swapped = null;
  function snapshot(form) {
    var values = {};
    form.querySelectorAll("input[name]:not([type=hidden])").forEach(function (input) {
      var box = input.type === "checkbox" || input.type === "radio";
      values[inputKey(input)] = box ? input.checked : input.value;
    });
    return values;
  }
  function changedSinceSwap(form) {
    if (!swapped || swapped.form !== form) return false;
    var now = snapshot(form);
    return Object.keys(now).some(function (key) { return now[key] !== swapped.values[key]; });
  }
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
  function keepDetails(evt) {
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
  }
  function restoreDetails() {
    var form = document.getElementById("details-form");
    putBackEdits(form);
    swapped = form ? { form: form, values: snapshot(form) } : null;
  }
  function putBackEdits(form) {
    var k = keep;
    keep = null;
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
  }
  // After settling: htmx wires the new form's triggers only then.
  function previewEdited() {
    var form = previewAgain || document.getElementById("details-form");
    var again = previewAgain !== null || (form !== null && changedSinceSwap(form));
    previewAgain = null;
    swapped = null;
    if (again && form.isConnected && window.htmx) window.htmx.trigger(form, "change");
  }

  ps.upload = {
    markStaged: markStaged,
    keepDetails: keepDetails,
    restoreDetails: restoreDetails,
    previewEdited: previewEdited
  };
})(window.paretoscope = window.paretoscope || {});
