import type { Bench } from "../lib/context.ts";
import { Api, listAll } from "../lib/http.ts";
import type { LoadRequest } from "../lib/load-types.ts";
import { Receivers } from "../lib/receivers.ts";
import type { ReceiverStats } from "../lib/receivers-child.ts";
import type { Row } from "../lib/types.ts";
import { output, type Scenario, target } from "./scenario.ts";

const ENDPOINTS = 10;

interface HookStore {
  api: Api;
  key: string;
  webhookIds: number[];
}

/** A store of its own (so the hourly event count starts at zero) with 10 endpoints on the receivers. */
async function hookStore(b: Bench, receivers: Receivers, name: string): Promise<HookStore> {
  const store = await b.admin.post<{ data: { id: number } }>("/admin/stores", {
    name,
    currency: "USD",
    timezone: "UTC",
    owner_email: "owner@bench.example",
    seed: "empty",
  });
  const id = store.data.id;
  await b.admin.patch(`/admin/stores/${id}`, {
    rate_limits: {
      per_key_per_minute: 10_000_000,
      per_store_per_minute: 10_000_000,
      writes_per_store_per_minute: 10_000_000,
    },
  });
  const key = (
    await b.admin.post<{ data: { key: string } }>(`/admin/stores/${id}/keys`, {
      name: "bench webhooks",
      scopes: ["read", "write:suppliers", "webhooks"],
    })
  ).data.key;
  const api = new Api(b.origin, key);
  const webhookIds: number[] = [];
  for (const url of receivers.urls()) {
    const hook = await api.post<{ data: { id: number } }>("/v2/webhooks", {
      url,
      events: ["supplier.created"],
      description: "bench receiver",
    });
    webhookIds.push(hook.data.id);
  }
  return { api, key, webhookIds };
}

const createSupplier = (name: string): LoadRequest => ({
  method: "POST",
  path: "/v2/suppliers",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ name, email: "hooks@supplier.example", currency: "USD" }),
});

/**
 * Events written = suppliers the store has (one supplier.created each), counted after the writes
 * settle: requests the load generator cut off at its time bound may still have committed.
 */
async function eventsWritten(store: HookStore): Promise<number> {
  await new Promise((r) => setTimeout(r, 2000));
  return (await listAll(store.api, "/v2/suppliers")).length;
}

/** Waits until `expected` deliveries arrived (or the bound passes); returns the receivers' figures. */
async function drained(
  receivers: Receivers,
  ids: number[],
  expected: number,
  boundMs: number,
): Promise<{ stats: ReceiverStats; complete: boolean }> {
  const deadline = Date.now() + boundMs;
  let stats = await receivers.stats(ids);
  while (stats.unique < expected && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    stats = await receivers.stats(ids);
  }
  return { stats, complete: stats.unique >= expected };
}

async function receiversOf(b: Bench): Promise<Receivers> {
  if (!b.receivers) {
    // The service trusts this CA through NODE_EXTRA_CA_CERTS (the run started it with the same file).
    b.receivers = await Receivers.start(ENDPOINTS, b.pki);
  }
  return b.receivers;
}

/**
 * Webhook fan-out to 10 HTTPS endpoints on loopback (a separate process; each answers 204 at once).
 * Events are `supplier.created`, written through POST /v2/suppliers.
 *
 * - steady: 50 events a second (= 500 deliveries a second, the target rate) for 18 s (900 events,
 *   under the store's 1,000-an-hour slow-lane threshold): commit-to-delivery latency.
 * - burst: 10,000 events (PostgreSQL; 2,000 on PGlite) written as fast as 16 connections go, on a
 *   second store; deliveries a second from the first write to the last delivery. Past 1,000 events
 *   the store is in the slow lane, as the contract says, so this measures that lane.
 *
 * Latency is the receiver's arrival time minus the event's `occurred_at` (stamped in the writing
 * transaction, just before commit), so it slightly overstates commit-to-delivery.
 */
export const webhooks: Scenario = {
  name: "webhooks",
  title: "webhook fan-out: 10 endpoints, 10,000 events",
  issue: 9,
  requires: ["POST /v2/webhooks", "POST /v2/suppliers"],
  async run(b) {
    const receivers = await receiversOf(b);
    const pg = b.kind === "postgres";
    const rate = 50;
    const steadySeconds = b.quick ? 4 : 18;
    const burstEvents = b.quick ? 300 : pg ? 10_000 : 2_000;

    // Steady.
    const steady = await hookStore(b, receivers, "Bench Webhooks Steady");
    b.log(`   steady: ${rate} events/s × ${ENDPOINTS} endpoints for ${steadySeconds} s`);
    const steadyStart = Date.now();
    const produced = await b.load("steady producer", {
      connections: 16,
      requests: [createSupplier("Steady Supplier")],
      overallRate: rate,
      durationSec: steadySeconds,
      warmupSec: 0,
      headers: { authorization: `Bearer ${steady.key}` },
    });
    const steadyEvents = await eventsWritten(steady);
    const steadyResult = await drained(receivers, steady.webhookIds, steadyEvents * ENDPOINTS, 60_000);
    const s = steadyResult.stats;

    // Burst.
    const burst = await hookStore(b, receivers, "Bench Webhooks Burst");
    b.log(`   burst: ${burstEvents} events × ${ENDPOINTS} endpoints`);
    const t0 = Date.now();
    const writes = await b.load("burst producer", {
      connections: 16,
      requests: Array.from({ length: burstEvents }, (_, i) => createSupplier(`Burst Supplier ${i + 1}`)),
      once: true,
      durationSec: 600,
      warmupSec: 0,
      headers: { authorization: `Bearer ${burst.key}` },
    });
    const burstWritten = await eventsWritten(burst);
    const bound = Math.max(120_000, burstWritten * ENDPOINTS * 5);
    const burstResult = await drained(receivers, burst.webhookIds, burstWritten * ENDPOINTS, bound);
    const u = burstResult.stats;
    const span = u.lastAt === null ? null : (u.lastAt - t0) / 1000;
    const perSecond = span && span > 0 ? u.unique / span : null;

    const deliveryRow = (label: string, stats: ReceiverStats, seconds: number | null): Row => ({
      label,
      connections: ENDPOINTS,
      requests: stats.deliveries,
      durationSec: seconds ?? 0,
      rps: seconds && seconds > 0 ? stats.unique / seconds : 0,
      p50: stats.latencyMs?.p50 ?? 0,
      p97_5: stats.latencyMs?.p97_5 ?? 0,
      p99: stats.latencyMs?.p99 ?? 0,
      errors: 0,
      ratio: null,
      peakRssMb: null,
    });
    const steadySpan = s.lastAt !== null ? (s.lastAt - steadyStart) / 1000 : null;
    const rows = [
      produced,
      deliveryRow("steady deliveries", s, steadySpan),
      writes,
      deliveryRow("burst deliveries", u, span),
    ];
    return output({
      rows,
      figures: {
        "steady events": steadyEvents,
        "steady events/s written": Number((steadyEvents / steadySeconds).toFixed(1)),
        "steady delivered": `${s.unique}/${steadyEvents * ENDPOINTS}`,
        "steady p50 ms": s.latencyMs?.p50 ?? null,
        "steady p99 ms": s.latencyMs?.p99 ?? null,
        "burst events": burstWritten,
        "burst delivered": `${u.unique}/${burstWritten * ENDPOINTS}`,
        "burst deliveries/s": perSecond === null ? null : Math.round(perSecond),
        "burst p99 ms": u.latencyMs?.p99 ?? null,
        duplicates: s.duplicates + u.duplicates,
      },
      targets: [
        target(
          9,
          `deliveries/s, ${burstWritten.toLocaleString("en")} events × 10 endpoints, ≥ 500 (PostgreSQL)`,
          burstResult.complete ? perSecond : null,
          "/s",
          pg ? burstResult.complete && (perSecond ?? 0) >= 500 : null,
        ),
        target(
          9,
          "commit-to-delivery p99 < 1 s at 500 deliveries/s, not retrying (PostgreSQL)",
          s.latencyMs?.p99 ?? null,
          "ms",
          pg ? steadyResult.complete && (s.latencyMs?.p99 ?? Infinity) < 1000 : null,
        ),
      ],
      notes: [
        "steady: supplier.created at 50 events/s to 10 endpoints (500 deliveries/s); latency = arrival at the receiver − the event's occurred_at",
        `burst: ${burstWritten} events written at 16 connections, then delivered; deliveries/s from the first write to the last arrival; past 1,000 events in the hour the store is in the slow lane`,
        ...(burstResult.complete
          ? []
          : [`burst: only ${u.unique} of ${burstWritten * ENDPOINTS} deliveries within ${bound / 1000} s`]),
        ...(steadyResult.complete
          ? []
          : [`steady: only ${s.unique} of ${steadyEvents * ENDPOINTS} deliveries within 60 s`]),
      ],
    });
  },
};
