/**
 * The non-null rule (docs/architecture.md § Layers, "Type checking"): every non-null assertion
 * (`x!`) in src/ carries a `// non-null: <why>` comment on its line or just above it, or is gone.
 * scripts/non_null.ts finds them with the TypeScript parser.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { nonNullAssertions, srcNonNullAssertions } from "../../scripts/non_null.ts";

Deno.test("every non-null assertion in src/ says why it holds (// non-null: …)", async () => {
  const all = await srcNonNullAssertions();
  ok(all.length > 0, "src/ has non-null assertions (indexes in range by construction)");
  const bare = all.filter((f) => !f.explained).map((f) => `${f.at}  ${f.line}`);
  equal(bare.join("\n"), "", "non-null assertions without a '// non-null:' comment");
});

Deno.test("the parser finds assertions, not !==, logical not or a ! in a string or comment", () => {
  const text = [
    "const a = xs[0]!;",
    "if (a !== b && !c) log('done!');",
    "// x! in a comment",
    "const s = `${m.get(k)!}!`;",
    "f(g()!.h, [y!]);",
  ].join("\n");
  deepEqual(nonNullAssertions("x.ts", text).map((f) => f.at), [
    "x.ts:1",
    "x.ts:4",
    "x.ts:5",
    "x.ts:5",
  ]);
});

Deno.test("a comment on the line or in the comment lines just above explains; code between does not", () => {
  const text = [
    "const a = xs[0]!; // non-null: xs is never empty",
    "// non-null: the map was filled above",
    "const b = m.get(k)!;",
    "// non-null: a reason that goes on",
    "// over two lines",
    "const c = ys[1]!;",
    "// non-null: not for the next line of code",
    "const d = 1;",
    "const e = zs[2]!;",
    "const f = ws[3]!; // a comment without the word",
    "const g = vs[4]! /* non-null: inside a template's ${} */;",
  ].join("\n");
  deepEqual(
    nonNullAssertions("x.ts", text).map((f) => [f.at, f.explained]),
    [
      ["x.ts:1", true],
      ["x.ts:3", true],
      ["x.ts:6", true],
      ["x.ts:9", false],
      ["x.ts:10", false],
      ["x.ts:11", true],
    ],
  );
});
