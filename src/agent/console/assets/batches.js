const running = () =>
  [...document.querySelectorAll("[data-batch],[data-scan]")]
    .some((e) => e.dataset.state === "running");
function show(el, b) {
  const bar = el.querySelector("progress");
  bar.max = Math.max(1, b.total);
  bar.value = b.done;
  el.querySelector(".count").textContent = b.done + " / " + b.total;
  // The page's language (the switch): the texts come in both, the page shows one.
  const lang = document.documentElement.lang === "en" ? "en" : "bg";
  el.querySelector(".status").textContent = b.status[lang];
  const left = el.querySelector(".left");
  if (left) left.textContent = b.left[lang];
}
async function poll() {
  if (!running()) return;
  try {
    const r = await fetch("/console/batches.json", { credentials: "same-origin" });
    if (!r.ok) return;
    const j = await r.json();
    const scans = [...document.querySelectorAll("[data-scan]")];
    if (scans.length !== j.scans.length) {
      location.reload();
      return;
    }
    j.scans.forEach((s, i) => show(scans[i], s));
    for (const b of j.batches) {
      const el = document.querySelector('[data-batch="' + CSS.escape(b.batchId) + '"]');
      if (!el || (b.state === "done" && el.dataset.state !== "done")) {
        location.reload();
        return;
      }
      show(el, b);
    }
  } finally {
    setTimeout(poll, 1000);
  }
}
setTimeout(poll, 1000);
