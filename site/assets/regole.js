// Rules reference: copy a paragraph's link, and jump to a rule number typed in the search.
// Pages of a game carry a hidden link to that game's rules page (#cartiera-regole), so a
// number such as "4.1a" becomes that page's anchor "r4.1a" wherever the site is served.
(function () {
  "use strict";
  var NUMBER = /^\s*(\d+(?:\.\d+)*[a-z]?)\.?\s*$/;

  function copy(text, button) {
    function done() {
      button.classList.add("cartiera-copiato");
      button.title = "Link copiato";
      setTimeout(function () { button.classList.remove("cartiera-copiato"); }, 1500);
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { fallback(text); done(); });
    } else {
      fallback(text);
      done();
    }
  }

  function fallback(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    try { document.execCommand("copy"); } catch (e) { /* nothing more to try */ }
    area.remove();
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest(".cartiera-copia");
    if (!button) return;
    var url = location.href.split("#")[0] + "#" + button.dataset.ancora;
    copy(url, button);
  });

  function rulesPage() {
    var link = document.getElementById("cartiera-regole");
    return link ? link.href.split("#")[0] : null;
  }

  function jump(number) {
    var page = rulesPage();
    if (!page) return false;
    var target = page + "#r" + number;
    if (location.href.split("#")[0] === page && document.getElementById("r" + number)) {
      location.hash = "r" + number;
      var toggle = document.getElementById("__search");
      if (toggle) toggle.checked = false;
      document.activeElement && document.activeElement.blur();
      document.getElementById("r" + number).scrollIntoView();
    } else {
      location.href = target;
    }
    return true;
  }

  document.addEventListener("keydown", function (event) {
    var field = event.target;
    if (event.key !== "Enter" || !field.matches || !field.matches("input.md-search__input")) return;
    var match = NUMBER.exec(field.value);
    if (match && jump(match[1])) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);

  // While a number is typed, say what Enter does, above Material's results.
  document.addEventListener("input", function (event) {
    var field = event.target;
    if (!field.matches || !field.matches("input.md-search__input")) return;
    var hint = document.getElementById("cartiera-salto");
    var match = NUMBER.exec(field.value);
    var page = rulesPage();
    if (!match || !page) { if (hint) hint.hidden = true; return; }
    var output = document.querySelector(".md-search-result");
    if (!hint && output) {
      hint = document.createElement("a");
      hint.id = "cartiera-salto";
      hint.className = "cartiera-salto";
      output.parentNode.insertBefore(hint, output);
    }
    if (!hint) return;
    hint.hidden = false;
    hint.href = page + "#r" + match[1];
    hint.textContent = "Premi Invio per andare alla regola " + match[1];
  }, true);
})();
