import fastifySwagger from "@fastify/swagger";
import fastifySwaggerUi from "@fastify/swagger-ui";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyInstance } from "fastify";
import { AdminAuthThrottle } from "./admin/auth-throttle.ts";
import { adminAuthHook, adminConsoleBodyHook } from "./admin/routes.ts";
import { randomBase62 } from "./domain/secrets.ts";
import { ConsoleActors } from "./http/console-actors.ts";
import type { HttpContext } from "./http/context.ts";
import { openapiOptions } from "./http/openapi/document.ts";
import { registerAuth } from "./http/plugins/auth.ts";
import { registerDatabaseWaits } from "./http/plugins/database-waits.ts";
import { clientErrorHandler, frameworkErrorHandler, registerErrorHandling } from "./http/plugins/errors.ts";
import { registerIdempotency } from "./http/plugins/idempotency.ts";
import { registerJsonBody } from "./http/plugins/json-body.ts";
import { registerRateLimits } from "./http/plugins/rate-limit.ts";
import { registerRequestLog } from "./http/plugins/request-log.ts";
import { registerStoreTurns, StoreTurns } from "./http/plugins/store-turns.ts";
import {
  requestValidatorCompiler,
  responseSerializerFactory,
  type SchemaCompilation,
} from "./http/schema-compilers.ts";

export interface BuildAppOptions {
  ctx: HttpContext;
  /** SHA-256 hex of the admin token. */
  adminTokenHash: string;
  logger?: boolean | object;
  /** When route schemas are compiled (default `start`: a broken schema stops the start). */
  schemaCompilation?: SchemaCompilation;
}

const BODY_LIMIT = 1024 * 1024;
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;

/** Builds the whole HTTP application; never listens (tests inject into the same app production runs). */
export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { ctx } = options;
  const schemaCompilation = options.schemaCompilation ?? "start";
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: BODY_LIMIT,
    requestTimeout: ctx.config.requestTimeoutMs,
    trustProxy: ctx.config.trustProxy,
    genReqId: (req) => {
      const incoming = req.headers["x-request-id"];
      return typeof incoming === "string" && REQUEST_ID_PATTERN.test(incoming)
        ? incoming
        : randomBase62(20, "req_");
    },
    ajv: { customOptions: { allErrors: true } },
    schemaController: { compilersFactory: { buildSerializer: responseSerializerFactory(schemaCompilation) } },
    // Node checks request timeouts on this interval (30 s by default, so a 30 s timeout could take a
    // minute to answer 408); a quarter of the timeout keeps the answer close to the configured limit.
    http: { connectionsCheckingInterval: Math.max(250, Math.floor(ctx.config.requestTimeoutMs / 4)) },
    clientErrorHandler,
    frameworkErrors: frameworkErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate("ctx", ctx);
  app.decorate("consoleActors", new ConsoleActors());
  app.setValidatorCompiler(requestValidatorCompiler(schemaCompilation));
  registerErrorHandling(app);

  registerJsonBody(app, BODY_LIMIT);

  app.addHook("onRequest", (request, reply, done) => {
    reply.header("x-request-id", String(request.id));
    done();
  });
  if (ctx.config.serverTiming) registerDatabaseWaits(app);

  await app.register(fastifySwagger, openapiOptions(ctx.config.publicHostnames));

  // On the root instance, so tests can see which requests wait for their store's turn.
  const storeTurns = new StoreTurns();
  app.decorate("storeTurns", storeTurns);
  await app.register(
    async (v2) => {
      registerAuth(v2);
      registerRateLimits(v2);
      registerIdempotency(v2);
      registerStoreTurns(v2, storeTurns);
      registerRequestLog(v2);
      v2.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
      for (const module of ctx.modules) if (module.routes) await v2.register(module.routes);
    },
    { prefix: "/v2" },
  );

  await app.register(
    async (admin) => {
      const throttle = new AdminAuthThrottle(ctx.rateLimiter.redis);
      admin.addHook("onRequest", adminAuthHook(options.adminTokenHash, throttle));
      admin.addHook("preValidation", adminConsoleBodyHook);
      for (const module of ctx.modules) if (module.adminRoutes) await admin.register(module.adminRoutes);
    },
    { prefix: "/admin" },
  );

  for (const module of ctx.modules) if (module.publicRoutes) await app.register(module.publicRoutes);

  await app.register(fastifySwaggerUi, {
    routePrefix: "/docs",
    uiConfig: { docExpansion: "list", deepLinking: true },
  });
  app.get("/", { schema: { hide: true } }, async (_req, reply) => reply.redirect("/docs"));
  app.get("/healthz", { schema: { hide: true } }, async () => ({ ok: true }));

  return app;
}
