import type { Dispatcher } from "undici";
import { undici } from "../../undici.ts";
import { PlatformBusyError, PlatformPermanentError, PlatformTransientError } from "../connector.ts";
import type { CostBudget, ThrottleStatus } from "./budget.ts";
import { ShopifyUnauthorizedError } from "./errors.ts";
import { SHOPIFY_TIMEOUT_MS } from "./http.ts";
import { graphqlUrl, type ShopifyEndpointSettings } from "./settings.ts";

/**
 * The Admin GraphQL API of one shop. Every call reserves its cost in the shop's budget first (and
 * waits what the budget says), reports the bucket Shopify answers with, and retries a THROTTLED
 * answer after the wait its own figures give, a bounded number of times. Failures are classified for
 * the push and sync jobs: THROTTLED beyond the retries, 429, 5xx, timeouts and network errors are
 * PlatformTransientError; 401 is ShopifyUnauthorizedError; any other GraphQL error (a document the
 * schema refuses, ACCESS_DENIED, MAX_COST_EXCEEDED) and a mutation's userErrors are
 * PlatformPermanentError with Shopify's message.
 */
/**
 * Where a client takes its access token when it can change (an expiring OAuth token, refreshed; a
 * token replaced by a re-install): `storedTokenSource` (token-refresh.ts) reads it from the shop's row.
 */
export interface AccessTokenSource {
  /** The token to call with now (refreshed first when it is about to expire). */
  current(): Promise<string>;
  /**
   * Shopify answered 401 to `used`: a token worth one more try (refreshed, or replaced meanwhile), or
   * null when there is none (the shop is then disconnected).
   */
  afterUnauthorized(used: string): Promise<string | null>;
  /** Shopify answered 401 to the token afterUnauthorized gave as well: the shop is disconnected. */
  refused(used: string): Promise<void>;
}

export interface ShopifyClientOptions {
  shop: string;
  /** A fixed token (a custom app's), or a source that refreshes and replaces it. */
  accessToken: string | AccessTokenSource;
  settings: ShopifyEndpointSettings;
  budget: CostBudget;
  dispatcher: Dispatcher;
  timeoutMs?: number;
  /** THROTTLED answers retried before giving up for this attempt (default 4). */
  throttleRetries?: number;
  /** Waits the budget asks for (tests advance a manual clock instead of sleeping). */
  sleep?: (ms: number) => Promise<void>;
  /** The service's clock: when a read is taken (a level report's `readAt`). */
  now?: () => Date;
}

export interface GraphqlAnswer<T> {
  data: T;
  cost: { requestedQueryCost: number; actualQueryCost: number | null; throttleStatus: ThrottleStatus } | null;
}

interface RawAnswer {
  data?: unknown;
  errors?: Array<{ message?: string; extensions?: { code?: string } }> | string;
  extensions?: { cost?: GraphqlAnswer<unknown>["cost"] };
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Marks the error of a request Shopify certainly did not execute: refused before executing it (429,
 * THROTTLED, 401 or another 4xx), or no connection made (refused, name not resolved, connect timeout:
 * no byte of it was sent). A push takes that document's in-flight marks off at once when none of its
 * calls was answered (adjust.ts); a timeout, a 5xx or a broken answer may have been executed.
 */
export function unexecuted<E extends Error>(error: E): E {
  return Object.assign(error, { unexecuted: true });
}

/** Whether the request certainly was not executed (unexecuted). */
export function wasUnexecuted(error: unknown): boolean {
  return error instanceof Error && (error as { unexecuted?: boolean }).unexecuted === true;
}

/** Failures to connect: the request was never written to a socket. */
const CONNECT_FAILURES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"]);

function connectFailed(error: unknown): boolean {
  const codeOf = (e: unknown) => (e as { code?: unknown } | null)?.code;
  return (
    CONNECT_FAILURES.has(String(codeOf(error))) ||
    CONNECT_FAILURES.has(String(codeOf((error as { cause?: unknown } | null)?.cause)))
  );
}

export class ShopifyClient {
  readonly shop: string;
  private readonly url: string;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: ShopifyClientOptions) {
    this.shop = options.shop;
    this.url = graphqlUrl(options.settings, options.shop);
    this.sleep = options.sleep ?? sleepFor;
  }

  /** Now by the service's clock (a read's `readAt` is taken before its request). */
  now(): Date {
    return this.options.now?.() ?? new Date();
  }

  /**
   * Sends one document. `estimatedCost` is what the budget reserves before the first try (Shopify's
   * requested cost: 10 a mutation, 2 + first × node cost a connection); a THROTTLED retry reserves the
   * requested cost Shopify reported instead.
   */
  async graphql<T>(
    document: string,
    variables: Record<string, unknown>,
    estimatedCost: number,
  ): Promise<GraphqlAnswer<T>> {
    const retries = this.options.throttleRetries ?? 4;
    let cost = estimatedCost;
    for (let attempt = 0; ; attempt++) {
      const budget = this.options.budget;
      const reservation = await budget.reserve(this.shop, cost);
      if (reservation.waitMs > 0) await this.sleep(reservation.waitMs);
      let answer: RawAnswer;
      try {
        answer = await this.sendAuthorized(document, variables);
      } catch (error) {
        await budget.settle(this.shop, reservation, null);
        throw error;
      }
      const reported = answer.extensions?.cost ?? null;
      await budget.settle(
        this.shop,
        reservation,
        reported ? { status: reported.throttleStatus, spent: reported.actualQueryCost } : null,
      );
      const errors = Array.isArray(answer.errors) ? answer.errors : [];
      if (errors.some((e) => e.extensions?.code === "THROTTLED")) {
        cost = reported?.requestedQueryCost ?? cost;
        if (attempt >= retries)
          throw unexecuted(
            new PlatformBusyError(
              `Shopify throttled ${this.shop} ${attempt + 1} times in a row`,
              refillMs(reported?.throttleStatus ?? null, cost),
            ),
          );
        continue;
      }
      if (typeof answer.errors === "string" || errors.length > 0) {
        const messages =
          typeof answer.errors === "string" ? answer.errors : errors.map((e) => e.message).join("; ");
        throw new PlatformPermanentError(`Shopify refused the request: ${messages}`);
      }
      return { data: answer.data as T, cost: reported };
    }
  }

  /**
   * Sends with the source's token; on a 401, once more with the token the source gives after it (an
   * expiring token is refreshed once before the shop is given up as disconnected).
   */
  private async sendAuthorized(document: string, variables: Record<string, unknown>): Promise<RawAnswer> {
    const source = this.options.accessToken;
    if (typeof source === "string") return this.send(document, variables, source);
    const token = await source.current();
    try {
      return await this.send(document, variables, token);
    } catch (error) {
      if (!(error instanceof ShopifyUnauthorizedError)) throw error;
      const replacement = await source.afterUnauthorized(token);
      if (replacement === null) throw error;
      try {
        return await this.send(document, variables, replacement);
      } catch (again) {
        if (again instanceof ShopifyUnauthorizedError) await source.refused(replacement);
        throw again;
      }
    }
  }

  private async send(
    document: string,
    variables: Record<string, unknown>,
    accessToken: string,
  ): Promise<RawAnswer> {
    let response: Dispatcher.ResponseData;
    let text: string;
    try {
      response = await undici().request(this.url, {
        method: "POST",
        dispatcher: this.options.dispatcher,
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          "x-shopify-access-token": accessToken,
        },
        body: JSON.stringify({ query: document, variables }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? SHOPIFY_TIMEOUT_MS),
      });
      text = await response.body.text();
    } catch (error) {
      const failure = new PlatformTransientError(
        `Shopify unreachable for ${this.shop}: ${(error as Error).message}`,
      );
      throw connectFailed(error) ? unexecuted(failure) : failure;
    }
    const status = response.statusCode;
    if (status === 401)
      throw unexecuted(
        new ShopifyUnauthorizedError(`Shopify refused the access token of ${this.shop} (401)`),
      );
    if (status === 429) throw unexecuted(new PlatformTransientError(`Shopify answered 429 for ${this.shop}`));
    if (status >= 500) throw new PlatformTransientError(`Shopify answered ${status} for ${this.shop}`);
    if (status !== 200)
      throw unexecuted(
        new PlatformPermanentError(`Shopify answered ${status} for ${this.shop}: ${text.slice(0, 200)}`),
      );
    try {
      return JSON.parse(text) as RawAnswer;
    } catch {
      throw new PlatformTransientError(`Shopify answered ${this.shop} with a body that is not JSON`);
    }
  }
}

/** The least wait a push gives a throttled shop, whatever its bucket says. */
const MIN_REFILL_MS = 1000;

/** When the shop's bucket, as Shopify last reported it, holds `cost` again (at least MIN_REFILL_MS). */
function refillMs(status: ThrottleStatus | null, cost: number): number {
  if (!status || status.restoreRate <= 0) return MIN_REFILL_MS;
  const missing = Math.max(0, cost - status.currentlyAvailable);
  return Math.max(MIN_REFILL_MS, Math.ceil((missing / status.restoreRate) * 1000));
}

/** A mutation's payload: its userErrors are a permanent refusal carrying Shopify's messages. */
export function refuseOnUserErrors(
  mutation: string,
  payload: { userErrors?: Array<{ message: string; code?: string | null }> } | null | undefined,
): void {
  const errors = payload?.userErrors ?? [];
  if (errors.length === 0) return;
  throw new PlatformPermanentError(
    `Shopify refused ${mutation}: ${errors.map((e) => (e.code ? `${e.message} (${e.code})` : e.message)).join("; ")}`,
  );
}
