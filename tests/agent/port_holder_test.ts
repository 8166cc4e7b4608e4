/**
 * Naming the other agent on the usual port (src/agent/start/port_holder.ts): the listening
 * socket's owner read from a /proc/net/tcp text, nothing reported for a port no agent answers
 * on, and the words when only the version is visible (Windows, macOS).
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import {
  listenerOf,
  otherAgentWords,
  portHolderWords,
  whoHoldsPort,
} from "../../src/agent/start/mod.ts";

const TCP =
  `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:443E 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001        0 5551 1 0 100 0 0 10 0
   1: 0100007F:443E 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1001        0 5552 1 0 100 0 0 10 0
   2: 00000000:443F 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 5553 1 0 100 0 0 10 0
`;

Deno.test("listenerOf() finds the loopback listener of a port and its owner", () => {
  deepEqual(listenerOf(TCP, 17470), { uid: 1001, inode: "5551" });
  equal(listenerOf(TCP, 17471), null, "0.0.0.0, not loopback");
  equal(listenerOf(TCP, 17472), null);
});

Deno.test("whoHoldsPort() reports nothing where no agent answers", async () => {
  const notAgent = () => Promise.resolve(new Response(JSON.stringify({ service: "other" })));
  equal(await whoHoldsPort(17470, { fetch: notAgent }), null);
  equal(await whoHoldsPort(17470, { fetch: () => Promise.reject(new Error("refused")) }), null);
});

Deno.test("whoHoldsPort() names another user's agent from /proc without its data folder", async () => {
  const agent = () =>
    Promise.resolve(new Response(JSON.stringify({ service: "svc-agent", version: "0.0.9" })));
  const files: Record<string, string> = {
    "/proc/net/tcp": TCP,
    "/etc/passwd": "root:x:0:0::/root:/bin/sh\nmaria:x:1001:1001::/home/maria:/bin/sh\n",
  };
  const h = await whoHoldsPort(17470, {
    fetch: agent,
    os: "linux",
    readTextFile: (p) => files[p] ? Promise.resolve(files[p]) : Promise.reject(new Error(p)),
    uid: () => 1000,
  });
  deepEqual(h, { port: 17470, version: "0.0.9", user: "maria", dataDir: null, sameUser: false });
  const w = portHolderWords(h, 17471);
  match(
    w.en,
    /holds the usual port 17470 \(version 0\.0\.9, user maria\); this agent runs on 17471/,
  );
  match(
    w.en,
    /in the session of user maria: "Stop the agent" in its console, or svc-filing agent stop/,
  );
  match(w.bg, /в профила на потребителя maria: бутонът „Спри агента“/);
});

Deno.test("otherAgentWords(): the first agent's warning names the other and how to stop it", () => {
  const mine = {
    port: 17471,
    version: "0.1.0",
    user: "ivan",
    dataDir: "/d/second",
    sameUser: true,
  };
  const w = otherAgentWords(mine, "svc-filing");
  match(
    w.bg,
    /Още един агент работи на този компютър, на порт 17471 \(версия 0\.1\.0, потребител ivan, папка с данни \/d\/second\)/,
  );
  match(w.bg, /изпълнете svc-filing agent stop --data-dir \/d\/second\.$/);
  match(w.en, /run svc-filing agent stop --data-dir \/d\/second\.$/);
  const theirs = otherAgentWords({ ...mine, user: "maria", dataDir: null, sameUser: false });
  match(theirs.en, /in the session of user maria/);
  const unknown = otherAgentWords({ ...mine, user: null, dataDir: null, sameUser: null });
  match(unknown.en, /"Stop the agent" in its console, or svc-filing agent stop\.$/);
});

Deno.test("portHolderWords() with the version only (not Linux)", async () => {
  const agent = () =>
    Promise.resolve(new Response(JSON.stringify({ service: "svc-agent", version: "1.2.3" })));
  const h = await whoHoldsPort(17470, { fetch: agent, os: "windows" });
  deepEqual(h, { port: 17470, version: "1.2.3", user: null, dataDir: null, sameUser: null });
  const w = portHolderWords(h, 17472);
  ok(w.en.includes("(version 1.2.3)"), w.en);
  ok(!w.bg.includes("потребител"), w.bg);
});
