/**
 * Webhook receivers for the fan-out scenario: N HTTPS servers on loopback (a test CA's certificate),
 * in a process of their own. Each delivery is answered 204 at once and recorded: which endpoint, which
 * event, and the time from the event's `occurred_at` (stamped in the transaction that wrote it, just
 * before its commit) to its arrival here.
 */
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";

interface Start {
  type: "start";
  count: number;
  key: string;
  cert: string;
}
interface Stats {
  type: "stats";
  webhookIds: number[];
}
type Message = Start | Stats | { type: "stop" };

export interface ReceiverStats {
  deliveries: number;
  unique: number;
  duplicates: number;
  firstAt: number | null;
  lastAt: number | null;
  latencyMs: { p50: number; p97_5: number; p99: number; max: number } | null;
}

const byWebhook = new Map<number, { eventIds: string[]; at: number[]; latency: number[] }>();
const servers: Server[] = [];

function record(webhookId: number, eventId: string, occurredAt: string): void {
  let entry = byWebhook.get(webhookId);
  if (!entry) {
    entry = { eventIds: [], at: [], latency: [] };
    byWebhook.set(webhookId, entry);
  }
  const now = Date.now();
  entry.eventIds.push(eventId);
  entry.at.push(now);
  entry.latency.push(now - Date.parse(occurredAt));
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function stats(webhookIds: number[]): ReceiverStats {
  let deliveries = 0;
  let unique = 0;
  let firstAt: number | null = null;
  let lastAt: number | null = null;
  const latency: number[] = [];
  for (const id of webhookIds) {
    const entry = byWebhook.get(id);
    if (!entry) continue;
    deliveries += entry.eventIds.length;
    unique += new Set(entry.eventIds).size;
    for (const at of entry.at) {
      if (firstAt === null || at < firstAt) firstAt = at;
      if (lastAt === null || at > lastAt) lastAt = at;
    }
    latency.push(...entry.latency);
  }
  latency.sort((a, b) => a - b);
  return {
    deliveries,
    unique,
    duplicates: deliveries - unique,
    firstAt,
    lastAt,
    latencyMs:
      latency.length > 0
        ? {
            p50: percentile(latency, 50),
            p97_5: percentile(latency, 97.5),
            p99: percentile(latency, 99),
            max: latency[latency.length - 1],
          }
        : null,
  };
}

async function start(message: Start): Promise<number[]> {
  const ports: number[] = [];
  for (let i = 0; i < message.count; i++) {
    const server = createServer(
      { key: message.key, cert: message.cert, keepAliveTimeout: 60_000 },
      (req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          try {
            const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
              id: string;
              occurred_at: string;
            };
            record(Number(req.headers["x-service-webhook-id"]), body.id, body.occurred_at);
          } catch {
            // not a delivery
          }
          res.statusCode = 204;
          res.end();
        });
      },
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.2", resolve));
    servers.push(server);
    ports.push((server.address() as AddressInfo).port);
  }
  return ports;
}

process.on("message", (message: Message) => {
  if (message.type === "start") {
    start(message).then((ports) => process.send?.({ type: "started", ports }));
  } else if (message.type === "stats") {
    process.send?.({ type: "stats", stats: stats(message.webhookIds) });
  } else {
    for (const server of servers) server.close();
    process.exit(0);
  }
});
