/**
 * System components for tests: a test that needs one skips with a clear message when it is
 * absent, and fails instead when `CI=true` (CI installs everything through .ci/run).
 */

/** Whether a program is on PATH. */
export function hasProgram(name: string): boolean {
  try {
    const out = new Deno.Command("sh", {
      args: ["-c", `command -v ${name}`],
      stdout: "null",
      stderr: "null",
    })
      .outputSync();
    return out.success;
  } catch {
    return false;
  }
}

/**
 * `ignore` value for Deno.test: true (skip, with a printed reason) when a program is missing,
 * outside CI. In CI a missing program makes the test run and fail.
 */
export function skipUnless(programs: string[], what: string): boolean {
  const missing = programs.filter((p) => !hasProgram(p));
  if (missing.length === 0) return false;
  if (Deno.env.get("CI") === "true") return false;
  console.error(
    `SKIP ${what}: missing ${missing.join(", ")} (install with: bash scripts/ci_packages.sh)`,
  );
  return true;
}
