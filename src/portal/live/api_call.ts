/**
 * One call of the NRA public API by the live portal (adapter.ts): the bearer token of the API
 * client (oauth.ts; renewed once when the portal refuses it), the POST (http.ts), and its
 * answer classified (nra_answer.ts) as accepted or refused; a refused token and a transport
 * failure are thrown with `details.outcome` (docs/nra-api.md §2, §7; docs/live-portal.md).
 * @module
 */
import { AppError } from "../../contract/mod.ts";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import { type Endpoint, postToPortal, withOutcome } from "./http.ts";
import { classifyApiAnswer, type NraEnvelope } from "./nra_answer.ts";
import type { TokenSource } from "./oauth.ts";

/** What a call of the API answered: the accepted body, or the NRA's refusal. */
export type Outcome =
  | { kind: "ok"; body: Record<string, unknown>; text: string }
  | { kind: "refused"; envelope: NraEnvelope; text: string };

/** The live portal's HTTP client: its token source, fetch, time-out, clock and log. */
export interface ApiClient {
  readonly tokenSource: () => TokenSource;
  readonly getFetch: () => Promise<typeof fetch>;
  readonly timeoutMs: number;
  readonly clock: Clock;
  readonly log: Logger;
}

/**
 * Call an endpoint of the API with a JSON body.
 * @param client the live portal's client
 * @param endpoint which endpoint (for errors and logs)
 * @param url its URL
 * @param body the JSON body
 * @param eik the EIK the call is for (the answer's checks)
 * @param signal aborts the call
 * @returns the accepted body, or the NRA's refusal
 * @throws AppError PORTAL_AUTH_FAILED (outcome "refused"), the token source's errors (outcome
 *   "not_filed" or "refused"), the transport codes of http.ts
 */
export async function callApi(
  client: ApiClient,
  endpoint: Endpoint,
  url: string,
  body: unknown,
  eik: string,
  signal?: AbortSignal,
): Promise<Outcome> {
  const { log } = client;
  const src = client.tokenSource();
  const payload = JSON.stringify(body);
  for (let attempt = 1;; attempt++) {
    let token: string;
    try {
      token = await src.bearer(signal);
    } catch (e) {
      // No request carried the declaration yet, or the only one was refused (401).
      throw withOutcome(e, attempt === 1 ? "not_filed" : "refused");
    }
    const answer = await postToPortal(await client.getFetch(), {
      endpoint,
      url,
      headers: {
        Authorization: `Bearer ${token}`,
        "Content-Type": "application/json",
        Accept: "application/json",
      },
      body: payload,
      timeoutMs: client.timeoutMs,
      signal,
      now: () => client.clock.now(),
    });
    const verdict = classifyApiAnswer(answer, endpoint, eik);
    if (verdict.kind !== "auth") return { ...verdict, text: answer.text };
    if (src.renewable && attempt === 1) {
      log("info", "portal refused the token; renewing it once", {
        endpoint,
        httpStatus: verdict.httpStatus,
        errorCode: verdict.errorCode,
      });
      src.invalidate();
      continue;
    }
    throw new AppError(
      "PORTAL_AUTH_FAILED",
      src.renewable
        ? "The NRA portal refused a newly issued token: check the API client's access"
        : "The NRA portal refused the pre-issued access token (portal.accessToken)",
      {
        endpoint,
        httpStatus: verdict.httpStatus,
        errorCode: verdict.errorCode,
        outcome: "refused",
      },
    );
  }
}
