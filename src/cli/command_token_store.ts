/**
 * The token store of the commands that work on the token service's database (`keys create`,
 * `admin …`): SVC_DATABASE_URL (PostgreSQL), else SQLite in the data directory.
 * @module
 */
import type { TokenStore } from "../token/mod.ts";
import type { CliContext } from "./context.ts";

/**
 * The token store of `keys create` and `admin`: the context's (tests), or the one of
 * SVC_DATABASE_URL / the data directory, closed after `use`.
 * @param cli the context
 * @param dataDir the data directory (SQLite)
 * @param use what to do with it
 * @returns what `use` returned
 */
export async function withTokenStore<T>(
  cli: Pick<CliContext, "env" | "tokenStore">,
  dataDir: string,
  use: (store: TokenStore) => Promise<T>,
): Promise<T> {
  if (cli.tokenStore) return await use(cli.tokenStore);
  const { openTokenStore } = await import("../token/mod.ts");
  const store = await openTokenStore({ dataDir, databaseUrl: cli.env.SVC_DATABASE_URL });
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}
