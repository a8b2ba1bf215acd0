import { type PGlite, parse, protocol } from "@electric-sql/pglite";
import { PLANNED_FROM_ARRAY_LENGTH } from "./planned-arrays.ts";

/**
 * How the embedded database's thread runs a statement (pglite-worker.ts): as a named prepared
 * statement, kept per SQL text, so PostgreSQL parses it once and may reuse its plan, and in one call
 * into PGlite rather than the six `PGlite.query()` makes (parse, describe, bind, describe, execute,
 * sync, each a trip into WebAssembly). Measured in one process on PGlite 0.5.16
 * (docs/history/performance-journal.md, "PGlite statements prepared once"): a primary-key lookup 0.68 → 0.14
 * ms, a supplier with its addresses as JSON 1.5 → 0.33 ms. The answer is parsed by PGlite's own functions
 * with the instance's parsers, so rows are what `query()` returned.
 */

/** Statements kept prepared at most; the least recently used is closed beyond it. */
const KEPT = 256;

/**
 * Only data statements are kept: their text recurs (Kysely compiles the same query to the same text)
 * and their result's shape is fixed. Anything else (BEGIN, COMMIT, SET, DDL) runs once, unnamed.
 */
const DATA_STATEMENT = /^\s*(select|insert|update|delete|with)\b/i;

/**
 * An upsert whose conflict target is a partial unique index (`on conflict (key) where state = $1`)
 * names that index only once the parameter's value is known: PostgreSQL's generic plan for a kept
 * statement (chosen after its fifth run) does not know it and fails ("no unique or exclusion
 * constraint matching the ON CONFLICT specification"). Such statements are planned anew each time.
 */
const PLANNED_WITH_VALUES = /\bon\s+conflict\s*\([^)]*\)\s*where\b/i;

/** A run with an array parameter longer than PLANNED_FROM_ARRAY_LENGTH (planned-arrays.ts) is planned with its values. */
function hasLongArray(parameters: unknown[]): boolean {
  return parameters.some((value) => Array.isArray(value) && value.length > PLANNED_FROM_ARRAY_LENGTH);
}

/**
 * A statement that changes the schema may change the shape a kept statement's rows were described
 * with, which PostgreSQL refuses ("cached plan must not change result type"): every kept statement is
 * closed after one, so the next use prepares it anew. Only migrations and tests run such statements.
 */
const SCHEMA_STATEMENT = /^\s*(create|alter|drop|comment|grant|revoke)\b/i;

type BackendMessage = Awaited<ReturnType<PGlite["execProtocol"]>>["messages"][number];

interface Kept {
  name: string;
  /** The parameters' type ids, as PostgreSQL inferred them: each value is serialised for its type. */
  parameterTypes: number[];
  /** The rows' description (absent for a statement returning no rows), prepended to each answer. */
  rowDescription: BackendMessage | undefined;
}

export interface StatementResult {
  rows: unknown[];
  affectedRows?: number;
}

const { serialize } = protocol;
const join = (...parts: Uint8Array[]) => Buffer.concat(parts);

export class PGliteStatements {
  /** By SQL text; a Map iterates in insertion order, so re-inserting on use makes it an LRU list. */
  private readonly kept = new Map<string, Kept>();
  /** Names to close, sent ahead of the next statement (no trip of their own). */
  private closing: string[] = [];
  private nextName = 1;

  constructor(
    private readonly pglite: PGlite,
    private readonly keep = KEPT,
  ) {}

  async run(sql: string, parameters: unknown[]): Promise<StatementResult> {
    const kept = this.kept.get(sql);
    // A kept text passed the first two tests when it was prepared (they scan the whole text).
    if (kept === undefined && (!DATA_STATEMENT.test(sql) || PLANNED_WITH_VALUES.test(sql)))
      return this.runOnce(sql, parameters);
    if (hasLongArray(parameters)) return this.runOnce(sql, parameters);
    const statement = kept ?? (await this.prepare(sql));
    this.kept.delete(sql);
    this.kept.set(sql, statement);
    const { messages } = await this.send(
      serialize.bind({ statement: statement.name, values: this.values(statement, parameters) }),
      serialize.execute({}),
      serialize.sync(),
    );
    return this.resultOf(statement.rowDescription ? [statement.rowDescription, ...messages] : messages);
  }

  private async prepare(sql: string): Promise<Kept> {
    const name = `s${this.nextName++}`;
    const { messages } = await this.send(
      serialize.parse({ name, text: sql, types: [] }),
      serialize.describe({ type: "S", name }),
      serialize.sync(),
    );
    const statement: Kept = {
      name,
      parameterTypes: parse.parseDescribeStatementResults(messages),
      rowDescription: messages.find((m) => m.name === "rowDescription"),
    };
    this.kept.set(sql, statement);
    if (this.kept.size > this.keep) {
      const [oldest, { name: closed }] = this.kept.entries().next().value as [string, Kept];
      this.kept.delete(oldest);
      this.closing.push(closed);
    }
    return statement;
  }

  /** A statement that is not kept: parsed unnamed, then bound and run (two calls, not six). */
  private async runOnce(sql: string, parameters: unknown[]): Promise<StatementResult> {
    const described = await this.send(
      serialize.parse({ text: sql, types: [] }),
      serialize.describe({ type: "S" }),
      serialize.sync(),
    );
    const statement: Kept = {
      name: "",
      parameterTypes: parse.parseDescribeStatementResults(described.messages),
      rowDescription: described.messages.find((m) => m.name === "rowDescription"),
    };
    const { messages } = await this.send(
      serialize.bind({ values: this.values(statement, parameters) }),
      serialize.execute({}),
      serialize.sync(),
    );
    if (SCHEMA_STATEMENT.test(sql)) this.forgetAll();
    return this.resultOf(statement.rowDescription ? [statement.rowDescription, ...messages] : messages);
  }

  /** Values as PostgreSQL's text format, by each parameter's type, as `PGlite.query()` makes them. */
  private values(statement: Kept, parameters: unknown[]): (string | null)[] {
    return parameters.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = this.pglite.serializers[statement.parameterTypes[i]];
      return serializer ? serializer(value) : String(value);
    });
  }

  private resultOf(messages: BackendMessage[]): StatementResult {
    const [result] = parse.parseResults(messages, this.pglite.parsers);
    return { rows: result?.rows ?? [], affectedRows: result?.affectedRows };
  }

  private forgetAll(): void {
    for (const { name } of this.kept.values()) this.closing.push(name);
    this.kept.clear();
  }

  /**
   * One call into PGlite; statements waiting to be closed go first. A PostgreSQL error is thrown
   * (after the Sync, so the session is ready for the next statement), as `query()` throws it.
   */
  private send(...messages: Uint8Array[]) {
    const closes = this.closing.map((name) => serialize.close({ type: "S", name }));
    this.closing = [];
    return this.pglite.execProtocol(join(...closes, ...messages));
  }
}
