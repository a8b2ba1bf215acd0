// bulkOperationRunQuery: the inner query is validated against the schema and Shopify's bulk rules (one
// to five connections, nested at most two deep, a nested connection's parent selects `id`), at most five
// run at a time per shop (API 2026-01 and later), and the result is JSONL: one line per node, a nested
// connection's nodes on lines of their own with `__parentId`. It completes after `durationMs` (null: only
// when the test calls completeAll), then `bulk_operations/finish` goes to the shop's subscribers.
// bulkOperationCancel stops a running one (CANCELING, then CANCELED a moment later, as Shopify's
// cancelation is not immediate); a canceling operation no longer counts against the five.
import {
  executeSync,
  type FieldNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";
import { queryRoot } from "./queries.ts";
import { adminSchema } from "./schema.ts";
import { gid, newId, type ShopState } from "./state.ts";
import { shopifyDateTime } from "./time.ts";
import { checkDocument } from "./validate.ts";
import { viewsOf } from "./views.ts";

const MAX_RUNNING = 5;

export interface BulkOperation {
  id: number;
  shop: ShopState;
  query: string;
  status: "RUNNING" | "COMPLETED" | "FAILED" | "CANCELING" | "CANCELED";
  createdAt: Date;
  completedAt: Date | null;
  lines: string[];
  roots: number;
  timer?: NodeJS.Timeout;
}

export interface BulkHost {
  origin(): string;
  now(): Date;
  /** How long the next operations run (null: until completeAll); a test may change it between runs. */
  durationMs: number | null;
  /** "children-first" writes the JSONL backwards: every child line before its parent. */
  order: "parents-first" | "children-first";
  finished(operation: BulkOperation): void;
}

const userError = (message: string, code: string) => ({
  bulkOperation: null,
  userErrors: [{ field: ["query"], message, code }],
});

export class BulkRunner {
  readonly operations = new Map<number, BulkOperation>();

  constructor(private readonly host: BulkHost) {}

  /** How long the operations started from now on run (null: until completeAll). */
  setDuration(ms: number | null): void {
    this.host.durationMs = ms;
  }

  /** How many of the shop's bulk operations run now (Shopify lets five run at a time). */
  runningCount(shop: ShopState): number {
    return [...this.operations.values()].filter((o) => o.shop === shop && o.status === "RUNNING").length;
  }

  run(shop: ShopState, query: string) {
    if (this.runningCount(shop) >= MAX_RUNNING) {
      return userError(
        `A maximum of ${MAX_RUNNING} bulk queries can run at the same time per shop.`,
        "LIMIT_REACHED",
      );
    }
    const checked = checkDocument(query);
    if (!checked.ok) return userError(checked.errors[0].message, "INVALID");
    const operation = checked.document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
    const schema = adminSchema();
    const problem =
      operation?.operation === "query" ? shapeProblem(schema, operation) : "Bulk queries must be a query.";
    if (problem) return userError(problem, "INVALID");

    const result = executeSync({
      schema,
      document: checked.document,
      rootValue: queryRoot(shop, viewsOf(shop, true), this, true),
    });
    const out = { lines: [] as string[], roots: 0 };
    strip(operation!.selectionSet, schema.getQueryType()!, result.data ?? {}, null, out);
    const op: BulkOperation = {
      id: newId(),
      shop,
      query,
      status: result.errors ? "FAILED" : "RUNNING",
      createdAt: this.host.now(),
      completedAt: null,
      lines: this.host.order === "children-first" ? out.lines.reverse() : out.lines,
      roots: out.roots,
    };
    this.operations.set(op.id, op);
    if (op.status === "RUNNING" && this.host.durationMs !== null) {
      op.timer = setTimeout(() => this.complete(op), this.host.durationMs);
      op.timer.unref();
    }
    return { bulkOperation: this.view(op), userErrors: [] };
  }

  complete(op: BulkOperation): void {
    if (op.status !== "RUNNING") return;
    clearTimeout(op.timer);
    op.status = "COMPLETED";
    op.completedAt = this.host.now();
    this.host.finished(op);
  }

  cancel(shop: ShopState, id: number) {
    const op = this.operations.get(id);
    if (!op || op.shop !== shop)
      return {
        bulkOperation: null,
        userErrors: [{ field: ["id"], message: "Bulk operation does not exist" }],
      };
    if (op.status !== "RUNNING")
      return {
        bulkOperation: this.view(op),
        userErrors: [
          {
            field: null,
            message: `A bulk operation cannot be canceled when it is ${op.status.toLowerCase()}`,
          },
        ],
      };
    clearTimeout(op.timer);
    op.status = "CANCELING";
    const canceling = this.view(op);
    setImmediate(() => {
      op.status = "CANCELED";
      op.completedAt = this.host.now();
    });
    return { bulkOperation: canceling, userErrors: [] };
  }

  completeAll(): void {
    for (const op of this.operations.values()) this.complete(op);
  }

  jsonl(id: number): string | undefined {
    const op = this.operations.get(id);
    return op?.status === "COMPLETED" ? op.lines.map((l) => `${l}\n`).join("") : undefined;
  }

  viewOf(shop: ShopState, id: number) {
    const op = this.operations.get(id);
    return op && op.shop === shop ? this.view(op) : null;
  }

  current(shop: ShopState, type: string) {
    if (type !== "QUERY") return null;
    const mine = [...this.operations.values()].filter((o) => o.shop === shop);
    return mine.length ? this.view(mine[mine.length - 1]) : null;
  }

  private view(op: BulkOperation) {
    const done = op.status === "COMPLETED";
    const body = done ? this.jsonl(op.id)! : "";
    return {
      __typename: "BulkOperation",
      id: gid("BulkOperation", op.id),
      type: "QUERY",
      status: op.status,
      errorCode: op.status === "FAILED" ? "INTERNAL_SERVER_ERROR" : null,
      query: op.query,
      createdAt: shopifyDateTime(op.createdAt),
      completedAt: op.completedAt ? shopifyDateTime(op.completedAt) : null,
      objectCount: String(done ? op.lines.length : 0),
      rootObjectCount: String(done ? op.roots : 0),
      fileSize: done && body ? String(Buffer.byteLength(body)) : null,
      url: done && body ? `${this.host.origin()}/bulk-results/${op.id}.jsonl` : null,
      partialDataUrl: null,
    };
  }
}

const isConnection = (type: GraphQLNamedType) => type.name.endsWith("Connection");

function fieldsOf(set: SelectionSetNode): FieldNode[] {
  return set.selections.flatMap((s) =>
    s.kind === Kind.FIELD ? [s] : s.kind === Kind.INLINE_FRAGMENT ? fieldsOf(s.selectionSet) : [],
  );
}

function fieldType(parent: GraphQLNamedType, name: string): GraphQLNamedType | undefined {
  const field = "getFields" in parent ? parent.getFields()[name] : undefined;
  return field ? getNamedType(field.type) : undefined;
}

/** The node selections of a connection field (under `edges { node }` or `nodes`). */
function nodeSelections(connectionField: FieldNode): SelectionSetNode[] {
  return fieldsOf(connectionField.selectionSet!).flatMap((f) => {
    if (f.name.value === "nodes" && f.selectionSet) return [f.selectionSet];
    if (f.name.value !== "edges" || !f.selectionSet) return [];
    return fieldsOf(f.selectionSet).flatMap((n) =>
      n.name.value === "node" && n.selectionSet ? [n.selectionSet] : [],
    );
  });
}

function shapeProblem(schema: GraphQLSchema, operation: OperationDefinitionNode): string | null {
  let count = 0;
  let problem: string | null = null;
  const walk = (set: SelectionSetNode, parent: GraphQLNamedType, depth: number) => {
    for (const field of fieldsOf(set)) {
      const type = fieldType(parent, field.name.value);
      if (!type || !field.selectionSet) continue;
      if (!isConnection(type)) {
        walk(field.selectionSet, type, depth);
        continue;
      }
      count++;
      if (depth >= 2)
        problem ??= "Bulk queries cannot contain connections with a nesting depth greater than 2.";
      const nodeType = fieldType(type, "nodes")!;
      for (const nodeSet of nodeSelections(field)) {
        const nested = fieldsOf(nodeSet).some((f) => {
          const t = fieldType(nodeType, f.name.value);
          return t !== undefined && isConnection(t);
        });
        if (nested && !fieldsOf(nodeSet).some((f) => f.name.value === "id" && !f.alias)) {
          problem ??= "The parent 'node' field for a nested connection must select the 'id' field.";
        }
        walk(nodeSet, nodeType, depth + 1);
      }
    }
  };
  walk(operation.selectionSet, schema.getQueryType()!, 0);
  if (count === 0) return "Bulk queries must contain at least one connection.";
  if (count > 5) return "Bulk queries cannot contain more than 5 connections.";
  return problem;
}

/**
 * Copies `data` as selected, leaving out its connections: their nodes become lines of their own, with
 * `__parentId` naming the closest enclosing node (`ownerId`; none at the top). Answers the copy.
 */
function strip(
  set: SelectionSetNode,
  type: GraphQLNamedType,
  data: Record<string, any>,
  ownerId: string | null,
  out: { lines: string[]; roots: number },
): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const field of fieldsOf(set)) {
    const key = field.alias?.value ?? field.name.value;
    const fieldT = fieldType(type, field.name.value);
    const value = data[key];
    if (!fieldT || !field.selectionSet || value == null) {
      copy[key] = value;
    } else if (!isConnection(fieldT)) {
      const sub = field.selectionSet;
      copy[key] = Array.isArray(value)
        ? value.map((v) => strip(sub, fieldT, v, ownerId, out))
        : strip(sub, fieldT, value, ownerId, out);
    } else {
      const nodeType = fieldType(fieldT, "nodes")!;
      const nodeSet = nodeSelections(field)[0];
      const nodes: Record<string, any>[] = value.nodes ?? value.edges?.map((e: any) => e.node) ?? [];
      for (const node of nodes) {
        const index = out.lines.push("") - 1;
        const line = strip(nodeSet, nodeType, node, node.id ?? null, out);
        if (ownerId === null) out.roots++;
        else line.__parentId = ownerId;
        out.lines[index] = JSON.stringify(line);
      }
    }
  }
  return copy;
}
