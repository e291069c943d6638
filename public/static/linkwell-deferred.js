/* Linkwell: the App Store button's clipboard hand-off (sites with deferredLinks.ios: "clipboard").
   On the visitor's tap, the link this page is for is copied to the clipboard, then the browser
   follows the button to the App Store as it would without this script. After the install the app
   reads the link once, at its first launch, and opens it. Nothing else is read or sent. */
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var button = event.target && event.target.closest ? event.target.closest("a[data-linkwell-copy]") : null;
    if (!button || !navigator.clipboard || !navigator.clipboard.writeText) return;
    event.preventDefault();
    var gone = false;
    var go = function () {
      if (gone) return;
      gone = true;
      window.location.href = button.href;
    };
    navigator.clipboard.writeText(button.getAttribute("data-linkwell-copy")).then(go, go);
    // A clipboard that never answers must not keep the visitor from the store.
    window.setTimeout(go, 1500);
  });
})();
