import pg from "pg";

/**
 * Named prepared statements sent to PostgreSQL in one write and answered in one (issue 22 item 2).
 * `pg` sends a query, waits for its ReadyForQuery and only then sends the next, so two statements
 * cost two round trips: on loopback each is a socket write that wakes the other process, and a CPU
 * profile of `GET /v2/suppliers/{id}` at 32 connections spent about a quarter of the service's time in
 * `writev` under `pg`'s query submission. Here the statements go as Bind/Describe/Execute each and one
 * Sync (the extended protocol runs them in order as one implicit transaction), through a query object
 * of pg's own "submittable" kind on one checked-out client.
 *
 * Only statements the connection has already parsed go together (pg remembers them per connection);
 * on a connection that has not, they run one after another on the same checkout, parsing as usual.
 */

export interface NamedStatement {
  readonly name: string;
  readonly text: string;
  readonly values: readonly unknown[];
}

type Row = Record<string, unknown>;

interface PgConnection {
  parsedStatements: Record<string, string>;
  stream: { cork?: () => void; uncork?: () => void };
  bind(config: { portal: string; statement: string; values: readonly unknown[]; valueMapper: unknown }): void;
  describe(config: { type: "P"; name: string }): void;
  execute(config: { portal: string; rows: number }): void;
  sync(): void;
}

interface PgResult {
  rows: Row[];
  addFields(fields: unknown[]): void;
  addRow(row: Row): void;
  parseRow(values: unknown[]): Row;
  addCommandComplete(message: unknown): void;
}

const { Result, utils } = pg as unknown as {
  Result: new (rowMode: undefined, types: unknown) => PgResult;
  utils: { prepareValue: unknown };
};

/** The statements' messages with one Sync; pg hands it the answers as it does a query's. */
class Together {
  private readonly results: PgResult[];
  private current = 0;
  private done = false;

  constructor(
    private readonly statements: readonly NamedStatement[],
    types: unknown,
    readonly callback: (error: Error | null, rows?: Row[][]) => void,
  ) {
    this.results = statements.map(() => new Result(undefined, types));
  }

  submit(connection: PgConnection): null {
    connection.stream.cork?.();
    try {
      for (const statement of this.statements) {
        connection.bind({
          portal: "",
          statement: statement.name,
          values: statement.values,
          valueMapper: utils.prepareValue,
        });
        connection.describe({ type: "P", name: "" });
        connection.execute({ portal: "", rows: 0 });
      }
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(message: { fields: unknown[] }): void {
    this.results[this.current]?.addFields(message.fields);
  }

  handleDataRow(message: { fields: unknown[] }): void {
    const result = this.results[this.current];
    result?.addRow(result.parseRow(message.fields));
  }

  handleCommandComplete(message: unknown): void {
    this.results[this.current]?.addCommandComplete(message);
    this.current++;
  }

  handleEmptyQuery(): void {
    this.current++;
  }

  handlePortalSuspended(): void {
    this.handleError(new Error("a statement sent together was suspended"));
  }

  handleCopyInResponse(): void {
    this.handleError(new Error("a statement sent together asked for COPY"));
  }

  handleCopyData(): void {}

  handleError(error: Error): void {
    if (this.done) return;
    this.done = true;
    this.callback(error);
  }

  handleReadyForQuery(): void {
    if (this.done) return;
    this.done = true;
    if (this.current !== this.statements.length) {
      this.callback(
        new Error(`${this.current} of ${this.statements.length} statements sent together answered`),
      );
      return;
    }
    this.callback(
      null,
      this.results.map((r) => r.rows),
    );
  }
}

/** The rows of each statement, in order, from one checkout of `pool`. */
export async function queryTogether(pool: pg.Pool, statements: readonly NamedStatement[]): Promise<Row[][]> {
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    const connection = (client as unknown as { connection: PgConnection }).connection;
    if (statements.every((s) => connection.parsedStatements[s.name] === s.text)) {
      const types = (client as unknown as { _types: unknown })._types;
      return await new Promise<Row[][]>((resolve, reject) => {
        client.query(
          new Together(statements, types, (error, rows) =>
            error ? reject(error) : resolve(rows ?? []),
          ) as never,
        );
      });
    }
    const rows: Row[][] = [];
    for (const s of statements) {
      rows.push((await client.query({ name: s.name, text: s.text, values: [...s.values] })).rows);
    }
    return rows;
  } catch (error) {
    // A statement's own error leaves the connection usable; anything else (a lost server) drops it.
    if (!(error instanceof pg.DatabaseError)) failure = error as Error;
    throw error;
  } finally {
    client.release(failure);
  }
}
