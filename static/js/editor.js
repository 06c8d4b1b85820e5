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
