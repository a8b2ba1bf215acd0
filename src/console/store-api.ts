import type { FastifyRequest } from "fastify";
import { consoleActorOf, storeIdOf } from "./actor.ts";
import { parseAnswer, type RawResponse } from "./admin.ts";

/**
 * The public API (/v2) of one store, called in process as the signed-in user: the way every console
 * page reads and changes a store's data, so a console action has the API's validation, events,
 * webhooks, history (`by` the user, `via` console), pushes and idempotency. A non-2xx answer throws
 * AdminError (code, message, details), which the console's error handler shows.
 *
 *   const api = storeApi(request);
 *   const suppliers = await api.get<Page<Supplier>>("/suppliers?limit=50");
 *   await api.post("/purchase_orders/12/receipts", body, { idempotencyKey });
 */
export interface StoreApiOptions {
  /** Sent as Idempotency-Key: a double click or a reload of the same form does the write once. */
  idempotencyKey?: string;
}

export interface StoreApi {
  readonly storeId: number;
  get<T = unknown>(path: string): Promise<T>;
  post<T = unknown>(path: string, body?: unknown, options?: StoreApiOptions): Promise<T>;
  put<T = unknown>(path: string, body: unknown, options?: StoreApiOptions): Promise<T>;
  patch<T = unknown>(path: string, body: unknown, options?: StoreApiOptions): Promise<T>;
  delete<T = unknown>(path: string, options?: StoreApiOptions): Promise<T>;
  /** Whether this build serves the route (a page says "not available yet" when it does not). */
  has(method: string, path: string): boolean;
  /** The answer as it is (status, headers, bytes): for a PDF, or to handle a refusal yourself. */
  raw(method: string, path: string, body?: unknown, options?: StoreApiOptions): Promise<RawResponse>;
}

/** `path` is under /v2 ("/suppliers" or "/v2/suppliers"). The store is the page's (`:storeId` or `:id`). */
export function storeApi(request: FastifyRequest, storeId = storeIdOf(request)): StoreApi {
  const actor = consoleActorOf(request, storeId);
  const app = request.server;
  const raw = (method: string, path: string, body?: unknown, options: StoreApiOptions = {}) =>
    app.consoleActors.with(actor, async (authorization): Promise<RawResponse> => {
      const res = await app.inject({
        method: method as "GET",
        url: path.startsWith("/v2/") ? path : `/v2${path}`,
        headers: {
          authorization,
          ...(body !== undefined && { "content-type": "application/json" }),
          ...(options.idempotencyKey !== undefined && { "idempotency-key": options.idempotencyKey }),
        },
        ...(body !== undefined && { payload: JSON.stringify(body) }),
      });
      return { status: res.statusCode, headers: res.headers, body: res.rawPayload };
    });
  const call = async <T>(method: string, path: string, body?: unknown, options?: StoreApiOptions) =>
    parseAnswer<T>(await raw(method, path, body, options), "API");
  return {
    storeId,
    get: (path) => call("GET", path),
    post: (path, body = {}, options) => call("POST", path, body, options),
    put: (path, body, options) => call("PUT", path, body, options),
    patch: (path, body, options) => call("PATCH", path, body, options),
    delete: (path, options) => call("DELETE", path, undefined, options),
    has: (method, path) => {
      const url = path.split("?")[0];
      return (
        app.findRoute({ method: method as "GET", url: url.startsWith("/v2/") ? url : `/v2${url}` }) !== null
      );
    },
    raw,
  };
}
