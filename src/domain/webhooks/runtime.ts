/**
 * What webhook delivery keeps per running service: one sender (its keep-alive pool is what makes
 * hundreds of deliveries a second possible), the retry schedule, the key that opens stored secrets,
 * and what this process is sending. Built once per process (ctx.resources: the API and the worker
 * share it), closed with the runtime.
 */
import type { Config } from "../../config.ts";
import type { AppContext } from "../../context.ts";
import type { Sealer } from "../../secrets/index.ts";
import { createWebhookSender, type WebhookSender } from "./http-client.ts";
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from "./retry-schedule.ts";
import { webhookSecretContext } from "./sealed-secrets.ts";
import { ownServiceOf, type Resolver } from "./url-guard.ts";

/** Test and embedding hooks; production uses the defaults. */
export interface WebhooksOptions {
  /**
   * Name resolution, used both when a URL is validated (creation, PATCH) and when a delivery connects.
   * Tests inject one to make a name resolve publicly at creation and to loopback later.
   */
  resolve?: Resolver;
  /** Extra trusted CA certificates (PEM) for deliveries; NODE_EXTRA_CA_CERTS is honoured anyway. */
  ca?: string | Buffer | ReadonlyArray<string | Buffer>;
  /** Bound on one delivery attempt (contract: 10 s). */
  timeoutMs?: number;
}

export const USER_AGENT = "Stockroom-Webhooks/2";

export class WebhookRuntime {
  readonly schedule: readonly number[];
  private senderInstance: WebhookSender | null = null;
  private readonly secrets = new Map<string, string>();
  /** Stores found over the hourly volume, until when (clock ms): saves the count on every event. */
  readonly hotUntil = new Map<number, number>();
  /** Attempts in flight in this process, per endpoint: start time (clock ms) per attempt. */
  private readonly sending = new Map<number, Map<symbol, number>>();

  constructor(
    private readonly config: Config,
    private readonly sealer: Sealer,
    readonly options: WebhooksOptions,
  ) {
    try {
      this.schedule = config.webhookRetrySchedule
        ? parseRetrySchedule(config.webhookRetrySchedule)
        : DEFAULT_RETRY_SCHEDULE;
    } catch (error) {
      throw new Error(`WEBHOOK_RETRY_SCHEDULE: ${(error as Error).message}`);
    }
  }

  get sender(): WebhookSender {
    this.senderInstance ??= createWebhookSender({
      allowPrivate: this.config.webhookAllowPrivate,
      ...ownServiceOf(this.config),
      timeoutMs: this.options.timeoutMs,
      ...(this.options.ca === undefined ? {} : { ca: this.options.ca }),
      ...(this.options.resolve === undefined ? {} : { lookup: this.options.resolve }),
    });
    return this.senderInstance;
  }

  /** Closes the sender's connections (after the worker stopped: nothing is in flight any more). */
  async close(): Promise<void> {
    await this.senderInstance?.close();
    this.senderInstance = null;
  }

  /** Notes an attempt to `webhookId` starting at `atMs`; call the returned function when it ends. */
  beginSend(webhookId: number, atMs: number): () => void {
    const token = Symbol();
    let attempts = this.sending.get(webhookId);
    if (!attempts) {
      attempts = new Map();
      this.sending.set(webhookId, attempts);
    }
    attempts.set(token, atMs);
    return () => {
      attempts.delete(token);
      if (attempts.size === 0 && this.sending.get(webhookId) === attempts) this.sending.delete(webhookId);
    };
  }

  /** Whether an attempt to the endpoint has been in flight in this process since `beforeMs` or earlier. */
  isSlow(webhookId: number, beforeMs: number): boolean {
    for (const startedAt of this.sending.get(webhookId)?.values() ?? [])
      if (startedAt <= beforeMs) return true;
    return false;
  }

  encryptSecret(secret: string, storeId: number): string {
    return this.sealer.seal(secret, webhookSecretContext(storeId));
  }

  /** Opens a stored secret; cached, since every attempt needs it and the value never changes. */
  decryptSecret(stored: string, storeId: number): string {
    const key = `${storeId}:${stored}`;
    let plain = this.secrets.get(key);
    if (plain === undefined) {
      plain = this.sealer.open(stored, webhookSecretContext(storeId));
      if (this.secrets.size > 10_000) this.secrets.clear();
      this.secrets.set(key, plain);
    }
    return plain;
  }
}

/**
 * How one webhooks module reaches its runtime: one per process (the API's and the worker's contexts
 * share it through ctx.resources), made on first use with the module's `options`.
 */
export function webhookRuntimeOf(options: WebhooksOptions = {}): (ctx: AppContext) => WebhookRuntime {
  const key = {};
  return (ctx) =>
    ctx.resources.get(
      key,
      () => new WebhookRuntime(ctx.config, ctx.sealer, options),
      (runtime) => runtime.close(),
    );
}
