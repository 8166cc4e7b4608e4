/**
 * Shared field schemas of the contract (README.md § Operations):
 * `eik` (EIK / Bulstat, `^[0-9]{9,13}$`), `year` (1900–2999), `month` (1–12), status enums,
 * dates, and the inline local-input shapes `_inlineFile` / `_inlineDir`.
 * @module
 */
import { z } from "zod";

/** EIK / Bulstat: 9 to 13 digits (README.md § Operations). */
export const Eik = z.string().regex(/^[0-9]{9,13}$/, "must be 9 to 13 digits (EIK / Bulstat)")
  .meta({ example: "121212121", description: "EIK / Bulstat, 9 to 13 digits" });

/** Calendar year 1900–2999. */
export const Year = z.number().int("must be an integer").min(1900).max(2999)
  .meta({ example: 2026, format: "int64" });

/** Month 1–12. */
export const Month = z.number().int("must be an integer").min(1).max(12)
  .meta({ example: 10, format: "int64" });

/** `ok` or `error`, the status of most results. */
export const OkError = z.enum(["ok", "error"]);

/** Nullable string. */
export const NStr = z.string().nullable();

/** ISO date (YYYY-MM-DD), nullable. */
export const NDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/).nullable().meta({ format: "date" });

/** ISO date-time, nullable. */
export const NDateTime = z.string().nullable().meta({ format: "date-time" });

/** A number (EUR or BGN, 2 decimals; see README § Currency). */
export const Amount = z.number().meta({ format: "double" });

/** int64 counter. */
export const Int = z.number().int().meta({ format: "int64" });

/** An absolute local path (Windows `C:\…`, UNC `\\server\…` or POSIX `/…`). */
export const LocalPath = z.string().min(1, "must not be empty").max(4096);

/** One file given inline instead of a local path: its name and the base64 of its original
 * bytes (CP1251 for NRA text files). Limits: 20 MiB decoded per file. */
export const InlineFile = z.object({
  name: z.string().min(1).max(255).regex(
    // deno-lint-ignore no-control-regex
    /^[^\\/:*?"<>|\u0000-\u001f]+$/,
    "must be a bare file name",
  )
    .meta({ example: "DEKLAR.TXT" }),
  contentBase64: z.string().meta({
    description: "Base64 (standard alphabet) of the file's original bytes",
  }),
}).meta({
  id: "InlineFile",
  description:
    "A local file sent inline: a bare file name plus the base64 of its original bytes (NRA text files stay CP1251). Limit: 20 MiB per decoded file.",
});

/** A folder given inline: a list of files, each with a relative path (segments separated by
 * `/`) and base64 content. Limits: 2,000 files, 48 MiB decoded in all (the body itself is limited to 64 MiB). */
export const InlineDir = z.object({
  name: z.string().min(1).max(255).optional().meta({
    description: "Display name of the folder (default `inline`)",
  }),
  files: z.array(z.object({
    path: z.string().min(1).max(1024).meta({
      example: "2026-10/DEKLAR.TXT",
      description: "Path relative to the folder, `/`-separated, no `..` segments",
    }),
    contentBase64: z.string(),
  })).max(2000),
}).meta({
  id: "InlineDir",
  description:
    "A local folder sent inline: files with relative `/`-separated paths and base64 content of their original bytes. Limits: 2,000 files, 20 MiB per file, 48 MiB in all; the whole body at most 64 MiB.",
});

/** Fields every operation body may carry for inline local input (docs/local-input.md
 * § Where local input comes from: `_inlineFile` or `_inlineDir` instead of a path). */
export const inlineFields = {
  _inlineFile: InlineFile.optional(),
  _inlineDir: InlineDir.optional(),
};

/** Result metadata. `errorCode` is `NO_DATA` when the result is empty (see README § NO_DATA). */
export const ResultMetadata = z.object({
  errorCode: z.literal("NO_DATA").optional(),
}).meta({
  id: "ResultMetadata",
  description:
    'Present with `errorCode: "NO_DATA"` when a successful result (status ok) has an empty list: items/files is [] (or count/rowCount is 0). HTTP status stays 200.',
});

/** Field added to every result shape. */
export const metadataField = { metadata: ResultMetadata.optional() };

/**
 * The two modes of an API key, of the tokens it is exchanged for and of the portal a filing goes
 * to: `test` (a `svc_test_` key; the test portal) and `live` (a `svc_live_` key; the NRA). One
 * name for the pair everywhere (docs/tokens.md § Claims).
 */
export type KeyMode = "test" | "live";
/** The key modes, for schemas and option lists. */
export const KEY_MODES = ["test", "live"] as const satisfies readonly KeyMode[];
