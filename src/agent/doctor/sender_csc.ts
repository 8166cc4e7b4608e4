/**
 * The cloud sender's part of `agent doctor` (docs/signing.md § 11): the service
 * answers `info`, and the sign-in kept in the sender's token file can be refreshed into an
 * access token (a rotated refresh token is sealed again, as signing does). The tokens are
 * never shown; only the provider's name and host are. The certificate itself is checked by the
 * caller as for any sender (its `certificateFile`).
 * @module
 */
import { errorMessage } from "../../error_message.ts";
import { bi, type Bilingual } from "../../contract/mod.ts";
import { isAppError } from "../../contract/mod.ts";
import { cscClient, type CscRef, openRefreshToken, sealRefreshToken } from "../senders/mod.ts";
import { UserError } from "../../user_error.ts";

/** How the service and the sign-in went: a note to put before the certificate's verdict, or
 * why the sender cannot sign and what to do. */
export type CscServiceResult =
  | { readonly ok: true; readonly note: Bilingual }
  | { readonly ok: false; readonly detail: Bilingual; readonly fix: Bilingual };

const SIGN_IN_AGAIN = bi(
  "Влезте отново: страницата „Податели“ в конзолата, „Влезте отново“ при този подател (или " +
    "`svc-filing senders add --csc … --id <този id> --force`)",
  'Sign in again: the console\'s Senders page, "Sign in again" on this sender (or ' +
    "`svc-filing senders add --csc … --id <this id> --force`)",
);

/**
 * Check a cloud sender's service and kept sign-in.
 * @param ks the sender's `csc` key store reference from agent.json (unchecked)
 * @param timeoutMs the time limit of each call, ms
 * @returns `ok` with a note (provider's name and host), or the failure and its fix
 * @throws never
 */
export async function checkCscService(
  ks: Record<string, unknown>,
  timeoutMs: number,
): Promise<CscServiceResult> {
  const { serviceUrl, clientId, tokenFile } = ks;
  if (typeof serviceUrl !== "string" || typeof clientId !== "string" || !URL.canParse(serviceUrl)) {
    return {
      ok: false,
      detail: bi(
        "Липсва keystore.serviceUrl или keystore.clientId",
        "keystore.serviceUrl or keystore.clientId is missing",
      ),
      fix: bi(
        "Добавете облачния подател отново (`svc-filing senders add --csc …`)",
        "Add the cloud sender again (`svc-filing senders add --csc …`)",
      ),
    };
  }
  const host = new URL(serviceUrl).host;
  const ref: Pick<CscRef, "serviceUrl" | "clientId" | "caFile"> = {
    serviceUrl,
    clientId,
    ...(typeof ks.caFile === "string" ? { caFile: ks.caFile } : {}),
  };
  let name: string;
  let client;
  try {
    client = await cscClient(ref, timeoutMs);
    name = (await client.info()).name || host;
  } catch (e) {
    const why = errorMessage(e);
    return {
      ok: false,
      detail: bi(
        `Услугата за облачен подпис ${host} не отговаря на info: ${why}`,
        `The cloud signature service ${host} does not answer info: ${why}`,
      ),
      fix: bi(
        "Проверете връзката с интернет и адреса на услугата; ако доставчикът го е сменил, " +
          "добавете подателя отново",
        "Check the internet connection and the service address; if the provider moved it, " +
          "add the sender again",
      ),
    };
  }
  try {
    if (typeof tokenFile !== "string") {
      throw new UserError(
        "The cloud sender names no stored sign-in (keystore.tokenFile); add it again",
      );
    }
    const tokens = await client.refresh(await openRefreshToken(tokenFile));
    if (tokens.refreshToken) await sealRefreshToken(tokenFile, tokens.refreshToken);
  } catch (e) {
    const code = isAppError(e) ? e.code : "REMOTE_SIGN_IN_REQUIRED";
    return {
      ok: false,
      detail: bi(
        `${name} (${host}) отговаря, но запазеното влизане не може да се поднови (${code})`,
        `${name} (${host}) answers, but the kept sign-in cannot be refreshed (${code})`,
      ),
      fix: code === "REMOTE_SIGN_IN_REQUIRED" ? SIGN_IN_AGAIN : bi(
        "Пуснете проверките отново по-късно; ако остане, влезте отново",
        "Run the checks again later; if it stays, sign in again",
      ),
    };
  }
  return {
    ok: true,
    note: bi(
      `Облачен подпис при ${name} (${host}): услугата отговаря, влизането се подновява. `,
      `Cloud signature at ${name} (${host}): the service answers, the sign-in refreshes. `,
    ),
  };
}
