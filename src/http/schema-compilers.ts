import { SerializerSelector } from "@fastify/fast-json-stringify-compiler";
import type { FastifySchemaCompiler, FastifyServerOptions } from "fastify";
import { validatorCompiler } from "./validation.ts";

/**
 * When each route's request validators (Ajv) and response serializers (fast-json-stringify) are
 * compiled. `start`: all of them while the app gets ready, so a schema that does not compile stops the
 * start. `first-use`: each one on the first request that needs it; a process that serves a handful
 * of routes (a test file) skips compiling the hundreds it never calls (docs/decisions.md, "Schema
 * compilation").
 */
export type SchemaCompilation = "start" | "first-use";

type Compiled = ((data: unknown) => unknown) & { errors?: unknown };

/** `compile` run once, on the first call of what it returns; the compiled function's `errors` copied over. */
function onFirstUse<F extends Compiled>(compile: () => F): F {
  let compiled: F | undefined;
  const run = ((data: unknown) => {
    compiled ??= compile();
    const result = compiled(data);
    // Fastify reads a failed validation's errors from the function it was given.
    if ("errors" in compiled) run.errors = compiled.errors;
    return result;
  }) as F;
  run.errors = null;
  return run;
}

export function requestValidatorCompiler(compilation: SchemaCompilation): FastifySchemaCompiler<unknown> {
  if (compilation === "start") return validatorCompiler;
  return (route) => onFirstUse(() => validatorCompiler(route) as Compiled) as never;
}

type BuildSerializer = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions["schemaController"]>["compilersFactory"]>["buildSerializer"]
>;

/**
 * Fastify's own serializer factory (the shared schemas and `serializerOpts` it is handed reach every
 * route's serializer as they would by default), deferred to first use when asked.
 */
export function responseSerializerFactory(compilation: SchemaCompilation): BuildSerializer {
  const fastifyDefault = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = fastifyDefault(externalSchemas, options);
    if (compilation === "start") return compile;
    return (route) => onFirstUse(() => compile(route) as Compiled) as (data: unknown) => string;
  };
}
