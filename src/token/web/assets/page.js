const post = async (url, body, csrf) => {
  const headers = { "content-type": "application/json" };
  if (csrf) headers["x-csrf-token"] = csrf;
  const r = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  const j = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(j.error || String(r.status));
  return j;
};
const say = (text, ok) => {
  const el = document.getElementById("passkey-status");
  if (el) {
    el.textContent = text;
    el.className = ok ? "ok" : "bad";
  }
};
const reg = document.getElementById("passkey-register");
if (reg) {
  reg.addEventListener("click", async () => {
    try {
      const { base, csrf } = reg.dataset;
      const optionsJSON = await post(base + "/passkeys/options", {}, csrf);
      const answer = await SimpleWebAuthnBrowser.startRegistration({ optionsJSON });
      await post(base + "/passkeys", answer, csrf);
      say("✓", true);
      location.reload();
    } catch (e) {
      say(String(e && e.message || e), false);
    }
  });
}
const signIn = document.getElementById("passkey-sign-in");
if (signIn) {
  signIn.addEventListener("click", async () => {
    try {
      const { base } = signIn.dataset;
      const optionsJSON = await post(base + "/passkey/options", {});
      const answer = await SimpleWebAuthnBrowser.startAuthentication({ optionsJSON });
      const done = await post(base + "/passkey/verify", answer);
      location.assign(done.redirect);
    } catch (e) {
      say(String(e && e.message || e), false);
    }
  });
}
for (const b of document.querySelectorAll("button[data-copy]")) {
  b.addEventListener("click", async () => {
    const el = document.getElementById(b.dataset.copy);
    try {
      await navigator.clipboard.writeText(el.textContent.trim());
      b.dataset.copied = "1";
    } catch {
      const r = document.createRange();
      r.selectNodeContents(el);
      const s = getSelection();
      s.removeAllRanges();
      s.addRange(r);
    }
  });
}
