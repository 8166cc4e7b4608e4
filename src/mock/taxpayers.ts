/**
 * The `taxpayers` generator: the taxpayers for which the (test) sender's certificate holds a
 * power of attorney, derived from the sender id alone (seed `taxpayers|${senderId}`). Mostly
 * companies (BUS_BULSTAT, valid 9-digit Bulstats) plus a couple of natural persons (IND_EGN,
 * valid EGNs); the company names, e-mails and addresses come from the same profiles as every
 * other report. Implements docs/test-portal.md § taxpayers (TaxpayersResult).
 * @module
 */
import type { ReportItemOf, ReportResultOf } from "../contract/mod.ts";
import { addDays, dotDate, isoDate } from "./dates.ts";
import { randomEgn, randomEik } from "./ids.ts";
import { fullName, randomPerson, slug } from "./names.ts";
import { companyProfile } from "./profile.ts";
import { type Rng, rngFor } from "./rng.ts";

/** Sender id used when the call has no sender (a test key without a configured sender). */
export const DEFAULT_TEST_SENDER = "test-sender";

const SCOPES = [
  "подаване на декларации, документи и искания по електронен път",
  "получаване на информация за задължения и плащания",
  "подаване на декларации обр. 1 и обр. 6 и уведомления по чл. 62 КТ",
  "подаване на справки-декларации по ЗДДС и VIES-декларации",
  "всички електронни услуги на НАП",
];

function authorizationText(rng: Rng, active: boolean): string {
  const from = isoDate(rng.int(2019, 2024), rng.int(1, 12), rng.int(1, 28));
  const until = active ? addDays(from, 365 * rng.int(3, 6)) : addDays(from, 365);
  const number = `${rng.int(1000, 9999)}-${rng.int(10, 99)}`;
  return `Пълномощно № ${number} от ${dotDate(from)}, валидно до ${dotDate(until)}: ` +
    rng.pick(SCOPES);
}

/**
 * The taxpayers a sender may act for; the same sender id always gets the same list, different
 * senders get different lists.
 *
 * Implements docs/test-portal.md § taxpayers (TaxpayersResult).
 * @param senderId the sender's id (PortalContext.sender.id), or null for {@link DEFAULT_TEST_SENDER}
 * @returns status ok with 4–9 taxpayers
 * @throws nothing
 * @example
 * ```ts
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(taxpayers("acme").items.every((t) => t.pin.length === 9 || t.pinType === "IND_EGN"), true);
 * ```
 */
export function taxpayers(senderId: string | null): ReportResultOf<"taxpayers"> {
  const rng = rngFor("taxpayers", senderId ?? DEFAULT_TEST_SENDER);
  const companies = rng.int(3, 7);
  const persons = rng.int(1, 2);
  const items: ReportItemOf<"taxpayers">[] = [];
  for (let i = 0; i < companies + persons; i++) {
    const active = i === 0 || rng.chance(0.85);
    const tin = rng.int(100_000_000, 999_999_999);
    if (i < companies) {
      const profile = companyProfile(randomEik(rng));
      items.push({
        name: profile.name,
        pin: profile.eik,
        pinType: "BUS_BULSTAT",
        tin,
        active: active ? "yes" : "no",
        authorization: authorizationText(rng, active),
        email: profile.email,
      });
      continue;
    }
    const person = randomPerson(rng);
    const egn = randomEgn(rng, person.female);
    items.push({
      name: fullName(person),
      pin: egn,
      pinType: "IND_EGN",
      tin,
      active: active ? "yes" : "no",
      authorization: authorizationText(rng, active),
      email: rng.chance(0.7)
        ? `${slug(person.first)}.${slug(person.last)}@${
          rng.pick(["abv.bg", "gmail.com", "mail.bg"])
        }`
        : null,
    });
  }
  return { status: "ok", count: items.length, items, error: null };
}
