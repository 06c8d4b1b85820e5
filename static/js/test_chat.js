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

  // After a message went through: clear the box, keep the focus there, show the newest turn.
  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.target.closest && event.target.closest("#test-chat .tc-form");
    if (!form || !event.detail.successful) return;
    form.reset();
    form.querySelector("input[name=text]").focus();
    document.getElementById("tc-log").scrollTop = 1e9;
  });
})();
