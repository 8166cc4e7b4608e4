/** Baseline for scripts/bench_agent_start.ts: a bare `Deno.serve` hello-world on 127.0.0.1. */
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen: () => {} },
  () => new Response("hello"),
);
console.log(`Hello: http://127.0.0.1:${server.addr.port}`);
