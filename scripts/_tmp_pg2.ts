import postgres from "postgres";
import process from "node:process";
const base = "postgres://svc@127.0.0.1:55432/svc_test?search_path=bench28c";
const pool = postgres(base, { onnotice: () => {}, max: 4 });
const N = 10_000;
const mk = (i: number) => ({
  at: Date.now() + i,
  integratorId: "int_bench",
  keyId: "key_bench_1",
  typeId: "vat_declaration",
  eiks: "121212121",
  status: 200,
  errorCode: i % 10 ? null : "EIK_NOT_ALLOWED",
  requestId: crypto.randomUUID(),
});
async function probe(name: string, f: () => Promise<unknown>) {
  let maxLag = 0, last = performance.now();
  const t = setInterval(() => {
    const n = performance.now();
    maxLag = Math.max(maxLag, n - last - 1);
    last = n;
  }, 1);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await f();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  clearInterval(t);
  console.log(
    `${name}: wall ${wall.toFixed(0)} ms, cpu ${
      ((c.user + c.system) / N).toFixed(1)
    } us/row, max stall ${maxLag.toFixed(1)} ms`,
  );
}
for (let r = 0; r < 4; r++) {
  const e = Array.from({ length: N }, (_, i) => mk(i));
  await probe("multi-row 400", async () => {
    await pool.begin(async (tx) => {
      for (let i = 0; i < N; i += 400) {
        const rows = e.slice(i, i + 400);
        const ph = rows.map((_, j) =>
          `($${j * 8 + 1},$${j * 8 + 2},$${j * 8 + 3},$${j * 8 + 4},$${j * 8 + 5},$${j * 8 + 6},$${
            j * 8 + 7
          },$${j * 8 + 8})`
        ).join(",");
        await tx.unsafe(
          `INSERT INTO request_log (at, integrator_id, key_id, type_id, eiks, status, error_code, request_id) VALUES ${ph}`,
          rows.flatMap((
            x,
          ) => [
            x.at,
            x.integratorId,
            x.keyId,
            x.typeId,
            x.eiks,
            x.status,
            x.errorCode,
            x.requestId,
          ]),
          { prepare: true },
        );
      }
    });
  });
  const e2 = Array.from({ length: N }, (_, i) => mk(i));
  await probe("unnest 10k", async () => {
    const col = <K extends keyof ReturnType<typeof mk>>(k: K) => e2.map((x) => x[k]);
    await pool.unsafe(
      `INSERT INTO request_log (at, integrator_id, key_id, type_id, eiks, status, error_code, request_id) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[], $8::text[])`,
      [
        col("at"),
        col("integratorId"),
        col("keyId"),
        col("typeId"),
        col("eiks"),
        col("status"),
        col("errorCode"),
        col("requestId"),
      ] as never,
      { prepare: true },
    );
  });
}
console.log(
  (await pool`SELECT count(*) FROM request_log`)[0],
  (await pool`SELECT count(*) FROM request_log WHERE error_code IS NULL`)[0],
);
await pool.end();
