// Webhooks to the app the way Shopify sends them: a JSON POST with X-Shopify-Topic, -Shop-Domain,
// -Hmac-Sha256 (base64 HMAC-SHA256 of the raw body with the app's secret), -Event-Id, -Webhook-Id,
// -API-Version and -Triggered-At. A redelivery carries the same ids. In "hold" mode events wait for
// `release`, which can reorder, drop and duplicate them, as Shopify's delivery may.
import { createHmac, randomUUID } from "node:crypto";
import type { ShopState } from "./state.ts";

export interface WebhookEvent {
  uri: string;
  shop: string;
  topic: string;
  body: string;
  eventId: string;
  webhookId: string;
  triggeredAt: string;
}
export interface Delivery {
  event: WebhookEvent;
  status: number | null;
  error?: string;
}

export class WebhookOutbox {
  mode: "auto" | "hold" = "auto";
  held: WebhookEvent[] = [];
  readonly deliveries: Delivery[] = [];
  private readonly inFlight = new Set<Promise<Delivery>>();

  constructor(
    private readonly secret: string,
    private readonly apiVersion: string,
    private readonly now: () => Date,
  ) {}

  sign(body: string): string {
    return createHmac("sha256", this.secret).update(body, "utf8").digest("base64");
  }

  /** One delivery per subscription of `shop` to `topic` (REST form, e.g. "inventory_levels/update"),
   *  all with the event's one X-Shopify-Event-Id, each with its own X-Shopify-Webhook-Id. */
  emit(shop: ShopState, topic: string, payload: unknown): void {
    const enumTopic = topic.toUpperCase().replace("/", "_");
    const eventId = randomUUID();
    for (const subscription of shop.subscriptions.filter((s) => s.topic === enumTopic)) {
      const event = { ...this.event(subscription.uri, shop.domain, topic, payload), eventId };
      if (this.mode === "hold") this.held.push(event);
      else this.track(this.deliver(event));
    }
  }

  /** Sends to any address now, whatever is subscribed (compliance topics are configured, not subscribed). */
  sendTo(uri: string, shop: string, topic: string, payload: unknown, copies = 1): Promise<Delivery[]> {
    const event = this.event(uri, shop, topic, payload);
    return Promise.all(Array.from({ length: copies }, () => this.deliver(event)));
  }

  /** Delivers what was held, in order or reversed, without the `drop` indexes and with `duplicate` ones twice. */
  async release(
    options: { reverse?: boolean; drop?: number[]; duplicate?: number[] } = {},
  ): Promise<Delivery[]> {
    const events = this.held.flatMap((event, i) =>
      options.drop?.includes(i) ? [] : options.duplicate?.includes(i) ? [event, event] : [event],
    );
    this.held = [];
    if (options.reverse) events.reverse();
    const done: Delivery[] = [];
    for (const event of events) done.push(await this.deliver(event));
    return done;
  }

  /** Waits for the deliveries started in "auto" mode. */
  async settled(): Promise<void> {
    while (this.inFlight.size) await Promise.all(this.inFlight);
  }

  private event(uri: string, shop: string, topic: string, payload: unknown): WebhookEvent {
    return {
      uri,
      shop,
      topic,
      body: JSON.stringify(payload),
      eventId: randomUUID(),
      webhookId: randomUUID(),
      triggeredAt: this.now().toISOString(),
    };
  }

  private track(delivery: Promise<Delivery>): void {
    this.inFlight.add(delivery);
    void delivery.finally(() => this.inFlight.delete(delivery));
  }

  private async deliver(event: WebhookEvent): Promise<Delivery> {
    let delivery: Delivery;
    try {
      const response = await fetch(event.uri, {
        method: "POST",
        body: event.body,
        headers: {
          "content-type": "application/json",
          "x-shopify-topic": event.topic,
          "x-shopify-shop-domain": event.shop,
          "x-shopify-hmac-sha256": this.sign(event.body),
          "x-shopify-event-id": event.eventId,
          "x-shopify-webhook-id": event.webhookId,
          "x-shopify-api-version": this.apiVersion,
          "x-shopify-triggered-at": event.triggeredAt,
        },
      });
      await response.arrayBuffer();
      delivery = { event, status: response.status };
    } catch (error) {
      delivery = { event, status: null, error: (error as Error).message };
    }
    this.deliveries.push(delivery);
    return delivery;
  }
}
