// fabricops view: the search box. The index (assets/search-index.js) is loaded on first use by
// a <script> tag, which works from disk (file://) where fetch() does not.
"use strict";
(function () {
  const MAX = 25;
  const root = document.body.dataset.root || "";
  const input = document.getElementById("search");
  const list = document.getElementById("search-results");
  let index = null; // {targets: [[url, title, detail]], keys: [[lowercase key, target]]}
  let loading = null;
  let active = -1;

  function load() {
    if (!loading) {
      loading = new Promise(function (resolve, reject) {
        const script = document.createElement("script");
        script.src = root + "assets/search-index.js";
        script.onload = function () {
          const data = window.FABRICOPS_SEARCH;
          index = { targets: data.targets, keys: data.keys.map(function (k) { return [k[0].toLowerCase(), k[1]]; }) };
          resolve(index);
        };
        script.onerror = reject;
        document.head.appendChild(script);
      });
    }
    return loading;
  }

  // every word of the query must appear in the key; exact, then prefix, then shorter keys first
  function find(query) {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    if (!words.length) return [];
    const whole = words.join(" ");
    const best = new Map();
    for (const [key, target] of index.keys) {
      if (!words.every(function (w) { return key.includes(w); })) continue;
      const rank = key === whole ? 0 : key.startsWith(whole) ? 1 : 2;
      const score = [rank, key.length, key];
      const seen = best.get(target);
      if (!seen || compare(score, seen) < 0) best.set(target, score);
    }
    return Array.from(best.entries())
      .sort(function (a, b) { return compare(a[1], b[1]) || a[0] - b[0]; })
      .slice(0, MAX)
      .map(function (entry) { return index.targets[entry[0]]; });
  }

  function compare(a, b) {
    for (let i = 0; i < a.length; i++) {
      if (a[i] < b[i]) return -1;
      if (a[i] > b[i]) return 1;
    }
    return 0;
  }

  function show(results, query) {
    list.replaceChildren();
    list.dataset.query = query; // what the list shows results for
    active = -1;
    if (!query) { list.hidden = true; return; }
    if (!results.length) {
      const li = document.createElement("li");
      li.className = "none";
      li.textContent = "nothing matches " + query;
      list.appendChild(li);
    }
    for (const [url, title, detail] of results) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = root + url;
      const t = document.createElement("span");
      t.className = "title";
      t.textContent = title;
      const d = document.createElement("span");
      d.className = "detail";
      d.textContent = detail;
      a.append(t, d);
      li.appendChild(a);
      list.appendChild(li);
    }
    list.hidden = false;
  }

  let timer = null;
  input.addEventListener("input", function () {
    clearTimeout(timer);
    const query = input.value.trim();
    timer = setTimeout(function () {
      load().then(function () { show(find(query), query); });
    }, 80);
  });
  input.addEventListener("focus", function () { load(); });
  input.addEventListener("keydown", function (event) {
    const links = list.querySelectorAll("a");
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (!links.length) return;
      active = (active + (event.key === "ArrowDown" ? 1 : links.length - 1)) % links.length;
      links.forEach(function (a, i) { a.classList.toggle("active", i === active); });
    } else if (event.key === "Enter" && links.length) {
      window.location.href = links[Math.max(active, 0)].href;
    } else if (event.key === "Escape") {
      list.hidden = true;
    }
  });
  document.addEventListener("click", function (event) {
    if (!event.target.closest(".search")) list.hidden = true;
  });
})();
