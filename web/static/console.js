// Copy buttons: <button data-copy="input-id">. The page works without this script.
document.addEventListener("click", function (ev) {
  var btn = ev.target.closest("[data-copy]");
  if (!btn) return;
  var input = document.getElementById(btn.getAttribute("data-copy"));
  if (!input) return;
  input.select();
  var done = function () { btn.textContent = "Copied"; };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(input.value).then(done, function () { document.execCommand("copy"); done(); });
  } else {
    document.execCommand("copy");
    done();
  }
});

// On a narrow screen the navigation scrolls sideways: bring the current page's link into view.
var current = document.querySelector('[data-testid="nav"] [aria-current="page"]');
if (current && current.scrollIntoView) current.scrollIntoView({ block: "nearest", inline: "center" });
