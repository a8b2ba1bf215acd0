import assert from "node:assert/strict";
import { describe, test } from "node:test";
import Big from "big.js";
import { AppError } from "../../src/domain/errors.ts";
import {
  assertCanMarkUnpaid,
  markPaidAmount,
  paymentBalance,
  paymentStatusOf,
  paymentValues,
} from "../../src/domain/payments/rules.ts";

const at = (s: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, s));
const pay = (amount: string, s: number) => ({ amount, created_at: at(s) });
const b = (s: string) => new Big(s);

function refused(fn: () => unknown, code: string, pattern?: RegExp): AppError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof AppError, String(e));
    assert.equal(e.code, code);
    if (pattern) assert.match(e.message, pattern);
    return e;
  }
  assert.fail("expected a refusal");
}

describe("payment_status and paid_at (the contract decisions on action bodies and responses)", () => {
  test("unpaid, partial, paid; paid_at is the payment that made it paid", () => {
    assert.deepEqual(paymentStatusOf(b("100"), []), { payment_status: "unpaid", paid_at: null });
    assert.deepEqual(paymentStatusOf(b("100"), [pay("30", 1)]), { payment_status: "partial", paid_at: null });
    assert.deepEqual(paymentStatusOf(b("100"), [pay("30", 1), pay("70", 2)]), {
      payment_status: "paid",
      paid_at: at(2),
    });
    // overpaid: the first payment reaching the total
    assert.deepEqual(paymentStatusOf(b("100"), [pay("150", 1), pay("5", 2)]), {
      payment_status: "paid",
      paid_at: at(1),
    });
    // a deleted payment takes paid back to partial; a raised total too
    assert.deepEqual(paymentStatusOf(b("100"), [pay("70", 2)]), { payment_status: "partial", paid_at: null });
    assert.deepEqual(paymentStatusOf(b("120"), [pay("30", 1), pay("70", 2)]), {
      payment_status: "partial",
      paid_at: null,
    });
    // a zero total: money paid is partial, never paid
    assert.deepEqual(paymentStatusOf(b("0"), [pay("10", 1)]), { payment_status: "partial", paid_at: null });
    assert.deepEqual(paymentStatusOf(b("0"), []), { payment_status: "unpaid", paid_at: null });
  });

  test("balance", () => {
    assert.deepEqual(Object.values(paymentBalance(b("100"), [{ amount: "30.5" }])).map(String), [
      "30.5",
      "69.5",
    ]);
    assert.equal(paymentBalance(b("100"), [{ amount: "130" }]).balance.toString(), "0");
  });
});

describe("payment bodies", () => {
  test("defaults: today, method other, the order's currency", () => {
    const v = paymentValues({ amount: 12.5 }, "USD", "2030-05-03");
    assert.deepEqual(
      { ...v, amount: v.amount.toString() },
      {
        amount: "12.5",
        currency: "USD",
        paid_on: "2030-05-03",
        method: "other",
        reference: null,
        note: null,
      },
    );
    const w = paymentValues(
      { amount: "7", paid_on: "2030-01-02", method: "wire", reference: "R-1", note: "n", currency: "JPY" },
      "JPY",
      "2030-05-03",
    );
    assert.deepEqual(
      { ...w, amount: w.amount.toString() },
      {
        amount: "7",
        currency: "JPY",
        paid_on: "2030-01-02",
        method: "wire",
        reference: "R-1",
        note: "n",
      },
    );
  });

  test("refusals list every problem", () => {
    const e = refused(
      () => paymentValues({ amount: 0, currency: "EUR" }, "USD", "2030-05-03"),
      "validation_failed",
    );
    assert.deepEqual(
      e.details?.map((d) => [d.field, d.code]),
      [
        ["amount", "must_be_positive"],
        ["currency", "currency_mismatch"],
      ],
    );
    const cases: [number | string, string, string][] = [
      [-1, "USD", "must_be_positive"],
      ["1.001", "USD", "too_many_decimals"],
      ["1.5", "JPY", "too_many_decimals"],
      ["1e3", "USD", "invalid_decimal"],
      ["abc", "USD", "invalid_decimal"],
      ["1000000000000000", "USD", "out_of_range"],
    ];
    for (const [amount, currency, code] of cases) {
      const err = refused(() => paymentValues({ amount }, currency, "2030-05-03"), "validation_failed");
      assert.deepEqual(
        err.details?.map((d) => [d.field, d.code]),
        [["amount", code]],
        `${amount} ${currency}`,
      );
    }
  });
});

describe("mark_paid and mark_unpaid", () => {
  test("mark_paid pays the balance; refused when paid or when there is nothing to pay", () => {
    assert.equal(markPaidAmount(b("100"), "USD", []).toString(), "100");
    assert.equal(markPaidAmount(b("100"), "USD", [pay("30.25", 1)]).toString(), "69.75");
    refused(() => markPaidAmount(b("100"), "USD", [pay("100", 1)]), "invalid_transition", /\bpaid\b/);
    refused(() => markPaidAmount(b("0"), "USD", []), "invalid_transition", /nothing to pay/);
    refused(() => markPaidAmount(b("0"), "USD", [pay("5", 1)]), "invalid_transition", /\bpartial\b/);
  });

  test("mark_unpaid needs payments", () => {
    refused(() => assertCanMarkUnpaid(b("100"), []), "invalid_transition", /\bunpaid\b/);
    assertCanMarkUnpaid(b("100"), [pay("1", 1)]);
    assertCanMarkUnpaid(b("100"), [pay("100", 1)]);
  });
});
