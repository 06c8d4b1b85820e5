// The editor's one script (a static file: the Content-Security-Policy allows no inline script).
// A suggestion button puts its name into the field it belongs to: in a list of names it
// replaces the word it corrects (or completes the one being typed), then re-validates.
document.addEventListener("click", function (event) {
  var button = event.target.closest("[data-replace-in]");
  if (!button) return;
  var input = document.getElementById(button.dataset.replaceIn);
  if (!input) return;
  var to = button.dataset.to, from = button.dataset.from;
  if (input.dataset.names) {
    var words = input.value.split(/[\s,]+/).filter(Boolean);
    var at = from ? words.lastIndexOf(from) : words.length - 1;
    if (at < 0) words.push(to); else words[at] = to;
    input.value = words.join(", ") + ", ";
  } else {
    input.value = to;
  }
  input.focus();
  input.dispatchEvent(new Event("input", {bubbles: true}));
});

// The editor after htmx swaps it: keep the analyst where they were working.
//
// A save replaces the whole editor, which would drop the keyboard focus at the top of the page.
// The server names the card it saved (the `studio-focus` event, after the swap); a refused save
// names nothing, and the first thing to fix gets the focus instead: a question to confirm, a
// refusal written in a card, or the first field in error.
(function () {
  "use strict";

  function focusOn(element) {
    if (!element) return false;
    if (!element.matches("a, button, input, select, textarea, [tabindex]")) element.setAttribute("tabindex", "-1");
    element.focus({preventScroll: true});
    element.scrollIntoView({block: "nearest"});
    return true;
  }

  document.addEventListener("studio-focus", function (event) {
    var id = event.detail && event.detail.id;
    if (id) focusOn(document.getElementById(id));
  });

  document.addEventListener("htmx:afterSettle", function (event) {
    var swapped = event.detail.target;
    var status = event.detail.xhr.status;
    if (!swapped || swapped.id !== "editor" || (status !== 422 && status !== 409)) return;
    var target = document.getElementById("editor");  // an outerHTML swap: the new one, not the old
    focusOn(target.querySelector("[data-takes-focus]")) ||
      focusOn(target.querySelector(".has-error input, .has-error textarea, .has-error select")) ||
      focusOn(target.querySelector("[role=alert]"));
  });

  // Typing in one form, then saving another, would drop what was typed: a save redraws the
  // editor. A form typed in is marked, and saving a different one asks first.
  document.addEventListener("input", function (event) {
    var form = event.target.closest && event.target.closest("#editor form.edit-form");
    if (form) form.setAttribute("data-unsaved", "");
  });

  document.addEventListener("htmx:confirm", function (event) {
    var form = event.detail.elt;
    if (!form.matches || !form.matches("#editor form.edit-form, #editor .undo-bar form")) return;
    var others = Array.prototype.filter.call(
      document.querySelectorAll("#editor form.edit-form[data-unsaved]"), function (other) { return other !== form; });
    if (!others.length) return;
    event.preventDefault();
    var names = others.map(function (other) {
      var button = other.querySelector(".form-actions button[type=submit]");
      return button ? "“" + button.textContent.trim() + "”" : "another form";
    });
    var question = "You have typed in a form you have not saved (" + names.join(", ") + "). " +
      "Saving this one redraws the editor and drops what you typed there.\n\nSave this one anyway?";
    if (window.confirm(question)) event.detail.issueRequest(true);
  });
})();
