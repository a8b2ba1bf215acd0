import { type RawBuilder, sql } from "kysely";
import type { AppContext } from "../context.ts";
import type { Db } from "../db/database.ts";
import { type HotQuery, hotSql } from "../db/prepared.ts";
import type { TextOrBytes } from "../db/text-bytes.ts";
import { randomBase62 } from "../domain/secrets.ts";

interface EmitFields {
  storeId: number;
  /** A catalogue name such as `purchase_order.updated`. */
  name: string;
  subjectType: string;
  subjectId: number;
  /** Envelope fields beside `data` (e.g. `receipt` for purchase_order.receipt_recorded). */
  extra?: Record<string, unknown>;
  /** `extra` as the JSON text of its object, when the caller serialized it already. */
  extraText?: string;
}

/**
 * The event's `data`, the full v2 object as the matching GET returns it at this moment: the object,
 * or its JSON text when the caller has that already, in pieces whose concatenation is the text. A
 * 500-line order's is ~280 KB of JSON, most of it written by the database (purchase-orders/
 * line-text.ts): stringified again here, inside the write's transaction, it held the event loop for
 * milliseconds; joined here, it was one more copy of it in the loop's young generation. The pieces
 * go to the database as they are, which joins them (issue 18 item 2).
 */
export type EmitInput = EmitFields &
  ({ data: object } | { dataJson: readonly TextOrBytes[] } | { dataText: string });

/**
 * The `data` column's value: the object's JSON, its text as the caller serialized it (a write that
 * answers the same object serializes it once for the event, the stored answer and the reply), or the
 * pieces of its text joined by the database.
 */
function dataValue(input: EmitInput) {
  if ("dataText" in input) return input.dataText;
  if ("data" in input) return JSON.stringify(input.data);
  // A piece the database handed over as bytes (db/text-bytes.ts) goes back as bytes.
  const pieces = bytesJoined(input.dataJson).map((piece) =>
    typeof piece === "string" ? sql`${piece}::text` : sql`convert_from(${piece}::bytea, 'UTF8')`,
  );
  return sql<string>`(${sql.join(pieces, sql` || `)})::jsonb`;
}

/**
 * The pieces with each run of bytes joined into one buffer: a big order's lines come from
 * PostgreSQL's COPY in pieces of ~32 KB (purchase-orders/text-read.ts), and the driver writes a
 * statement's parameters into a buffer it grows by half again plus the parameter each time one does
 * not fit: nine parameters of 32 KB allocated ~0.9 MB where one of 280 KB allocates 280 KB.
 */
function bytesJoined(pieces: readonly TextOrBytes[]): TextOrBytes[] {
  const out: TextOrBytes[] = [];
  let run: Uint8Array[] = [];
  const closeRun = () => {
    if (run.length > 0) out.push(run.length === 1 ? run[0] : Buffer.concat(run));
    run = [];
  };
  for (const piece of pieces) {
    if (typeof piece === "string") {
      closeRun();
      out.push(piece);
    } else run.push(piece);
  }
  closeRun();
  return out;
}

export interface EmittedEvent {
  id: string;
  seq: number;
  name: string;
  storeId: number;
  subjectType: string;
  subjectId: number;
  occurredAt: Date;
  /** The modules' `eventRead` values, read with the event's insert (Module.eventRead). */
  read?: Readonly<Record<string, unknown>>;
}

type InsertEvent = HotQuery<
  [
    id: string,
    storeId: number,
    name: string,
    subjectType: string,
    subjectId: number,
    data: string,
    extra: string | null,
    occurredAt: Date,
  ],
  { seq: number } & Record<string, unknown>
>;

/** By the modules composed (one list per app): their event reads are columns of the insert's answer. */
const insertEvents = new WeakMap<AppContext["modules"], InsertEvent>();

/**
 * An event whose data is one JSON text (nearly every event; every write emits one): a fixed text,
 * prepared once per PostgreSQL connection (db/prepared.ts), not built, compiled, parsed and planned
 * for each event. The modules' event reads (the store's active webhooks) go in the same statement.
 */
function insertEventFor(modules: AppContext["modules"]): InsertEvent {
  let statement = insertEvents.get(modules);
  if (statement) return statement;
  const reads = modules.flatMap((m) => (m.eventRead ? [m.eventRead] : []));
  statement = hotSql(
    ["stockroom_event_insert", ...reads.map((r) => r.name)].join("_"),
    `insert into events (id, store_id, name, subject_type, subject_id, data, extra, occurred_at)
   values ($1, $2, $3, $4, $5, $6, $7, $8) returning seq${reads.map((r) => `, (${r.sql}) as ${r.name}`).join("")}`,
    { priority: false },
  );
  insertEvents.set(modules, statement);
  return statement;
}

/**
 * A module's event read as a column of an insert built here rather than prepared: its `$2`, the
 * event's store id, given as a parameter of this statement.
 */
function eventReadColumn(read: { name: string; sql: string }, storeId: number) {
  const parts = read.sql.split(/\$2(?!\d)/).map((part) => sql.raw(part));
  return sql`(${sql.join(parts, sql`${storeId}`)})`.as(read.name);
}

/**
 * The outbox: an event is a row written in the caller's transaction, so a committed change always has
 * its event and a rolled-back one never does.
 */
export async function emit(ctx: AppContext, trx: Db, input: EmitInput): Promise<EmittedEvent> {
  const occurredAt = ctx.clock.now();
  const id = randomBase62(24, "evt_");
  const extra = input.extraText ?? (input.extra ? JSON.stringify(input.extra) : null);
  const data = dataValue(input);
  const [row] =
    typeof data === "string"
      ? await insertEventFor(ctx.modules).run(
          trx,
          id,
          input.storeId,
          input.name,
          input.subjectType,
          input.subjectId,
          data,
          extra,
          occurredAt,
        )
      : [
          await trx
            .insertInto("events")
            .values({
              id,
              store_id: input.storeId,
              name: input.name,
              subject_type: input.subjectType,
              subject_id: input.subjectId,
              data,
              extra,
              occurred_at: occurredAt,
            })
            // The modules' event reads in the same statement, as the prepared insert has them.
            .returning([
              "seq",
              ...ctx.modules.flatMap((m) =>
                m.eventRead ? [eventReadColumn(m.eventRead, input.storeId)] : [],
              ),
            ])
            .executeTakeFirstOrThrow(),
        ];
  const { seq, ...read } = row;
  return announce(ctx, trx, { id, seq, read, occurredAt, ...input });
}

/** The event as emitted, once written: the modules act on it in the writing transaction. */
async function announce(
  ctx: AppContext,
  trx: Db,
  written: EmitFields & Pick<EmittedEvent, "id" | "seq" | "read" | "occurredAt">,
): Promise<EmittedEvent> {
  const event: EmittedEvent = {
    id: written.id,
    seq: written.seq,
    read: written.read,
    name: written.name,
    storeId: written.storeId,
    subjectType: written.subjectType,
    subjectId: written.subjectId,
    occurredAt: written.occurredAt,
  };
  // Modules act on the event in the same transaction (webhook fan-out enqueues its deliveries here),
  // so an event and the work that carries it onward commit together.
  for (const module of ctx.modules) if (module.onEvent) await module.onEvent(ctx, trx, event);
  return event;
}

/** An event written as a part of the caller's own statement (`eventInStatement`). */
export interface EventInStatement {
  /** The insert, for a WITH part named as `eventInStatement` was told. */
  write: RawBuilder<unknown>;
  /** The columns the statement answers from the part: the event's seq and the modules' event reads. */
  columns: RawBuilder<unknown>;
  /** Once the statement ran, given its row: the event as `emit` answers it, the modules having acted. */
  emitted(trx: Db, row: object): Promise<EmittedEvent>;
}

/**
 * `emit` as a part of a WITH in the caller's statement (an apply's ledger statement: stock/ledger.ts),
 * for a write whose event's data is known before that statement runs: one round trip fewer in the
 * write's transaction, which on the embedded database holds the one connection while the API's
 * thread takes each answer and sends the next statement. The modules' event reads (the store's active
 * webhooks) are answered by the statement as `<part>_<read>` beside the seq, `<part>_seq`; `emitted`
 * gives them to the modules as `emit` does.
 */
export function eventInStatement(
  ctx: AppContext,
  input: EmitFields & { dataText: string },
  part: string,
): EventInStatement {
  const occurredAt = ctx.clock.now();
  const id = randomBase62(24, "evt_");
  const extra = input.extraText ?? (input.extra ? JSON.stringify(input.extra) : null);
  const reads = ctx.modules.flatMap((m) => (m.eventRead ? [m.eventRead] : []));
  const write = sql`insert into events (id, store_id, name, subject_type, subject_id, data, extra, occurred_at)
    values (${id}, ${input.storeId}, ${input.name}, ${input.subjectType}, ${input.subjectId}, ${input.dataText},
      ${extra}, ${occurredAt})
    returning seq${sql.join(
      reads.map((r) => sql`, ${eventReadColumn(r, input.storeId)}`),
      sql``,
    )}`;
  const columnOf = (name: string) =>
    sql`(select ${sql.ref(name)} from ${sql.table(part)}) as ${sql.ref(`${part}_${name}`)}`;
  const columns = sql.join([columnOf("seq"), ...reads.map((r) => columnOf(r.name))]);
  return {
    write,
    columns,
    async emitted(trx, row) {
      const answered = row as Record<string, unknown>;
      const read = Object.fromEntries(reads.map((r) => [r.name, answered[`${part}_${r.name}`]]));
      const seq = answered[`${part}_seq`] as number;
      return announce(ctx, trx, { ...input, id, seq, read, occurredAt });
    },
  };
}
