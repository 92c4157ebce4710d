// mdgraph site: the board's filter and the search page. No dependency, no network, no
// inline script (the pages' content security policy allows only this file).
"use strict";
(function () {
  function words(s) {
    return s.toLowerCase().split(/\s+/).filter(function (w) { return w.length > 0; });
  }

  // Board: hide the cards that do not match the text, type, owner, priority and parent
  // (any ancestor: the parent's whole subtree) chosen.
  var filter = document.getElementById("board-filter");
  if (filter) {
    var q = document.getElementById("q"), type = document.getElementById("type"), parent = document.getElementById("parent");
    var owner = document.getElementById("owner"), prio = document.getElementById("priority");
    var has = function (c, attr, v) { return (c.getAttribute(attr) || "").split("\n").indexOf(v) >= 0; };
    var shown = document.getElementById("shown");
    var cards = Array.prototype.slice.call(document.querySelectorAll(".card"));
    var apply = function () {
      var ws = words(q.value), t = type.value, p = parent.value, o = owner.value, pr = prio.value, n = 0;
      cards.forEach(function (c) {
        var text = c.getAttribute("data-text") || "";
        var ok = ws.every(function (w) { return text.indexOf(w) >= 0; }) &&
          (!t || c.getAttribute("data-type") === t) && (!p || has(c, "data-up", p)) &&
          (!o || has(c, "data-owner", o)) && (!pr || c.getAttribute("data-priority") === pr);
        c.classList.toggle("hidden", !ok);
        if (ok) { n++; }
      });
      shown.textContent = n + " of " + cards.length + " cards on this page";
    };
    filter.addEventListener("input", apply);
    filter.addEventListener("change", apply);
    filter.addEventListener("submit", function (e) { e.preventDefault(); });
    apply();
  }

  // Search: every word of the query in the id or the title; exact id first.
  var form = document.getElementById("search-form");
  if (form && window.MDGRAPH_DOCS) {
    var docs = window.MDGRAPH_DOCS, box = document.getElementById("sq");
    var list = document.getElementById("results"), count = document.getElementById("sn");
    var run = function () {
      var ws = words(box.value), hits = [];
      list.textContent = "";
      if (ws.length === 0) { count.textContent = docs.length + " documents"; return; }
      docs.forEach(function (d) {
        var id = d[0].toLowerCase(), hay = id + " " + d[1].toLowerCase();
        if (ws.every(function (w) { return hay.indexOf(w) >= 0; })) {
          hits.push({ d: d, rank: id === box.value.trim().toLowerCase() ? 0 : id.indexOf(ws[0]) >= 0 ? 1 : 2 });
        }
      });
      hits.sort(function (a, b) { return a.rank - b.rank; });
      count.textContent = hits.length + " found";
      hits.slice(0, 200).forEach(function (h) {
        var li = document.createElement("li"), a = document.createElement("a"), badge = document.createElement("span");
        a.href = h.d[5] || "items/" + h.d[0] + ".html";
        var id = document.createElement("bdi"), title = document.createElement("bdi");
        id.textContent = h.d[0];
        a.appendChild(id);
        title.textContent = h.d[1];
        badge.className = "badge g-" + h.d[4];
        badge.textContent = h.d[3];
        li.appendChild(a);
        li.appendChild(document.createTextNode(" "));
        li.appendChild(title);
        li.appendChild(document.createTextNode(" · " + h.d[2] + " "));
        li.appendChild(badge);
        list.appendChild(li);
      });
    };
    box.addEventListener("input", run);
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    run();
  }
})();
