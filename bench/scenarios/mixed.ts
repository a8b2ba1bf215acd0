import type { LoadRequest } from "../lib/load-types.ts";
import { p99Ratio } from "../lib/ratios.ts";
import { bigOrdersFixture } from "./orders.ts";
import { output, type Scenario, target } from "./scenario.ts";

const WHOAMI: LoadRequest[] = [{ method: "GET", path: "/v2/whoami" }];

/**
 * Heavy reads beside light ones on one process (issue 22 item 4): `GET /v2/whoami` at one connection
 * alone, then the same while 32 connections ask for 100-line PDFs. A PDF renders off the event loop,
 * so whoami's p99 with them must stay within 3× its p99 alone.
 */
export const pdfWithWhoami: Scenario = {
  name: "pdf-whoami",
  title: "GET /v2/whoami (1 connection) while 32 connections fetch 100-line PDFs",
  issue: 22,
  requires: ["POST /v2/purchase_orders", "GET /v2/purchase_orders/{id}/pdf", "GET /v2/whoami"],
  async run(b) {
    const ids = await bigOrdersFixture(b);
    const pdfs: LoadRequest[] = ids.map((id) => ({ method: "GET", path: `/v2/purchase_orders/${id}/pdf` }));
    // Each PDF rendered once first, as the `pdf` scenario just before this one leaves them in a full
    // run. Alone (`--only pdf-whoami`) the four renders fell in the measured window, on threads at
    // niceness 10 (render-worker.ts): on a loaded machine, with whoami keeping the loop busy, they
    // took the whole window and the run answered one PDF (docs/history/performance-journal.md, rd22 tenth
    // session).
    for (const path of new Set(pdfs.map((r) => r.path))) await b.api.ok("GET", path);
    const durationSec = b.timing.throughputSec;
    const alone = await b.load("whoami alone c=1", { connections: 1, requests: WHOAMI, durationSec });
    // Both loads start together and run as long; each is its own autocannon process.
    const [pdf, beside] = await Promise.all([
      b.load("pdf c=32 (beside whoami)", { connections: 32, requests: pdfs, durationSec }),
      b.load("whoami c=1 beside PDFs", { connections: 1, requests: WHOAMI, durationSec }),
    ]);
    // Without a PDF answered during it, the run says nothing about PDFs slowing whoami down.
    const ratio = pdf.requests > 0 ? p99Ratio(beside, alone) : null;
    return output({
      rows: [alone, pdf, beside],
      figures: {
        whoami_p99_ratio: ratio === null ? null : Math.round(ratio * 100) / 100,
        pdfs_answered: pdf.requests,
      },
      targets: [
        target(
          22,
          "whoami p99 beside 32 connections of PDFs ≤ 3× its p99 alone",
          ratio,
          "×",
          ratio === null ? false : ratio <= 3,
        ),
      ],
      notes: [
        "whoami p99 ratio = its p99 beside the PDFs / its p99 alone, both at one connection, same run; no ratio when no PDF was answered during the run",
      ],
    });
  },
};
