import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AppError } from "../../src/domain/errors.ts";
import {
  assertCan,
  deriveStatusAfterReceiving,
  type OrderAction,
  type PurchaseOrderStatus,
  refusedPatchField,
  resolveTarget,
  STATUSES,
  statusAfterCancel,
  TRANSITIONS,
} from "../../src/domain/purchase-orders/transitions.ts";

// Written out from the contract decisions on purchase order lifecycle, independently of the module's table.
const ALLOWED: Record<OrderAction, PurchaseOrderStatus[]> = {
  mark_ordered: ["draft"],
  send: ["draft", "ordered", "in_transit", "partial"],
  mark_in_transit: ["ordered", "partial"],
  receipt: ["ordered", "in_transit", "partial"],
  cancel_remaining: ["ordered", "in_transit", "partial"],
  close: ["ordered", "in_transit", "partial", "received"],
  reopen: ["closed"],
  void_receipt: ["ordered", "in_transit", "partial", "received"],
  delete: ["draft"],
  archive: [...STATUSES],
  unarchive: [...STATUSES],
  add_lines: ["ordered", "in_transit", "partial"],
  duplicate: [...STATUSES],
};

const line = (quantity: number, received: number, cancelled: number) => ({
  quantity,
  received_quantity: received,
  cancelled_quantity: cancelled,
});

describe("purchase order transition table", () => {
  test("covers exactly the actions of the contract decisions on purchase order lifecycle", () => {
    assert.deepEqual(Object.keys(TRANSITIONS).sort(), Object.keys(ALLOWED).sort());
  });

  for (const action of Object.keys(ALLOWED) as OrderAction[]) {
    for (const status of STATUSES) {
      const allowed = ALLOWED[action].includes(status);
      test(`${action} from ${status} is ${allowed ? "allowed" : "refused"}`, () => {
        if (allowed) {
          assert.doesNotThrow(() => assertCan(action, status));
        } else {
          assert.throws(
            () => assertCan(action, status),
            (error: unknown) =>
              error instanceof AppError &&
              error.code === "invalid_transition" &&
              error.status === 422 &&
              error.message.includes(`is ${status}`),
          );
        }
      });
    }
  }

  test("targets: mark_ordered → ordered, close → closed, mark_in_transit → in_transit", () => {
    assert.equal(assertCan("mark_ordered", "draft"), "ordered");
    assert.equal(assertCan("send", "draft"), "ordered");
    assert.equal(assertCan("send", "partial"), "same");
    for (const s of ["ordered", "in_transit", "partial", "received"] as const)
      assert.equal(assertCan("close", s), "closed");
    assert.equal(assertCan("mark_in_transit", "ordered"), "in_transit");
    assert.equal(assertCan("mark_in_transit", "partial"), "in_transit");
  });
});

describe("derived statuses", () => {
  test("nothing received → ordered; something outstanding → partial; all received + cancelled → received", () => {
    assert.equal(deriveStatusAfterReceiving([line(5, 0, 0), line(3, 0, 0)]), "ordered");
    assert.equal(deriveStatusAfterReceiving([line(5, 0, 5)]), "ordered");
    assert.equal(deriveStatusAfterReceiving([line(5, 2, 0), line(3, 0, 0)]), "partial");
    assert.equal(deriveStatusAfterReceiving([line(5, 5, 0), line(3, 1, 2)]), "received");
    assert.equal(deriveStatusAfterReceiving([line(5, 7, 0)]), "received");
  });

  test("cancel_remaining: received only when nothing is outstanding and something was received", () => {
    assert.equal(statusAfterCancel("in_transit", [line(5, 0, 5)]), "in_transit");
    assert.equal(statusAfterCancel("partial", [line(5, 2, 3)]), "received");
    assert.equal(statusAfterCancel("partial", [line(5, 2, 3), line(1, 0, 0)]), "partial");
    assert.equal(resolveTarget("same_or_received", "ordered", [line(4, 1, 3)]), "received");
    assert.equal(resolveTarget("derived", "closed", [line(4, 1, 0)]), "partial");
    assert.equal(resolveTarget("same", "partial", []), "partial");
  });
});

describe("PATCH by state", () => {
  const everything = [
    "supplier_id",
    "currency",
    "type",
    "tax_rate_id",
    "location_id",
    "notes",
    "reference",
    "expected_at",
    "payment_due_on",
    "charges",
    "lines",
  ];
  test("a draft takes every field", () => {
    assert.equal(refusedPatchField("draft", everything), null);
  });
  test("open orders take notes, references, dates, charges and lines", () => {
    for (const s of ["ordered", "in_transit", "partial"] as const) {
      assert.equal(
        refusedPatchField(s, [
          "notes",
          "reference",
          "customer_order_number",
          "supplier_order_number",
          "invoice_number",
          "account_number",
          "expected_at",
          "payment_due_on",
          "charges",
          "lines",
        ]),
        null,
      );
      for (const f of ["supplier_id", "currency", "type", "tax_rate_id", "location_id", "updates_stock"])
        assert.equal(refusedPatchField(s, [f]), f);
    }
  });
  test("received and closed take notes, references and payment_due_on only", () => {
    for (const s of ["received", "closed"] as const) {
      assert.equal(refusedPatchField(s, ["notes", "invoice_number", "payment_due_on"]), null);
      for (const f of ["expected_at", "charges", "lines", "supplier_id"])
        assert.equal(refusedPatchField(s, [f]), f);
    }
  });
});
