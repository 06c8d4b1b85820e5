// The studio's test chat beside the editor (a static file: the Content-Security-Policy allows no
// inline script). The panel is swapped in by htmx, so listeners sit on the document.
(function () {
  "use strict";

  // A prompt's buttons (an enum value, Allow / Don't allow) send their answer through the form.
  document.addEventListener("click", function (event) {
    var button = event.target.closest("#tc-log [data-say]");
    if (!button) return;
    var form = document.querySelector("#test-chat .tc-form");
    form.querySelector("input[name=text]").value = button.dataset.say;
    htmx.trigger(form, "submit");
  });

  // Open or closed: where the panel is docked over the page (below the wide layout's reserved column) it
  // starts closed, so it covers no pane until asked for; the analyst's own choice is kept for the tab,
  // across the panel's reloads after each edit.
  var DOCKED = window.matchMedia("(max-width: 79.99rem)");
  var CHOICE = "concerto.test-chat.open";

  function settle() {
    var panel = document.getElementById("test-chat");
    if (!panel) return;
    var chosen = null;
    try { chosen = window.sessionStorage.getItem(CHOICE); } catch (e) { /* storage off: defaults only */ }
    panel.open = chosen !== null ? chosen === "1" : !DOCKED.matches;
  }

  document.addEventListener("click", function (event) {
    var summary = event.target.closest("#test-chat > summary");
    if (!summary) return;
    var opening = !summary.parentElement.open;  // the click's default action toggles it after this
    try { window.sessionStorage.setItem(CHOICE, opening ? "1" : "0"); } catch (e) { /* not kept */ }
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.target && event.detail.target.id === "test-chat-slot") settle();
  });

  // After a message went through: clear the box, keep the focus there, show the newest turn.
  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.target.closest && event.target.closest("#test-chat .tc-form");
    if (!form || !event.detail.successful) return;
    form.reset();
    form.querySelector("input[name=text]").focus();
    document.getElementById("tc-log").scrollTop = 1e9;
  });
})();
