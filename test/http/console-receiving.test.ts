/**
 * Receiving and payments in the console (issue 20 items 4 and 5), through HTTP as a browser without
 * script: the receive screen (outstanding per line; a scan adds one unit, an unknown code nothing; the
 * API's landed-cost preview before booking; the same booking form posted twice books one receipt; a
 * form changed after its preview is previewed again), refusals named on their field, receipts listed
 * on the order and voided after a question, payments added (once per form), deleted after a question,
 * marked paid and unpaid, with the status and balance due; and who may do which.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { ConsoleAgent, hiddenValue, pageText as text } from "../helpers/console-agent.ts";
import {
  createOrderedOrder,
  createSupplier,
  getOrder,
  listLocations,
  trackedVariants,
  type Variant,
} from "../helpers/factories.ts";
import { startSmtp, type TestSmtp } from "../helpers/smtp.ts";
import { joinStaff } from "../helpers/staff.ts";

describe("console receiving and payments", () => {
  let t: TestApp;
  let smtp: TestSmtp;
  let store: TestStore;
  let agent: ConsoleAgent;
  let variants: Variant[];
  let used = 0;
  const orderPath = (id: number, rest = "") => `/console/stores/${store.id}/purchase_orders/${id}${rest}`;

  before(async () => {
    smtp = await startSmtp();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
    store = await t.createStore({ seed: "demo" });
    await t.drain();
    variants = (await trackedVariants(store.api)).filter((v) => v.sku && v.barcode);
    agent = new ConsoleAgent(t);
    assert.equal((await agent.login()).status, 303);
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  /** An ordered order of two catalog items (3 at $10.00, 2 at $4.50) and $5.00 of shipping. */
  async function orderedOrder() {
    const [a, b] = [variants[used++], variants[used++]];
    assert.ok(a && b, "the demo catalog ran out of variants with a SKU and a barcode");
    const supplier = await createSupplier(store.api);
    const order = await createOrderedOrder(store.api, {
      supplier_id: supplier.id,
      lines: [
        { variant_id: a.id, quantity: 3, unit_cost: "10.00" },
        { variant_id: b.id, quantity: 2, unit_cost: "4.50" },
      ],
      charges: [{ kind: "shipping", amount: "5.00", allocation_method: "quantity" }],
    });
    const [lineA, lineB] = order.lines;
    return { order, a, b, lineA, lineB };
  }

  /** The value of a select as rendered ("" when its first, empty option is the one shown). */
  function selectedOf(body: string, name: string): string {
    const select =
      new RegExp(`<select id="${name}" name="${name}"[^>]*>([\\s\\S]*?)</select>`).exec(body)?.[1] ?? "";
    return /<option value="([^"]*)" selected>/.exec(select)?.[1] ?? "";
  }

  /** The receive form's fields as the page rendered them, then `changes`. */
  function formOf(body: string, lines: { id: number }[], changes: Record<string, string>) {
    const form: Record<string, string> = {
      _csrf: hiddenValue(body, "_csrf"),
      _key: hiddenValue(body, "_key"),
      location_id:
        /<select id="location_id" name="location_id"[^>]*>[\s\S]*?<option value="(\d+)" selected>/.exec(
          body,
        )?.[1] as string,
      rejected_disposition: "replace",
      scan: "",
    };
    for (const l of lines) {
      for (const name of ["received", "surplus", "rejected", "reason", "unit_cost", "lot", "expiry"])
        form[`${name}_${l.id}`] = new RegExp(`name="${name}_${l.id}" value="([^"]*)"`).exec(body)?.[1] ?? "";
      form[`destination_${l.id}`] = selectedOf(body, `destination_${l.id}`);
    }
    form.received_on = /name="received_on" value="([^"]*)"/.exec(body)?.[1] ?? "";
    return { ...form, ...changes };
  }

  const inputValue = (body: string, name: string) =>
    new RegExp(`name="${name}" value="([^"]*)"`).exec(body)?.[1];

  test("the receive screen shows what is outstanding; a scan adds one unit, an unknown code nothing", async () => {
    const { order, a, lineA, lineB } = await orderedOrder();
    const shown = await agent.get(orderPath(order.id));
    assert.match(shown.body, new RegExp(`href="${orderPath(order.id, "/receive")}">Receive a delivery</a>`));
    const screen = await agent.get(orderPath(order.id, "/receive"));
    assert.equal(screen.status, 200);
    assert.match(text(screen.body), /Receive PO-\d+/);
    assert.match(screen.body, new RegExp(`data-line="${lineA.id}" data-outstanding="3"`));
    assert.match(screen.body, new RegExp(`data-line="${lineB.id}" data-outstanding="2"`));
    const key = hiddenValue(screen.body, "_key");
    assert.match(key, /^[0-9a-f-]{36}$/);

    const scanned = await agent.post(
      orderPath(order.id, "/receive"),
      formOf(screen.body, order.lines, { _do: "scan", scan: (a.barcode as string).toUpperCase() }),
    );
    assert.equal(scanned.status, 200);
    assert.equal(inputValue(scanned.body, `received_${lineA.id}`), "1");
    assert.equal(inputValue(scanned.body, `received_${lineB.id}`), "");
    assert.match(text(scanned.body), new RegExp(`Scanned ${a.product_title}.*: 1 received\\.`));
    assert.equal(hiddenValue(scanned.body, "_key"), key, "the form keeps its Idempotency-Key");

    // Scans past what is outstanding count as surplus.
    let page = scanned.body;
    for (let i = 0; i < 3; i++)
      page = (
        await agent.post(
          orderPath(order.id, "/receive"),
          formOf(page, order.lines, { _do: "scan", scan: a.sku as string }),
        )
      ).body;
    assert.equal(inputValue(page, `received_${lineA.id}`), "3");
    assert.equal(inputValue(page, `surplus_${lineA.id}`), "1");

    const unknown = await agent.post(
      orderPath(order.id, "/receive"),
      formOf(page, order.lines, { _do: "scan", scan: "NO-SUCH-CODE" }),
    );
    assert.equal(unknown.status, 200);
    assert.match(
      text(unknown.body),
      new RegExp(`No line of ${order.number} has the SKU or barcode “NO-SUCH-CODE”\\. Nothing was added\\.`),
    );
    assert.equal(inputValue(unknown.body, `received_${lineA.id}`), "3");
    assert.equal(inputValue(unknown.body, `surplus_${lineA.id}`), "1");
    assert.equal((await getOrder(store.api, order.id)).receipts.length, 0, "a scan books nothing");
  });

  test("the landed-cost preview comes first; the same booking form posted twice books one receipt", async () => {
    const { order, lineA, lineB } = await orderedOrder();
    const screen = await agent.get(orderPath(order.id, "/receive"));
    const changes = {
      [`received_${lineA.id}`]: "3",
      [`received_${lineB.id}`]: "1",
      [`rejected_${lineB.id}`]: "1",
      [`reason_${lineB.id}`]: "cracked",
    };
    const preview = await agent.post(
      orderPath(order.id, "/receive"),
      formOf(screen.body, order.lines, { ...changes, _do: "preview" }),
    );
    assert.equal(preview.status, 200);
    // The API's own preview of the same receipt: $5.00 shipping over 5 ordered units is $1.00 a unit.
    const expected = await store.api.post(`/v2/purchase_orders/${order.id}/receipts/preview`, {
      lines: [
        { line_id: lineA.id, quantity: 3 },
        { line_id: lineB.id, quantity: 1, rejected: [{ quantity: 1, reason: "cracked" }] },
      ],
    });
    assert.deepEqual(
      expected.body.data.lines.map((l: any) => l.landed_unit_cost),
      ["11.00", "5.50"],
    );
    const shown = text(preview.body);
    assert.match(shown, /Before booking: landed costs/);
    assert.match(shown, /\$11\.00 USD/);
    assert.match(shown, /\$5\.50 USD/);
    assert.match(shown, new RegExp(`After booking, ${order.number} is partly received\\.`));
    assert.equal((await getOrder(store.api, order.id)).receipts.length, 0, "a preview books nothing");

    const booking = formOf(preview.body, order.lines, {
      _do: "book",
      _previewed: hiddenValue(preview.body, "_previewed"),
    });
    const first = await agent.post(orderPath(order.id, "/receive"), booking);
    assert.equal(first.status, 303);
    assert.equal(first.location, `${orderPath(order.id)}#receipts`);
    const again = await agent.post(orderPath(order.id, "/receive"), booking);
    assert.equal(again.status, 303);
    const after = await getOrder(store.api, order.id);
    assert.equal(after.receipts.length, 1, "one receipt for the double post");
    assert.deepEqual(
      after.receipts[0].lines.map((l: any) => [l.quantity, l.rejected_quantity]),
      [
        [3, 0],
        [1, 1],
      ],
    );
    assert.equal(after.status, "partial");
    const history = (await store.api.get(`/v2/purchase_orders/${order.id}/history`)).body.data;
    assert.deepEqual(
      history.filter((h: any) => h.type === "receipt_recorded").map((h: any) => [h.by, h.via]),
      [["operator", "console"]],
    );
    const page = text((await agent.get(orderPath(order.id))).body);
    assert.match(page, new RegExp(`Receipt booked on ${order.number}: 4 units into stock\\.`));
    assert.match(page, /Delivery 1/);
    assert.match(page, /1 × .* \(1 rejected\)/);
  });

  test("a form changed after its preview is previewed again and books nothing", async () => {
    const { order, lineA } = await orderedOrder();
    const screen = await agent.get(orderPath(order.id, "/receive"));
    const preview = await agent.post(
      orderPath(order.id, "/receive"),
      formOf(screen.body, order.lines, { [`received_${lineA.id}`]: "1", _do: "preview" }),
    );
    const changed = await agent.post(
      orderPath(order.id, "/receive"),
      formOf(preview.body, order.lines, {
        [`received_${lineA.id}`]: "2",
        _do: "book",
        _previewed: hiddenValue(preview.body, "_previewed"),
      }),
    );
    assert.equal(changed.status, 200);
    assert.match(text(changed.body), /The delivery changed since its preview/);
    assert.equal((await getOrder(store.api, order.id)).receipts.length, 0);
    const booked = await agent.post(
      orderPath(order.id, "/receive"),
      formOf(changed.body, order.lines, { _do: "book", _previewed: hiddenValue(changed.body, "_previewed") }),
    );
    assert.equal(booked.status, 303);
    assert.deepEqual(
      (await getOrder(store.api, order.id)).receipts.map((r: any) => r.lines.map((l: any) => l.quantity)),
      [[2]],
    );
  });

  test("refusals are named once on their field and book nothing", async () => {
    const { order, a, lineA, lineB } = await orderedOrder();
    const screen = await agent.get(orderPath(order.id, "/receive"));
    const post = (changes: Record<string, string>) =>
      agent.post(
        orderPath(order.id, "/receive"),
        formOf(screen.body, order.lines, { _do: "preview", ...changes }),
      );

    const nothing = await post({});
    assert.equal(nothing.status, 422);
    assert.match(
      text(nothing.body),
      /Nothing was booked\. Please correct: Enter at least one unit received or rejected\./,
    );

    const words = await post({ [`received_${lineA.id}`]: "two", [`surplus_${lineB.id}`]: "1" });
    assert.equal(words.status, 422);
    assert.match(words.body, new RegExp(`id="received_${lineA.id}"[^>]*aria-invalid="true"`));
    assert.match(words.body, new RegExp(`id="surplus_${lineB.id}"[^>]*aria-invalid="true"`));
    const shown = text(words.body);
    assert.equal(
      shown.split(`Received of ${a.product_title}`).length - 1,
      1,
      "the summary names the item once",
    );
    assert.match(
      words.body,
      new RegExp(`id="received_${lineA.id}-error">Received must be a whole number of 0 or more\\.</p>`),
    );
    assert.match(shown, /counts only units above the 2 outstanding: receive those first\./);
    assert.equal(inputValue(words.body, `received_${lineA.id}`), "two", "the form comes back as it was sent");

    // The API refuses a cost with more than 8 decimal places: named on that line's unit cost.
    const cost = await post({ [`received_${lineB.id}`]: "1", [`unit_cost_${lineB.id}`]: "1.123456789" });
    assert.equal(cost.status, 422);
    assert.match(cost.body, new RegExp(`id="unit_cost_${lineB.id}"[^>]*aria-invalid="true"`));
    assert.match(text(cost.body), /Unit cost of .+ must /);
    assert.equal((await getOrder(store.api, order.id)).receipts.length, 0);
  });

  test("each line goes where its Into says: two locations are two receipts, each booked once; lot, expiry, the received date and an item not on the order go with them", async () => {
    const locations = await listLocations(store.api);
    assert.ok(locations.length >= 2, "the demo store has two locations");
    const [main, other] = locations;
    const [a, b, c] = [variants[used++], variants[used++], variants[used++]];
    const supplier = await createSupplier(store.api);
    const order = await createOrderedOrder(store.api, {
      supplier_id: supplier.id,
      location_id: main.id,
      lines: [
        { variant_id: a.id, quantity: 1, unit_cost: "2.00", location_id: other.id },
        { variant_id: b.id, quantity: 2, unit_cost: "2.00" },
      ],
    });
    const [lineA, lineB] = order.lines;
    await t.drain();
    const level = async (itemId: number, locationId: number) =>
      (await store.api.get(`/v2/inventory_levels?inventory_item_id=${itemId}&location_id=${locationId}`)).body
        .data[0]?.available ?? 0;
    const before = {
      a: await level(a.inventory_item_id, other.id),
      b: await level(b.inventory_item_id, main.id),
      c: await level(c.inventory_item_id, main.id),
    };
    const screen = await agent.get(orderPath(order.id, "/receive"));
    // A line with a destination of its own on the order starts there; the others go with the delivery.
    assert.equal(selectedOf(screen.body, `destination_${lineA.id}`), String(other.id));
    assert.equal(selectedOf(screen.body, `destination_${lineB.id}`), "");
    assert.match(screen.body, /<legend>Items not on the order<\/legend>/);
    const changes = {
      [`received_${lineA.id}`]: "1",
      [`lot_${lineA.id}`]: "LOT-7",
      [`expiry_${lineA.id}`]: "2027-03-31",
      [`received_${lineB.id}`]: "2",
      received_on: "2026-01-15",
      extra_item_0: c.sku as string,
      extra_quantity_0: "3",
      extra_unit_cost_0: "1.25",
      extra_destination_0: "",
    };
    // An item not on the order needs a quantity: refused on its field, nothing booked.
    const noQuantity = await agent.post(
      orderPath(order.id, "/receive"),
      formOf(screen.body, order.lines, { ...changes, extra_quantity_0: "", _do: "preview" }),
    );
    assert.equal(noQuantity.status, 422);
    assert.match(noQuantity.body, /id="extra_quantity_0"[^>]*aria-invalid="true"/);
    assert.match(text(noQuantity.body), /must be a whole number of 1 or more/);
    const preview = await agent.post(
      orderPath(order.id, "/receive"),
      formOf(screen.body, order.lines, { ...changes, _do: "preview" }),
    );
    assert.equal(preview.status, 200, text(preview.body));
    const shown = text(preview.body);
    assert.match(shown, /booked as 2 receipts, one per location/);
    assert.match(shown, new RegExp(`${c.product_title}[^.]*\\(not on the order\\)`));
    assert.match(shown, new RegExp(`After booking, ${order.number} is received\\.`));
    assert.match(
      preview.body,
      /<button type="submit" name="_do" value="book">Book these 2 receipts<\/button>/,
    );
    const booking = formOf(preview.body, order.lines, {
      _do: "book",
      _previewed: hiddenValue(preview.body, "_previewed"),
      extra_item_0: inputValue(preview.body, "extra_item_0") as string,
      extra_quantity_0: "3",
      extra_unit_cost_0: "1.25",
      extra_destination_0: "",
    });
    const booked = await agent.post(orderPath(order.id, "/receive"), booking);
    assert.equal(booked.status, 303, text(booked.body));
    assert.match(
      text((await agent.get(orderPath(order.id))).body),
      new RegExp(`2 receipts booked on ${order.number}, one per location: 6 units into stock\\.`),
    );
    // The same form posted again (a double click, a reload) books nothing more.
    assert.equal((await agent.post(orderPath(order.id, "/receive"), booking)).status, 303);
    const after = await getOrder(store.api, order.id);
    assert.equal(after.receipts.length, 2);
    assert.equal(after.status, "received");
    const byLocation = new Map(after.receipts.map((r: any) => [r.location.id, r]));
    assert.deepEqual([...byLocation.keys()].sort(), [main.id, other.id].sort());
    for (const r of after.receipts) assert.match(r.received_at, /^2026-01-1[45]T/, "the day it arrived");
    const lineC = after.lines.find((l: any) => l.variant_id === c.id);
    assert.ok(lineC, "the item not on the order is a line of it now");
    assert.equal(lineC.received_quantity, 3);
    assert.deepEqual(
      (byLocation.get(main.id) as any).lines.map((l: any) => [l.line_id, l.quantity]).sort(),
      [
        [lineB.id, 2],
        [lineC.id, 3],
      ].sort(),
    );
    assert.equal(
      (byLocation.get(main.id) as any).lines.find((l: any) => l.line_id === lineC.id).unit_cost,
      "1.25",
    );
    assert.deepEqual(
      (byLocation.get(other.id) as any).lines.map((l: any) => [l.line_id, l.quantity]),
      [[lineA.id, 1]],
    );
    // Lot and expiry are stored on the receipt's line (they are not part of the Receipt shape).
    const lot = await t.runtime.ctx.db
      .selectFrom("receipt_lines")
      .select(["lot_number", "lot_expiry"])
      .where("receipt_id", "=", (byLocation.get(other.id) as any).id)
      .executeTakeFirstOrThrow();
    assert.equal(lot.lot_number, "LOT-7");
    assert.equal(String(lot.lot_expiry).slice(0, 10), "2027-03-31");
    await t.drain();
    assert.equal(await level(a.inventory_item_id, other.id), before.a + 1, "A went to its own destination");
    assert.equal(await level(b.inventory_item_id, main.id), before.b + 2, "B went with the delivery");
    assert.equal(await level(c.inventory_item_id, main.id), before.c + 3, "C too");
  });

  test("a draft or a received order has no receive form", async () => {
    const supplier = await createSupplier(store.api);
    const draft = (
      await store.api.post("/v2/purchase_orders", {
        supplier_id: supplier.id,
        lines: [{ product_title: "Custom part", quantity: 1, unit_cost: 1 }],
      })
    ).body.data;
    const page = await agent.get(orderPath(draft.id, "/receive"));
    assert.equal(page.status, 200);
    assert.match(
      text(page.body),
      new RegExp(`${draft.number} is draft: it takes deliveries once it is marked ordered\\.`),
    );
    assert.doesNotMatch(page.body, /<form method="post" action="[^"]*\/receive"/);
    assert.doesNotMatch((await agent.get(orderPath(draft.id))).body, /Receive a delivery/);
    assert.equal((await agent.get(orderPath(999999, "/receive"))).status, 404);
  });

  test("receipts are listed on the order; void asks first, then takes the stock back out", async () => {
    const { order, lineA } = await orderedOrder();
    const [location] = await listLocations(store.api);
    const screen = await agent.get(orderPath(order.id, "/receive"));
    const preview = await agent.post(
      orderPath(order.id, "/receive"),
      formOf(screen.body, order.lines, {
        [`received_${lineA.id}`]: "2",
        location_id: String(location.id),
        _do: "preview",
      }),
    );
    const booking = formOf(preview.body, order.lines, {
      _do: "book",
      _previewed: hiddenValue(preview.body, "_previewed"),
    });
    assert.equal((await agent.post(orderPath(order.id, "/receive"), booking)).status, 303);
    const receipt = (await getOrder(store.api, order.id)).receipts[0];
    assert.equal(receipt.location.id, location.id);
    const shown = await agent.get(orderPath(order.id));
    assert.match(
      shown.body,
      new RegExp(`href="${orderPath(order.id, `/receipts/${receipt.id}/void`)}">Void delivery 1…`),
    );

    const question = await agent.get(orderPath(order.id, `/receipts/${receipt.id}/void`));
    assert.equal(question.status, 200);
    assert.match(
      text(question.body),
      new RegExp(`Void delivery 1 of ${order.number}.*Its 2 units go back out of stock`),
    );
    assert.match(question.body, /<section class="confirm" aria-labelledby="confirm-question">/);
    assert.match(question.body, /<input type="text" id="void-note" name="note" maxlength="5000">/);
    const csrf = hiddenValue(question.body, "_csrf");
    const unconfirmed = await agent.post(orderPath(order.id, `/receipts/${receipt.id}/void`), {
      _csrf: csrf,
    });
    assert.equal(unconfirmed.status, 200, "without the confirmation it asks");
    assert.equal((await getOrder(store.api, order.id)).receipts[0].voided_at, null);
    const voided = await agent.post(orderPath(order.id, `/receipts/${receipt.id}/void`), {
      _csrf: csrf,
      confirm: "yes",
      note: "wrong order",
    });
    assert.equal(voided.status, 303);
    const after = await getOrder(store.api, order.id);
    assert.notEqual(after.receipts[0].voided_at, null);
    assert.equal(after.lines[0].outstanding_quantity, 3);
    const page = text((await agent.get(orderPath(order.id))).body);
    assert.match(page, new RegExp(`Delivery 1 of ${order.number} voided: its stock is reversed\\.`));
    assert.match(page, /voided/);
    assert.doesNotMatch(page, /Void delivery 1…/);
  });

  test("voiding a delivery that brought an item not on the order says so, and the order's total drops back", async () => {
    const { order, lineA } = await orderedOrder();
    const booked = await store.api.post(
      `/v2/purchase_orders/${order.id}/receipts`,
      {
        lines: [{ line_id: lineA.id, quantity: 1 }],
        unordered: [{ product_title: "Sample pack", quantity: 2, unit_cost: "1.50" }],
      },
      { "idempotency-key": `unordered-void-${order.id}` },
    );
    assert.equal(booked.status, 201);
    assert.equal(booked.body.purchase_order.totals.total, "47.00");
    const receiptId = booked.body.data.id;
    const question = await agent.get(orderPath(order.id, `/receipts/${receiptId}/void`));
    assert.match(
      text(question.body),
      /Its 3 units go back out of stock\. What was ordered becomes outstanding again; Sample pack, which was not on the order, leaves the order's total\./,
    );
    const voided = await agent.post(orderPath(order.id, `/receipts/${receiptId}/void`), {
      _csrf: hiddenValue(question.body, "_csrf"),
      confirm: "yes",
    });
    assert.equal(voided.status, 303);
    const after = await getOrder(store.api, order.id);
    assert.deepEqual(
      [after.totals.total, after.lines.map((l: any) => [l.quantity, l.received_quantity, l.line_total])],
      [
        "44.00",
        [
          [3, 0, "30.00"],
          [2, 0, "9.00"],
          [0, 0, "0.00"],
        ],
      ],
    );
    const page = text((await agent.get(orderPath(order.id))).body);
    assert.match(page, /Total \$44\.00 USD/);
    assert.match(page, /Balance due \$44\.00 USD/);
    assert.doesNotMatch(page, /\$47\.00/);
  });

  test("payments: status and balance due, one payment per form, delete and mark unpaid ask first", async () => {
    const { order } = await orderedOrder();
    // 3 × $10.00 + 2 × $4.50 + $5.00 shipping.
    assert.equal(order.totals.total, "44.00");
    const shown = await agent.get(orderPath(order.id));
    const page0 = text(shown.body);
    assert.match(page0, /Payment status Unpaid/);
    assert.match(page0, /Balance due \$44\.00 USD/);

    // The payment form's own Idempotency-Key, as the page (or the refused form) rendered it.
    const form = (changes: Record<string, string>, from = shown.body) => ({
      _csrf: hiddenValue(from, "_csrf"),
      _key: /name="_key" value="([0-9a-f-]{36})">\s*<div class="field"><label for="payment-amount">/.exec(
        from,
      )?.[1] as string,
      amount: "",
      paid_on: "",
      method: "bank transfer",
      reference: "",
      note: "",
      ...changes,
    });
    const refused = await agent.post(orderPath(order.id, "/payments"), form({ amount: "ten" }));
    assert.equal(refused.status, 422);
    assert.match(refused.body, /id="payment-amount"[^>]*aria-invalid="true"/);
    assert.match(text(refused.body), /No payment was recorded\. Please correct: Amount must/);
    assert.equal((await getOrder(store.api, order.id)).payments.length, 0);

    // A refused form comes back with a new key: the corrected payment is a new request.
    assert.notEqual(form({}, refused.body)._key, form({})._key);
    const paid = form({ amount: "10.50", reference: "INV-7", paid_on: "2026-01-15" }, refused.body);
    assert.equal((await agent.post(orderPath(order.id, "/payments"), paid)).status, 303);
    assert.equal((await agent.post(orderPath(order.id, "/payments"), paid)).status, 303);
    const afterOne = await getOrder(store.api, order.id);
    assert.deepEqual(
      afterOne.payments.map((p: any) => [p.amount, p.paid_on, p.method, p.reference]),
      [["10.50", "2026-01-15", "bank transfer", "INV-7"]],
    );
    assert.equal(afterOne.payments.length, 1, "one payment for the double post");
    assert.equal(afterOne.payment_status, "partial");
    const page1 = await agent.get(orderPath(order.id));
    assert.match(text(page1.body), /Payment of \$10\.50 USD recorded on/);
    // The method in a person's words, the stored value the API's.
    assert.match(page1.body, /<td data-label="Method">Bank transfer<\/td>/);
    assert.match(
      page1.body,
      /<option value="bank transfer" selected>Bank transfer<\/option><option value="card">Card<\/option>/,
    );
    assert.match(text(page1.body), /Payment status Partly paid/);
    assert.match(text(page1.body), /Balance due \$33\.50 USD/);

    const paymentId = afterOne.payments[0].id;
    const question = await agent.get(orderPath(order.id, `/payments/${paymentId}/delete`));
    assert.match(
      text(question.body),
      /Delete the payment of \$10\.50 USD made on 15 Jan 2026 \(bank transfer, INV-7\) from PO-\d+\? The balance due grows by \$10\.50 USD/,
    );
    // The console's one confirm step: its question heads the section, its button repeats the action.
    assert.match(question.body, /<section class="confirm" aria-labelledby="confirm-question">/);
    assert.match(
      question.body,
      /<button type="submit" class="danger">Delete the payment<\/button><\/form>\s*<a href="[^"]*#payments">Keep it<\/a>/,
    );
    const csrf = hiddenValue(question.body, "_csrf");
    assert.equal(
      (await agent.post(orderPath(order.id, `/payments/${paymentId}/delete`), { _csrf: csrf })).status,
      200,
    );
    assert.equal((await getOrder(store.api, order.id)).payments.length, 1, "unconfirmed: kept");
    const deleted = await agent.post(orderPath(order.id, `/payments/${paymentId}/delete`), {
      _csrf: csrf,
      confirm: "yes",
    });
    assert.equal(deleted.status, 303);
    assert.equal((await getOrder(store.api, order.id)).payments.length, 0);

    const markPaid = await agent.get(orderPath(order.id));
    assert.match(text(markPaid.body), /Mark paid \(\$44\.00 USD\)/);
    const markKey =
      /action="[^"]*\/mark_paid" class="inline"><input type="hidden" name="_csrf" value="[^"]*"><input type="hidden" name="_key" value="([^"]*)">/.exec(
        markPaid.body,
      )?.[1] as string;
    assert.equal(
      (await agent.post(orderPath(order.id, "/mark_paid"), { _csrf: csrf, _key: markKey })).status,
      303,
    );
    const paidOrder = await getOrder(store.api, order.id);
    assert.equal(paidOrder.payment_status, "paid");
    const page2 = text((await agent.get(orderPath(order.id))).body);
    assert.match(page2, /Payment status Paid/);
    assert.match(page2, /Balance due \$0\.00 USD/);
    assert.doesNotMatch(page2, /Mark paid \(/);

    const unpaidQuestion = (await agent.get(orderPath(order.id, "/mark_unpaid"))).body;
    assert.match(
      text(unpaidQuestion),
      /Mark PO-\d+ unpaid\? Its payment of \$44\.00 USD in all is deleted\./,
    );
    assert.match(unpaidQuestion, /<section class="confirm" aria-labelledby="confirm-question">/);
    assert.equal((await agent.post(orderPath(order.id, "/mark_unpaid"), { _csrf: csrf })).status, 200);
    assert.equal((await getOrder(store.api, order.id)).payment_status, "paid", "unconfirmed: kept");
    assert.equal(
      (await agent.post(orderPath(order.id, "/mark_unpaid"), { _csrf: csrf, confirm: "yes" })).status,
      303,
    );
    assert.equal((await getOrder(store.api, order.id)).payment_status, "unpaid");
  });

  test("a viewer sees no control and a forged POST changes nothing; inventory receives but does not pay", async () => {
    const { order, lineA } = await orderedOrder();
    await store.api.post(`/v2/purchase_orders/${order.id}/payments`, { amount: "1.00" });
    await t.drain();
    const before = await getOrder(store.api, order.id);
    const viewer = await joinStaff(t, smtp, store.id, "vic@example.com", "viewer");
    const seen = await viewer.get(orderPath(order.id));
    assert.equal(seen.status, 200);
    assert.match(text(seen.body), /Balance due \$43\.00 USD/);
    assert.doesNotMatch(
      seen.body,
      /Receive a delivery|Record payment|Mark paid|Mark unpaid|Delete…|Void delivery/,
    );
    assert.equal((await viewer.get(orderPath(order.id, "/receive"))).status, 403);
    const token = hiddenValue(seen.body, "_csrf");
    const forged: [string, Record<string, string>][] = [
      [orderPath(order.id, "/receive"), { _do: "book", [`received_${lineA.id}`]: "1" }],
      [orderPath(order.id, "/payments"), { amount: "5" }],
      [orderPath(order.id, "/mark_paid"), {}],
      [orderPath(order.id, "/mark_unpaid"), { confirm: "yes" }],
      [orderPath(order.id, `/payments/${before.payments[0].id}/delete`), { confirm: "yes" }],
    ];
    for (const [url, form] of forged)
      assert.equal((await viewer.post(url, { _csrf: token, ...form })).status, 403, url);

    const keeper = await joinStaff(t, smtp, store.id, "ian@example.com", "inventory");
    const page = await keeper.get(orderPath(order.id));
    assert.match(page.body, /Receive a delivery/);
    assert.doesNotMatch(page.body, /Record payment|Mark paid|Delete…/);
    const screen = await keeper.get(orderPath(order.id, "/receive"));
    assert.equal(screen.status, 200);
    const keeperToken = hiddenValue(screen.body, "_csrf");
    for (const [url, form] of forged.slice(1))
      assert.equal((await keeper.post(url, { _csrf: keeperToken, ...form })).status, 403, url);
    assert.deepEqual(await getOrder(store.api, order.id), before);

    const preview = await keeper.post(
      orderPath(order.id, "/receive"),
      formOf(screen.body, order.lines, { [`received_${lineA.id}`]: "1", _do: "preview" }),
    );
    const booked = await keeper.post(
      orderPath(order.id, "/receive"),
      formOf(preview.body, order.lines, { _do: "book", _previewed: hiddenValue(preview.body, "_previewed") }),
    );
    assert.equal(booked.status, 303);
    const history = (await store.api.get(`/v2/purchase_orders/${order.id}/history`)).body.data;
    assert.deepEqual(
      history.filter((h: any) => h.type === "receipt_recorded").map((h: any) => [h.by, h.via]),
      [["ian@example.com", "console"]],
    );

    // Purchasing pays: the payment's history names them.
    const buyer = await joinStaff(t, smtp, store.id, "pia@example.com", "purchasing");
    const buyerPage = await buyer.get(orderPath(order.id));
    assert.match(buyerPage.body, /Record payment/);
    assert.match(buyerPage.body, /Receive a delivery/);
    const key = /name="_key" value="([0-9a-f-]{36})">\s*<div class="field"><label for="payment-amount">/.exec(
      buyerPage.body,
    )?.[1] as string;
    const paid = await buyer.post(orderPath(order.id, "/payments"), {
      _csrf: hiddenValue(buyerPage.body, "_csrf"),
      _key: key,
      amount: "2.00",
      method: "card",
    });
    assert.equal(paid.status, 303);
    const payments = (await store.api.get(`/v2/purchase_orders/${order.id}/history`)).body.data.filter(
      (h: any) => h.type === "payment_added",
    );
    assert.deepEqual(
      payments.filter((h: any) => h.via === "console").map((h: any) => h.by),
      ["pia@example.com"],
    );
  });
});
