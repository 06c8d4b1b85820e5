// The Assistants screen: "Copy the tag" puts an assistant's embed tag on the clipboard (a static file:
// the Content-Security-Policy allows no inline script).
(function () {
  "use strict";

  function said(button, text) {
    var status = button.parentElement.querySelector(".copied");
    if (status) status.textContent = text;
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-copy]");
    if (!button) return;
    var source = document.getElementById(button.dataset.copy);
    if (!source) return;
    var text = source.value;
    var copied = navigator.clipboard && window.isSecureContext
      ? navigator.clipboard.writeText(text)
      : new Promise(function (resolve, reject) {  // plain http on another host: the older way
        source.select();
        if (document.execCommand("copy")) resolve(); else reject(new Error("copy refused"));
      });
    copied.then(function () { said(button, "Copied."); },
      function () { source.select(); said(button, "Select the tag and copy it (Ctrl+C)."); });
  });
})();
