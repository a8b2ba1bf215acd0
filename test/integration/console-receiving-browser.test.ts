/**
 * Receiving and payments in Chromium (issue 20 items 4 and 5): the operator opens an ordered order,
 * receives it with the scan input (a scanner is a keyboard: the code, then Enter; the page adds the
 * unit without a round trip), sees an unknown code refused, rejects a unit with a reason, previews the
 * landed costs and books; voids the delivery after the question; records a payment, deletes it after
 * the question, marks the order paid. Every page gets the checks every browser test's pages get
 * (pageChecker: axe-core, the sideways scroll and the tables' fit at 1280 and 390 px; screenshots with
 * STOCKROOM_SCREENSHOTS).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import type { TestStore } from "../helpers/app.ts";
import {
  artifactsFolder,
  type BrowserConsole,
  browserSkip,
  pageChecker,
  startConsoleAsOperator,
} from "../helpers/console-browser.ts";
import { createOrderedOrder, createSupplier, getOrder, trackedVariants } from "../helpers/factories.ts";

describe("receiving and payments in a browser", { skip: browserSkip }, () => {
  let store: TestStore;
  let base: string;
  let session: BrowserConsole;
  let page: Page;
  const checkPage = pageChecker(artifactsFolder("console-receiving"));
  let foreign: string[];

  before(async () => {
    ({ store, base, page, foreign } = session = await startConsoleAsOperator());
  });
  after(() => session?.close());

  test("scan, reject, preview, book, void; record, delete and mark paid", async () => {
    const [a, b, extra] = (await trackedVariants(store.api)).filter((v) => v.sku && v.barcode);
    const lineLabelOf = (l: { product_title: string; variant_title: string | null }) =>
      [l.product_title, l.variant_title && l.variant_title !== "Default Title" ? l.variant_title : null]
        .filter(Boolean)
        .join(" – ");
    const supplier = await createSupplier(store.api, { name: "Rose City Ceramics" });
    const order = await createOrderedOrder(store.api, {
      supplier_id: supplier.id,
      lines: [
        { variant_id: a.id, quantity: 2, unit_cost: "10.00" },
        { variant_id: b.id, quantity: 3, unit_cost: "4.50" },
      ],
      charges: [{ kind: "shipping", amount: "5.00", allocation_method: "quantity" }],
    });
    const [lineA, lineB] = order.lines;
    const orderUrl = `${base}/console/stores/${store.id}/purchase_orders/${order.id}`;
    await page.goto(orderUrl);
    await checkPage(page, "order-ordered");
    await page.getByRole("link", { name: "Receive a delivery" }).click();
    await page.waitForURL(`${orderUrl}/receive`);
    await checkPage(page, "receive-empty");

    // Two scans of A's barcode and one of an unknown code, each typed and ended with Enter.
    const scan = page.getByLabel(/^Scan or type a SKU or barcode/);
    for (const code of [a.barcode as string, a.barcode as string]) await scan.pressSequentially(`${code}\n`);
    assert.equal(await page.locator(`#received_${lineA.id}`).inputValue(), "2");
    assert.match(await page.locator("#scan-status").innerText(), /: 2 received\.$/);
    await scan.pressSequentially("NO-SUCH-CODE\n");
    assert.equal(
      await page.locator("#scan-status").innerText(),
      `No line of ${order.number} has the SKU or barcode “NO-SUCH-CODE”. Nothing was added.`,
    );
    assert.equal(await page.locator(`#received_${lineA.id}`).inputValue(), "2");
    assert.equal(page.url(), `${orderUrl}/receive`, "scans stay in the page");
    await checkPage(page, "receive-scanned");

    // Surplus on a line with units still outstanding is refused on its field; nothing is booked.
    await page.locator(`#surplus_${lineB.id}`).fill("1");
    await page.getByRole("button", { name: "Preview landed costs" }).click();
    await page.getByText("Nothing was booked. Please correct:").waitFor();
    assert.equal(await page.locator(`#surplus_${lineB.id}`).getAttribute("aria-invalid"), "true");
    assert.equal(
      await page.locator(`#received_${lineA.id}`).inputValue(),
      "2",
      "the form comes back as sent",
    );
    await checkPage(page, "receive-refused");
    await page.locator(`#surplus_${lineB.id}`).fill("");
    await page.locator(`#received_${lineB.id}`).fill("2");
    await page.locator(`#rejected_${lineB.id}`).fill("1");
    await page.locator(`#reason_${lineB.id}`).fill("cracked glaze");
    // B's lot and expiry, the day it arrived, and an item the order does not list (found by its SKU).
    await page.getByLabel(`Lot number of ${lineLabelOf(lineB)}`).fill("LOT-B1");
    await page.getByLabel(`Expiry of ${lineLabelOf(lineB)}`).fill("2027-06-30");
    await page.getByLabel(/^Received on/).fill("2026-01-15");
    await page.getByLabel(/^Item 1/).fill(extra.sku as string);
    await page.getByLabel("Quantity of item 1").fill("1");
    await page.locator("#extra_unit_cost_0").fill("8.50");
    await page.getByRole("button", { name: "Preview landed costs" }).click();
    const preview = page.getByRole("region", { name: "Before booking: landed costs" });
    await preview.waitFor();
    assert.match(await preview.innerText(), /\$11\.00 USD/);
    assert.match(await preview.innerText(), /is partly received/);
    await checkPage(page, "receive-preview");
    // A change after the preview hides "Book" until the changed delivery is previewed.
    await page.getByLabel("Invoice reference").fill("INV-77");
    await page.getByText("The delivery changed since this preview").waitFor();
    assert.equal(await page.getByRole("button", { name: "Book this receipt" }).isVisible(), false);
    await page.getByRole("button", { name: "Preview landed costs" }).click();
    await page.getByRole("button", { name: "Book this receipt" }).waitFor();
    await page.getByRole("button", { name: "Book this receipt" }).click();
    await page.getByText(`Receipt booked on ${order.number}: 5 units into stock.`).waitFor();
    await checkPage(page, "order-received");
    const booked = await getOrder(store.api, order.id);
    assert.equal(booked.receipts.length, 1);
    assert.equal(booked.receipts[0].invoice.reference, "INV-77", "what was previewed last is booked");
    assert.equal(booked.status, "partial");
    assert.match(booked.receipts[0].received_at, /^2026-01-1[45]T/);
    assert.ok(
      booked.lines.some((l: any) => l.variant_id === extra.id && l.received_quantity === 1),
      "the item not on the order is a received line of it",
    );

    await page.getByRole("link", { name: "Void delivery 1…" }).click();
    await page.getByText(/which was not on the order, leaves the order's total\./).waitFor();
    await checkPage(page, "void-question");
    await page.getByRole("button", { name: "Void delivery 1" }).click();
    await page.getByText(`Delivery 1 of ${order.number} voided: its stock is reversed.`).waitFor();
    const voided = await getOrder(store.api, order.id);
    assert.notEqual(voided.receipts[0].voided_at, null);
    // The item not on the order left the total with the delivery: 2 × 10.00 + 3 × 4.50 + 5.00.
    assert.equal(voided.totals.total, "38.50");

    await page.getByLabel(/^Amount/).fill("twenty");
    await page.getByRole("button", { name: "Record payment" }).click();
    await page.getByText("No payment was recorded. Please correct:").waitFor();
    assert.equal(await page.getByLabel(/^Amount/).getAttribute("aria-invalid"), "true");
    await checkPage(page, "payment-refused");
    await page.getByLabel(/^Amount/).fill("20.00");
    await page.getByLabel("Reference").fill("INV-1001");
    await page.getByRole("button", { name: "Record payment" }).click();
    await page.getByText(`Payment of $20.00 USD recorded on ${order.number}.`).waitFor();
    assert.match(await page.locator("#payments").innerText(), /Balance due\s+\$18\.50 USD/);
    await checkPage(page, "order-part-paid");
    await page.getByRole("link", { name: /^Delete…/ }).click();
    await checkPage(page, "payment-delete-question");
    await page.getByRole("button", { name: "Delete the payment" }).click();
    await page.getByText(`Payment of $20.00 USD deleted from ${order.number}.`).waitFor();
    await page.getByRole("button", { name: "Mark paid ($38.50 USD)" }).click();
    await page.getByText(`${order.number} is marked paid.`).waitFor();
    assert.match(await page.locator("#payments").innerText(), /Payment status\s+Paid/);
    await checkPage(page, "order-paid");
    assert.equal((await getOrder(store.api, order.id)).payment_status, "paid");
    assert.deepEqual(foreign, []);
  });
});
