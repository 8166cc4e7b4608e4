/**
 * nginx in front of two token-service instances, configured from the scale-out example
 * (examples/scale-out/token-service.conf.template) rendered the way the official nginx image
 * renders its templates.
 * @module
 */
import { freePort } from "./e2e.ts";

/** The scale-out example's folder. */
export const DIR = new URL("../../examples/scale-out/", import.meta.url);
const TEMPLATE = await Deno.readTextFile(new URL("token-service.conf.template", DIR));

/** The template with its `${NAME}`s replaced, as the nginx image's envsubst step does. */
function render(vars: Record<string, string>): string {
  return TEMPLATE.replace(/\$\{([A-Z0-9_]+)\}/g, (all, name: string) => vars[name] ?? all);
}

/** The template's own variables (nginx's `$variables` are not among them). */
export const templateVars =
  () => [...new Set([...TEMPLATE.matchAll(/\$\{([A-Z0-9_]+)\}/g)].map((m) => m[1]!))];

/** Start nginx in the foreground with the rendered template inside http {} (on `port`, else a
 * free one). */
export async function startNginx(upstreams: string[], port = freePort()) {
  const dir = await Deno.makeTempDir({ prefix: "svc-nginx-" });
  await Deno.writeTextFile(
    `${dir}/token-service.conf`,
    render({
      TOKEN_UPSTREAM_1: upstreams[0]!,
      TOKEN_UPSTREAM_2: upstreams[1]!,
      PROXY_LISTEN: `127.0.0.1:${port}`,
    }),
  );
  const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
    .map((t) => `${t}_temp_path ${dir}/${t};`).join(" ");
  await Deno.writeTextFile(
    `${dir}/nginx.conf`,
    `${Deno.uid() === 0 ? "user root;" : ""} daemon off; pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events {}
http { access_log ${dir}/access.log; ${temp} include ${dir}/token-service.conf; }
`,
  );
  const child = new Deno.Command("nginx", {
    args: ["-p", dir, "-c", `${dir}/nginx.conf`],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const up = await fetch(`${url}/health`).then((r) => (r.body?.cancel(), r.ok), () => false);
    if (up) break;
    if (Date.now() > deadline) {
      throw new Error(
        `nginx did not start: ${await Deno.readTextFile(`${dir}/error.log`).catch(() => "")}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    errorLog: () => Deno.readTextFile(`${dir}/error.log`).catch(() => ""),
    async stop() {
      child.kill("SIGQUIT");
      await child.status;
      await child.stderr.cancel().catch(() => {});
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}
