/**
 * OpenAPI 3.1 prints `Nullable(enum)` as `type: ["string", "null"]` with the enum unchanged, and JSON
 * Schema then refuses null by the enum: the document adds `null` to such enums, as the server sends it.
 */

// biome-ignore lint/suspicious/noExplicitAny: the document as @fastify/swagger builds it, plain JSON.
type Json = any;

export function nullableEnums(node: Json): Json {
  if (Array.isArray(node)) {
    for (const item of node) nullableEnums(item);
    return node;
  }
  if (!node || typeof node !== "object") return node;
  if (Array.isArray(node.type) && node.type.includes("null") && Array.isArray(node.enum))
    if (!node.enum.includes(null)) node.enum = [...node.enum, null];
  for (const value of Object.values(node)) nullableEnums(value);
  return node;
}
