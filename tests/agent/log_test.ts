import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { jsonLogger, maskPersonalId, redact } from "../../src/log.ts";

Deno.test("redact() hides API keys, JWTs, PINs and passwords, by key name and inside any text", () => {
  const r = redact({
    authorization: "Bearer abc",
    pin: "1234",
    nested: {
      clientSecret: "s",
      note: "key svc_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA used",
    },
    list: ["eyJhbGciOiJFZERTQSJ9.eyJ0eXBlSWQiOiJ2YXQifQ.c2ln"],
    eik: "121212121",
  }) as Record<string, unknown>;
  equal(r.authorization, "[redacted]");
  equal(r.pin, "[redacted]");
  equal((r.nested as Record<string, unknown>).clientSecret, "[redacted]");
  equal((r.nested as Record<string, unknown>).note, "key [redacted] used");
  equal((r.list as string[])[0], "[redacted]");
  equal(r.eik, "121212121");
});

Deno.test("jsonLogger() writes one JSON line per entry with secrets redacted and respects the level", () => {
  const lines: string[] = [];
  const log = jsonLogger((l) => lines.push(l), "info");
  log("debug", "hidden");
  log("info", "token issued", { requestId: "r1", token: "eyJx.eyJy.z", apiKey: "svc_test_x" });
  equal(lines.length, 1);
  const j = JSON.parse(lines[0]!);
  equal(j.msg, "token issued");
  equal(j.requestId, "r1");
  equal(j.token, "[redacted]");
  equal(j.apiKey, "[redacted]");
  ok(!lines[0]!.includes("svc_test_x"));
});

Deno.test("redact() masks a natural person's EGN in EIK-like fields and a well-formed EGN inside any text", () => {
  const r = redact({
    eik: "7501020018",
    eiks: ["121212121", "7501020018"],
    taxpayerEgn: 7501020018,
    bulstat: "121212121",
    msg: "Filing for EIK 7501020018 refused",
    note: "document 1234567890 of 2026-09-10",
    nested: { uic: "8001010008" },
  }) as Record<string, unknown>;
  equal(r.eik, "75******18");
  deepStrictEqual(r.eiks, ["121212121", "75******18"]);
  equal(r.taxpayerEgn, "75******18");
  equal(r.bulstat, "121212121");
  equal(r.msg, "Filing for EIK 75******18 refused");
  equal(r.note, "document 1234567890 of 2026-09-10", "ten digits that are no EGN stay");
  deepStrictEqual(r.nested, { uic: "80******08" });
  equal(maskPersonalId("203456783"), "203456783");
});
