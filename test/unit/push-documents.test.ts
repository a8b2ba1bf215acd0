import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  cutDocuments,
  documentFor,
  documentIdempotencyKey,
  MAX_DOCUMENT_CHANGES,
  movementIdempotencyKey,
} from "../../src/platform/push.ts";

/** A stock movement row as the push reads it (only the fields cutting and documents look at matter). */
function movement(
  id: number,
  m: { available?: number; onHand?: number; incoming?: number; reason?: string },
) {
  return {
    id,
    store_id: 3,
    subject_type: "receipt",
    subject_id: 1,
    inventory_item_id: 100 + (id % 7),
    location_id: 1,
    available_delta: m.available ?? 0,
    on_hand_delta: m.onHand ?? m.available ?? 0,
    incoming_delta: m.incoming ?? 0,
    unit_cost: null,
    unit_cost_currency: null,
    reason: m.reason ?? "received",
    reference: "stockroom://purchase_orders/1/receipts/1",
    created_at: new Date(0),
    pushed_at: null,
  } as Parameters<typeof documentFor>[0][number];
}

const movementsArb = fc
  .array(
    fc.record({
      available: fc.integer({ min: -3, max: 3 }),
      onHandOnly: fc.integer({ min: -1, max: 1 }),
      incoming: fc.integer({ min: -2, max: 2 }),
      reason: fc.constantFrom("received", "received", "received", "correction"),
    }),
    { maxLength: 400 },
  )
  .map((specs) =>
    specs.map((s, i) =>
      movement(i + 1, {
        available: s.available,
        onHand: s.available + s.onHandOnly,
        incoming: s.incoming,
        reason: s.reason,
      }),
    ),
  );

describe("platform push documents", () => {
  test("one reason, few changes: one document keyed by its movement ids", () => {
    const moves = [movement(11, { available: 2 }), movement(12, { available: -1, incoming: 4 })];
    const documents = cutDocuments(moves);
    assert.equal(documents.length, 1);
    const doc = documentFor(documents[0]);
    assert.equal(doc.idempotencyKey, "stockroom-3-movements-11-12-2");
    assert.deepEqual(
      doc.changes.map((c) => [c.name, c.delta]),
      [
        ["available", 2],
        ["available", -1],
        ["incoming", 4],
      ],
    );
  });

  test("a document of one movement keeps the per-movement key", () => {
    assert.equal(documentIdempotencyKey(3, [42]), movementIdempotencyKey(3, 42));
    assert.equal(documentFor([movement(42, { available: 1 })]).idempotencyKey, "stockroom-3-movement-42");
  });

  test("jobs queued before grouping push one movement per document", () => {
    const moves = [1, 2, 3].map((id) => movement(id, { available: 1 }));
    assert.deepEqual(
      cutDocuments(moves, false).map((d) => d.map((m) => m.id)),
      [[1], [2], [3]],
    );
  });

  test("a reason change or the change limit starts a new document", () => {
    const moves = [
      ...Array.from({ length: 130 }, (_, i) => movement(i + 1, { available: 1, incoming: -1 })),
      movement(131, { available: 1, reason: "correction" }),
    ];
    const documents = cutDocuments(moves);
    assert.deepEqual(
      documents.map((d) => d.length),
      [125, 5, 1],
    );
    assert.equal(documentFor(documents[0]).changes.length, MAX_DOCUMENT_CHANGES);
  });

  test("property: documents partition the movements in order, within the limit, one reason each", () => {
    fc.assert(
      fc.property(movementsArb, (moves) => {
        const documents = cutDocuments(moves);
        assert.deepEqual(
          documents.flat().map((m) => m.id),
          moves.map((m) => m.id),
        );
        for (const doc of documents) {
          assert.ok(doc.length > 0);
          assert.equal(new Set(doc.map((m) => m.reason)).size, 1);
          assert.ok(documentFor(doc).changes.length <= MAX_DOCUMENT_CHANGES);
        }
        const keys = documents.map((d) => documentFor(d).idempotencyKey);
        assert.equal(new Set(keys).size, keys.length);
      }),
    );
  });

  test("property: a retry that starts after acknowledged documents cuts the same remaining documents", () => {
    // Acknowledgement is per whole document, so a retry sees exactly the movements after some boundary;
    // it must send them under the keys the first attempt used (or the platform would move stock twice).
    fc.assert(
      fc.property(movementsArb, fc.nat(), (moves, pick) => {
        const documents = cutDocuments(moves);
        if (documents.length === 0) return;
        const acknowledged = pick % documents.length;
        const remaining = documents.slice(acknowledged).flat();
        assert.deepEqual(
          cutDocuments(remaining).map((d) => documentFor(d).idempotencyKey),
          documents.slice(acknowledged).map((d) => documentFor(d).idempotencyKey),
        );
      }),
    );
  });
});
