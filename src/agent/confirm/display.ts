/**
 * Text on the confirmation page as the user must read it: characters that are invisible or
 * that reorder what is shown around them (bidi overrides and isolates such as U+202E, zero-width
 * and other format characters, C0/C1 controls, line and paragraph separators, lone surrogates,
 * private-use characters) are replaced by a visible marker, so a path like
 * `…/Documents/‮TXT.exe/…` cannot pose as something else.
 * @module
 */

/** Control (Cc), format (Cf: bidi, zero-width, BOM…), surrogate (Cs), private-use (Co), line and
 * paragraph separator (Zl, Zp) characters. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Zl}\p{Zp}]/gu;

/**
 * Make hidden characters visible.
 * @param s any text shown on the page
 * @returns the text with each hidden character replaced by `⟨U+XXXX⟩`
 *
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(visible("/home/u/Documents/\u202eTXT.exe"), "/home/u/Documents/⟨U+202E⟩TXT.exe");
 * deepStrictEqual(visible("tab\there"), "tab⟨U+0009⟩here");
 * ```
 */
export function visible(s: string): string {
  return s.replace(HIDDEN, (ch) => {
    // non-null: the pattern matched one character, so it has a first code point
    const cp = ch.codePointAt(0)!;
    return `⟨U+${cp.toString(16).toUpperCase().padStart(4, "0")}⟩`;
  });
}

/**
 * The hidden characters of a text, each once, as markers (the page warns about them).
 * @param s the text
 * @returns markers such as `⟨U+202E⟩`, in order of first appearance (empty: none)
 *
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(hiddenIn("a\u202Eb\u202Ec\u200Bd"), ["⟨U+202E⟩", "⟨U+200B⟩"]);
 * ```
 */
export function hiddenIn(s: string): string[] {
  return [...new Set(s.match(HIDDEN) ?? [])].map(visible);
}
