(function () {
  const bs = document.querySelectorAll("button");
  bs.forEach(function (b) {
    b.disabled = true;
  });
  setTimeout(function () {
    bs.forEach(function (b) {
      b.disabled = false;
    });
  }, 800);
  const seen = +document.getElementById("seen").value;
  let sent = false;
  document.getElementById("decision").addEventListener("submit", function () {
    sent = true;
  });
  setInterval(function () {
    if (sent) return;
    fetch(location.pathname + "/state").then(function (r) {
      return r.json();
    })
      .then(function (j) {
        if (!sent && j.version !== seen) location.reload();
      }).catch(function () {});
  }, 1000);
  const els = document.querySelectorAll(".countdown");
  let s = +document.getElementById("countdown").dataset.seconds;
  const t = setInterval(function () {
    s = Math.max(0, s - 1);
    els.forEach(function (el) {
      el.textContent = s;
    });
    if (!s) {
      clearInterval(t);
      document.querySelectorAll("button").forEach(function (b) {
        b.disabled = true;
      });
    }
  }, 1000);
})();
