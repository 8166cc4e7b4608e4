import assert from "node:assert/strict";
import fc from "fast-check";
import { isValidEik as formatsIsValidEik } from "../../src/formats/mod.ts";
import {
  completeEik,
  egnBirthDate,
  egnCheckDigit,
  eikCheckDigit13,
  eikCheckDigit9,
  isValidEgn,
  isValidEik,
  randomEgn,
  randomEik,
  rngFor,
} from "../../src/mock/mod.ts";
import { FC_PARAMS } from "./_support.ts";

Deno.test("eikCheckDigit9() matches known Bulstats", () => {
  assert.equal(eikCheckDigit9("12121212"), 1);
  assert.equal(eikCheckDigit9("13106318"), 8); // НАП's own Bulstat 131063188
  assert.equal(eikCheckDigit9("12345678"), 6);
  assert.equal(completeEik("99999990"), "999999904");
});

Deno.test("eikCheckDigit9() falls back to weights 3…10, then 0", () => {
  let secondPass = 0;
  for (let n = 0; n < 2000; n++) {
    const p = String(n).padStart(8, "0");
    const w1 = [...p].reduce((s, d, i) => s + Number(d) * (i + 1), 0) % 11;
    if (w1 !== 10) continue;
    secondPass++;
    const w2 = [...p].reduce((s, d, i) => s + Number(d) * (i + 3), 0) % 11;
    assert.equal(eikCheckDigit9(p), w2 === 10 ? 0 : w2);
  }
  assert.ok(secondPass > 0);
});

Deno.test("isValidEik() checks 9- and 13-digit EIKs", () => {
  assert.equal(isValidEik("121212121"), true);
  assert.equal(isValidEik("121212122"), false);
  assert.equal(isValidEik("12121212"), false);
  assert.equal(isValidEik("12121212A"), false);
  const first12 = "121212121" + "000";
  const eik13 = first12 + String(eikCheckDigit13(first12));
  assert.equal(isValidEik(eik13), true);
  assert.equal(isValidEik(first12 + String((eikCheckDigit13(first12) + 1) % 10)), false);
  assert.equal(isValidEik("1212121220001"), false); // bad 9-digit part
});

Deno.test("isValidEik() agrees with the format module's EIK check", () => {
  fc.assert(
    fc.property(fc.stringMatching(/^[0-9]{9}$|^[0-9]{13}$/), (eik) => {
      assert.equal(isValidEik(eik), formatsIsValidEik(eik));
    }),
    { ...FC_PARAMS, numRuns: 2000 },
  );
  fc.assert(
    fc.property(fc.stringMatching(/^[0-9]{12}$/), (first12) => {
      const prefix9 = completeEik(first12.slice(0, 8)) + first12.slice(9);
      const eik = prefix9 + String(eikCheckDigit13(prefix9));
      assert.equal(isValidEik(eik), true);
      assert.equal(formatsIsValidEik(eik), true);
    }),
    FC_PARAMS,
  );
});

Deno.test("isValidEgn() checks the date and the check digit", () => {
  assert.equal(isValidEgn("7501020018"), true);
  assert.equal(egnCheckDigit("750102001"), 8);
  assert.equal(isValidEgn("7501020019"), false);
  assert.equal(isValidEgn("7513020018"), false); // month 13
  assert.deepEqual(egnBirthDate("0541150000"), [2005, 1, 15]);
  assert.deepEqual(egnBirthDate("9922150000"), [1899, 2, 15]);
  assert.equal(egnBirthDate("0102300000"), null); // 30 February 1901
});

Deno.test("randomEik() and randomEgn() always produce valid identifiers", () => {
  const rng = rngFor("ids");
  for (let i = 0; i < 2000; i++) {
    const eik = randomEik(rng);
    assert.ok(isValidEik(eik) && eik.length === 9 && eik[0] !== "0", eik);
    const female = i % 2 === 0;
    const egn = randomEgn(rng, female);
    assert.ok(isValidEgn(egn), egn);
    assert.equal(Number(egn[8]) % 2, female ? 1 : 0);
  }
});
