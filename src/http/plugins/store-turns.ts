import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/**
 * Line-heavy requests (routes with `config.storeTurn`: pages of orders, receipts or adjustments, one
 * order, its writes and its PDF) take turns within their store: one runs at a time, the others of that
 * store wait in arrival order. Each is tens of milliseconds of work on the event loop (reading,
 * presenting, serializing up to 5,000 lines), a PDF seconds of a core besides; four at once from one
 * key kept the machine that busy that another store's `GET /whoami` p99 rose to 4 to 8 times its idle
 * value (issue 18 item 2). In turns, one store holds at most one such request at a time, in slices,
 * and every other store's requests go in between.
 *
 * The turn is taken after authentication, the rate limits and the Idempotency-Key claim (a request
 * refused by them never waits, and a concurrent retry of a write still answers 409 at once), and given
 * back when the response has been sent, or the connection closed. Per process, in memory: the rate
 * limits already bound how many may wait.
 *
 * A route whose weight shows only once it has looked (`config.storeTurn: "in-handler"`: one order,
 * which is small most of the time) takes the turn from its handler with `takeStoreTurn` when it finds
 * the request heavy; a light one then never waits behind its store's heavy ones (issue 22 item 2).
 */
export const TURNS_PER_STORE = 1;

interface StoreQueue {
  running: number;
  waiting: Array<() => void>;
}

export class StoreTurns {
  private readonly stores = new Map<number, StoreQueue>();

  constructor(private readonly perStore = TURNS_PER_STORE) {}

  /** Waits for the store's turn; call the function it resolves with exactly once to give it back. */
  async take(storeId: number): Promise<() => void> {
    let queue = this.stores.get(storeId);
    if (!queue) {
      queue = { running: 0, waiting: [] };
      this.stores.set(storeId, queue);
    }
    if (queue.running >= this.perStore) await new Promise<void>((resolve) => queue.waiting.push(resolve));
    else queue.running++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.giveBack(storeId, queue);
    };
  }

  /** Requests of the store running or waiting (tests and figures). */
  heldBy(storeId: number): number {
    const queue = this.stores.get(storeId);
    return queue ? queue.running + queue.waiting.length : 0;
  }

  private giveBack(storeId: number, queue: StoreQueue): void {
    const next = queue.waiting.shift();
    // The turn passes straight to the next in line (running stays the same).
    if (next) {
      next();
      return;
    }
    queue.running--;
    if (queue.running === 0) this.stores.delete(storeId);
  }
}

declare module "fastify" {
  interface FastifyRequest {
    giveBackStoreTurn?: () => void;
    /** Set on `storeTurn: "in-handler"` routes: waits for the store's turn (takeStoreTurn). */
    storeTurnTaker?: () => Promise<void>;
  }
  interface FastifyInstance {
    /** The service's store turns (app.ts), for tests that check which routes take them. */
    storeTurns: StoreTurns;
  }
}

export function registerStoreTurns(app: FastifyInstance, turns = new StoreTurns()): StoreTurns {
  const takeTurn = async (request: FastifyRequest, reply: FastifyReply) => {
    const principal = request.principal;
    if (!principal) return;
    const asked = performance.now();
    const giveBack = await turns.take(principal.store.id);
    request.giveBackStoreTurn = giveBack;
    // Counted for Server-Timing when it is on (database-waits.ts): a write's queue is its store's.
    if (request.databaseWaits) request.databaseWaits.storeTurnMs = performance.now() - asked;
    // A client that left before its turn came (while it waited, or while it was authenticated) will
    // never see "close" again nor a finished response: without this the turn was never given back and
    // every later line-heavy request of the store waited forever. Its handler still runs, as for a
    // client leaving mid-handler (a write completes; the Idempotency-Key replays it to a retry).
    if (reply.raw.destroyed) {
      giveBack();
      return;
    }
    // A streamed answer is still being produced after the handler returns: the turn ends with it.
    reply.raw.once("close", giveBack);
  };

  // The handler decides: it is given the means, and the turn is given back as for the others.
  const offerTurn = async (request: FastifyRequest, reply: FastifyReply) => {
    request.storeTurnTaker = turnTakerFor(request, reply);
  };
  /**
   * Made here and returned, not written as `request.storeTurnTaker = () => …`: V8 allocates a function
   * literal assigned to a property in the old generation (its parser takes it for a long-lived
   * method), where it outlives the request and the young generation's collections take it for a
   * root. Through `request` and `reply` it kept the whole request alive through them, the order's
   * ~280 KB of answer pieces included, until a full collection (issue 18 item 2; docs/reliability.md
   * 5b, "The closures V8 put in the old generation").
   */
  const turnTakerFor = (request: FastifyRequest, reply: FastifyReply) => () => takeTurn(request, reply);

  app.addHook("onRoute", (route) => {
    const mode = route.config?.storeTurn;
    if (!mode) return;
    route.preHandler = [...hookList(route.preHandler), mode === "in-handler" ? offerTurn : takeTurn];
  });
  app.addHook("onResponse", (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    request.giveBackStoreTurn?.();
    done();
  });
  return turns;
}

function hookList<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

/**
 * Waits for the request's store turn from the handler of a `storeTurn: "in-handler"` route (once the
 * handler knows the request is line-heavy); given back when the response is sent, as for the others.
 */
export async function takeStoreTurn(request: FastifyRequest): Promise<void> {
  const take = request.storeTurnTaker;
  if (!take) throw new Error('takeStoreTurn on a route without storeTurn: "in-handler"');
  request.storeTurnTaker = undefined;
  await take();
}
