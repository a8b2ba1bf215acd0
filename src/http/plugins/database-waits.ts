import type { FastifyInstance } from "fastify";
import { countDatabaseWaits, type DatabaseWaits } from "../../db/pglite-waits.ts";

/**
 * SERVER_TIMING=on: each answer tells how its request fared on the embedded database's one connection
 * (issue 22 item 3), in a Server-Timing header read by the benchmark and the fairness test:
 *
 *   arrival;desc="12", db-wait;dur=31.4;desc="3 turns from 40", db-hold;dur=9.1, store-turn;dur=0.0
 *
 * `arrival` numbers requests in the order the service received them, `db-wait` sums the time its
 * statements and transactions waited for the connection (`from` is the number of its first turn among
 * all turns handed out), `db-hold` the time they held it, `store-turn` the time it waited for its
 * store's turn (line-heavy routes, store-turns.ts). On PostgreSQL (a pool) the connection is not
 * counted.
 */
declare module "fastify" {
  interface FastifyRequest {
    databaseWaits?: { arrival: number; waits: DatabaseWaits; storeTurnMs: number };
  }
}

export function registerDatabaseWaits(app: FastifyInstance): void {
  let arrivals = 0;
  app.addHook("onRequest", (request, _reply, done) => {
    // Everything the request does from here on runs inside this count (hooks, handler, its statements).
    const { waits } = countDatabaseWaits(() => done());
    request.databaseWaits = { arrival: ++arrivals, waits, storeTurnMs: 0 };
  });
  app.addHook("onSend", async (request, reply, payload) => {
    const counted = request.databaseWaits;
    if (counted)
      reply.header("server-timing", serverTiming(counted.arrival, counted.waits, counted.storeTurnMs));
    return payload;
  });
}

function serverTiming(arrival: number, waits: DatabaseWaits, storeTurnMs: number): string {
  const from = waits.firstTurn === null ? "" : ` from ${waits.firstTurn}`;
  return [
    `arrival;desc="${arrival}"`,
    `db-wait;dur=${waits.waitedMs.toFixed(1)};desc="${waits.turns} turns${from}"`,
    `db-hold;dur=${waits.heldMs.toFixed(1)}`,
    `store-turn;dur=${storeTurnMs.toFixed(1)}`,
  ].join(", ");
}
