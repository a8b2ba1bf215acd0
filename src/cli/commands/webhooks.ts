import type { Command } from "commander";
import { contextOf, idArg, positiveIntArg, storeOf, withStore } from "../context.ts";
import { type Column, renderTable } from "../output.ts";

interface Webhook {
  id: number;
  url: string;
  description: string | null;
  events: string[];
  status: string;
  consecutive_failures: number;
  last_delivered_at: string | null;
  last_failed_at: string | null;
}

interface Delivery {
  id: number;
  webhook_id: number;
  event_id: string;
  event: string;
  attempt: number;
  status: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  next_attempt_at: string | null;
  created_at: string;
}

interface List<T> {
  data: T[];
  next_cursor?: string | null;
  has_more?: boolean;
}

const webhookColumns: Column<Webhook>[] = [
  { header: "ID", value: "id", align: "right" },
  { header: "URL", value: "url" },
  { header: "STATUS", value: "status" },
  { header: "EVENTS", value: "events" },
  { header: "FAILURES", value: "consecutive_failures", align: "right" },
  { header: "LAST DELIVERED", value: "last_delivered_at" },
  { header: "LAST FAILED", value: "last_failed_at" },
];

const deliveryColumns: Column<Delivery>[] = [
  { header: "ID", value: "id", align: "right" },
  { header: "TIME", value: "created_at" },
  { header: "EVENT", value: "event" },
  { header: "EVENT ID", value: "event_id" },
  { header: "TRY", value: "attempt", align: "right" },
  { header: "RESULT", value: "status" },
  { header: "HTTP", value: "status_code", align: "right" },
  { header: "MS", value: "duration_ms", align: "right" },
  { header: "NEXT ATTEMPT", value: "next_attempt_at" },
  { header: "ERROR", value: "error" },
];

export function registerWebhookCommands(program: Command): void {
  const webhooks = program.command("webhooks").description("a store's webhook subscriptions");
  withStore(webhooks.command("list").description("every webhook of the store")).action(
    async (_opts, command: Command) => {
      const { client, out } = contextOf(command);
      const res = await client.get<List<Webhook>>(`/admin/stores/${storeOf(command)}/webhooks`);
      out.emit(res, () => renderTable(res.data, webhookColumns));
    },
  );

  const deliveries = program.command("deliveries").description("a webhook's delivery log, and redelivery");
  withStore(
    deliveries
      .command("list", { isDefault: true })
      .description("delivery attempts of one webhook, newest first")
      .argument("<webhook_id>", "webhook id", idArg)
      .option("--limit <n>", "rows per page (1-250)", positiveIntArg)
      .option("--cursor <cursor>", "continue from a previous page"),
  ).action(async (webhookId: number, opts, command: Command) => {
    const { client, out } = contextOf(command);
    const res = await client.get<List<Delivery>>(
      `/admin/stores/${storeOf(command)}/webhooks/${webhookId}/deliveries`,
      { limit: opts.limit, cursor: opts.cursor },
    );
    out.emit(res, () => renderTable(res.data, deliveryColumns));
    if (!out.json && res.has_more && res.next_cursor) out.note(`More rows: add --cursor ${res.next_cursor}.`);
  });
  withStore(
    deliveries
      .command("redeliver")
      .description("send a delivery's event again")
      .argument("<webhook_id>", "webhook id", idArg)
      .argument("<delivery_id>", "delivery id", idArg),
  ).action(async (webhookId: number, deliveryId: number, _opts, command: Command) => {
    const { client, out } = contextOf(command);
    const res = await client.post<{ data: { queued: number; event_ids: string[] } }>(
      `/admin/stores/${storeOf(command)}/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver`,
    );
    out.emit(
      res,
      () => `Queued ${res.data.queued} event(s) for redelivery: ${res.data.event_ids.join(", ") || "-"}\n`,
    );
  });
}
