// The page after "Confirm" follows its filings (page_follow.ts): asks `data-url` of #follow once
// a second and lists each filing as it ends; after `data-quiet` tries without one, it says the
// tab can be closed. Texts come from the agent (set as textContent, never as HTML), in the page's
// language (`<html lang>`); the receipt link's words are #follow's `data-receipt`.
(function () {
  const box = document.getElementById("follow"),
    list = document.getElementById("follow-list"),
    note = document.getElementById("follow-note"),
    url = box.dataset.url,
    quiet = +box.dataset.quiet,
    lang = document.documentElement.lang;
  let n = 0;
  function line(f) {
    const li = document.createElement("li");
    li.className = f.tone;
    li.dataset.id = f.id;
    li.dataset.final = String(f.final);
    const t = document.createElement("span");
    t.textContent = lang === "en" ? f.en : f.bg;
    li.appendChild(t);
    if (f.final) {
      const a = document.createElement("a");
      a.href = f.receipt;
      a.className = "receipt-link";
      a.target = "_blank";
      a.rel = "noopener";
      a.textContent = box.dataset.receipt;
      li.appendChild(document.createTextNode(" "));
      li.appendChild(a);
    }
    return li;
  }
  function tick() {
    n++;
    fetch(url, { cache: "no-store" }).then(function (r) {
      return r.json();
    }).then(function (j) {
      const fs = j.filings || [];
      list.replaceChildren.apply(list, fs.map(line));
      const done = fs.length > 0 && fs.every(function (f) {
        return f.final;
      });
      if (done || (!fs.length && n >= quiet)) {
        box.dataset.state = "done";
        note.hidden = false;
        return;
      }
      setTimeout(tick, 1000);
    })
      .catch(function () {
        setTimeout(tick, 2000);
      });
  }
  tick();
})();
