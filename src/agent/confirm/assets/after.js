// The consent page after its confirmation (page_after.ts): polls `{data-path}/state` while
// files are checked; to the PIN step when it opens; shown again when a check finishes. (The
// page may be the answer to the decision's POST: it names its own path, never reloads.)
(function () {
  const a = document.getElementById("after");
  const k = a.dataset.key;
  const p = a.dataset.path;
  if (a.dataset.poll !== "1") return;
  setInterval(function () {
    fetch(p + "/state").then(function (r) {
      return r.json();
    })
      .then(function (j) {
        const x = j.after;
        if (!x) return location.replace(p);
        if (x.next) return location.replace(x.next);
        if ([x.checking, x.failed, x.passed].join("/") !== k) location.replace(p);
      }).catch(function () {});
  }, 500);
})();
