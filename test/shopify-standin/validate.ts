// Parses and validates a document against the real schema, answering problems the way Shopify does:
// HTTP 200 with `errors` and no `data`. The two mistakes a connector makes most (a field or an argument
// that does not exist) carry Shopify's message and extension code; other rules keep graphql-js's wording.
import { type DocumentNode, type GraphQLError, parse, validate } from "graphql";
import { adminSchema } from "./schema.ts";

export interface ShopifyError {
  message: string;
  locations?: { line: number; column: number }[];
  path?: (string | number)[];
  extensions?: Record<string, unknown>;
}

export type Checked = { ok: true; document: DocumentNode } | { ok: false; errors: ShopifyError[] };

export function checkDocument(source: string): Checked {
  let document: DocumentNode;
  try {
    document = parse(source);
  } catch (error) {
    const e = error as GraphQLError;
    return { ok: false, errors: [{ message: e.message, locations: e.locations ? [...e.locations] : [] }] };
  }
  const problems = validate(adminSchema(), document);
  if (problems.length === 0) return { ok: true, document };
  return { ok: false, errors: problems.map(shopifyShaped) };
}

const UNDEFINED_FIELD = /^Cannot query field "(\w+)" on type "(\w+)"\./;
const UNKNOWN_ARGUMENT = /^Unknown argument "(\w+)" on field "(\w+)\.(\w+)"\./;

function shopifyShaped(problem: GraphQLError): ShopifyError {
  const locations = problem.locations ? [...problem.locations] : [];
  const field = UNDEFINED_FIELD.exec(problem.message);
  if (field) {
    const [, fieldName, typeName] = field;
    return {
      message: `Field '${fieldName}' doesn't exist on type '${typeName}'`,
      locations,
      extensions: { code: "undefinedField", typeName, fieldName },
    };
  }
  const argument = UNKNOWN_ARGUMENT.exec(problem.message);
  if (argument) {
    const [, argumentName, , name] = argument;
    return {
      message: `Field '${name}' doesn't accept argument '${argumentName}'`,
      locations,
      extensions: { code: "argumentNotAccepted", name, typeName: "Field", argumentName },
    };
  }
  return { message: problem.message, locations };
}
