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
    if (!swapped || swapped.id !== "editor" || event.detail.xhr.status !== 422) return;
    var target = document.getElementById("editor");  // an outerHTML swap: the new one, not the old
    focusOn(target.querySelector("[data-takes-focus]")) ||
      focusOn(target.querySelector(".has-error input, .has-error textarea, .has-error select")) ||
      focusOn(target.querySelector("[role=alert]"));
  });
})();
