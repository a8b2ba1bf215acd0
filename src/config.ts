import os from "node:os";
import path from "node:path";
import { shopifyEndpointSettings } from "./platform/shopify/settings.ts";
import { parseSecretKey, type SecretKey } from "./secrets/keys.ts";

/** The Shopify app this service is (decisions section 12). */
export interface ShopifyAppConfig {
  /** SHOPIFY_API_KEY: the app's client id; with the secret, the OAuth install routes exist. */
  readonly apiKey: string | null;
  /** SHOPIFY_API_SECRET: signs OAuth callbacks and (unless a store has its own) webhooks. */
  readonly apiSecret: string | null;
  /** SHOPIFY_APP_URL: this service's public base URL, without a trailing slash. */
  readonly appUrl: string | null;
  /** SHOPIFY_SCOPES: the access scopes an install asks for. */
  readonly scopes: readonly string[];
  /** SHOPIFY_API_VERSION, default 2026-10. */
  readonly apiVersion: string;
  /** SHOPIFY_ADMIN_ORIGIN: every Admin API and OAuth request goes there (the stand-in in tests). */
  readonly adminOrigin: string | null;
  /** SHOPIFY_RECONCILE_INTERVAL (`15m` by default): how often each shop's levels are reconciled. */
  readonly reconcileIntervalMs: number;
}

export const DEFAULT_SHOPIFY_SCOPES = [
  "read_products",
  "read_inventory",
  "write_inventory",
  "read_locations",
];

/**
 * The whole environment, read and validated once at start. Anything invalid stops the process with a
 * message naming the variable, so a typo never becomes a silent default.
 */
export interface Config {
  readonly host: string;
  readonly port: number;
  /** `:memory:` keeps nothing; otherwise a directory holding the embedded database, outbox and state. */
  readonly dataDir: string;
  /** Where mail goes as .eml files when no SMTP_URL is set. */
  readonly outboxDir: string;
  readonly databaseUrl: string | null;
  readonly redisUrl: string | null;
  readonly smtpUrl: string | null;
  readonly mailFrom: string;
  readonly adminToken: string | null;
  readonly bootstrap: "demo" | "none";
  readonly workers: "on" | "off";
  readonly workerConcurrency: number;
  readonly webhookAllowPrivate: boolean;
  readonly webhookRetrySchedule: string | null;
  readonly publicHostnames: readonly string[];
  /** PUBLIC_URL: the service's base URL as browsers reach it (links in staff invitations and resets). */
  readonly publicUrl: string | null;
  readonly logLevel: string;
  readonly requestTimeoutMs: number;
  readonly trustProxy: boolean;
  /**
   * SERVER_TIMING=on: every API answer carries a Server-Timing header with the request's waits for the
   * embedded database's connection (src/http/plugins/database-waits.ts). Off by default: counting
   * tracks every request's async context.
   */
  readonly serverTiming: boolean;
  /**
   * EMBEDDED_BACKGROUND_SHARE: the worker's share of the embedded database's one connection, in per
   * cent, while the API's statements wait too (pglite-dialect.ts, ConnectionTurns). 50 splits it evenly.
   */
  readonly embeddedBackgroundShare: number;
  /** SECRETS_KEY: seals stored secrets; null means the key file under DATA_DIR (src/secrets). */
  readonly secretsKey: SecretKey | null;
  /** SECRETS_KEY_PREVIOUS: still opens rows sealed before a rotation (they are re-sealed at start). */
  readonly secretsKeyPrevious: SecretKey | null;
  readonly shopify: ShopifyAppConfig;
}

export class ConfigError extends Error {}

export const MIN_ADMIN_TOKEN_LENGTH = 32;

type Env = Record<string, string | undefined>;

function readInt(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function readBool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (["true", "1", "yes", "on"].includes(raw.toLowerCase())) return true;
  if (["false", "0", "no", "off"].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function readEnum<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(", ")}, got "${raw}"`);
  }
  return raw as T;
}

function readSecretKey(env: Env, name: string): SecretKey | null {
  const raw = env[name];
  if (raw === undefined || raw === "") return null;
  const key = parseSecretKey(raw);
  // The value is never echoed: it is a secret even when malformed.
  if (!key)
    throw new ConfigError(
      `${name} must be 32 random bytes written as base64 or hex (openssl rand -base64 32)`,
    );
  return key;
}

function readUrl(env: Env, name: string, protocols: string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw === "") return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(" or ")}, got ${parsed.protocol}`);
  }
  return raw;
}

function readShopify(env: Env): ShopifyAppConfig {
  let endpoint: { adminOrigin: string | null; apiVersion: string };
  try {
    endpoint = shopifyEndpointSettings(env);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const apiKey = env.SHOPIFY_API_KEY?.trim() || null;
  const apiSecret = env.SHOPIFY_API_SECRET?.trim() || null;
  // The secret alone is meaningful (it verifies webhooks of stores attached by token); a client id
  // without its secret can install nothing, so it is a mistake, not a partial setting.
  if (apiKey !== null && apiSecret === null)
    throw new ConfigError("SHOPIFY_API_KEY is set without SHOPIFY_API_SECRET");
  // Shopify redirects merchants' browsers and posts webhooks only to https; plain http is for the
  // stand-in (tests, trying it on one machine), which SHOPIFY_ADMIN_ORIGIN announces.
  const appUrl = readUrl(
    env,
    "SHOPIFY_APP_URL",
    endpoint.adminOrigin === null ? ["https:"] : ["https:", "http:"],
  );
  if (appUrl !== null && /[?#]/.test(appUrl))
    throw new ConfigError("SHOPIFY_APP_URL must be a base URL without a query or fragment");
  if (apiKey !== null && appUrl === null)
    throw new ConfigError("SHOPIFY_APP_URL is required with SHOPIFY_API_KEY (the OAuth redirect goes there)");
  const scopesRaw = env.SHOPIFY_SCOPES?.trim() || DEFAULT_SHOPIFY_SCOPES.join(",");
  const scopes = scopesRaw.split(",").map((s) => s.trim());
  if (scopes.some((s) => !/^(unauthenticated_)?[a-z_]+$/.test(s)))
    throw new ConfigError(
      `SHOPIFY_SCOPES must be a comma list of scopes like read_products, got "${scopesRaw}"`,
    );
  return {
    apiKey,
    apiSecret,
    appUrl: appUrl === null ? null : appUrl.replace(/\/+$/, ""),
    scopes,
    apiVersion: endpoint.apiVersion,
    adminOrigin: endpoint.adminOrigin,
    reconcileIntervalMs: readInterval(env, "SHOPIFY_RECONCILE_INTERVAL", "15m", 60_000, 86_400_000),
  };
}

const INTERVAL_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000 };

/** A duration written as a whole number and a unit: `90s`, `15m`, `1h`. */
function readInterval(env: Env, name: string, fallback: string, minMs: number, maxMs: number): number {
  const raw = env[name]?.trim() || fallback;
  const match = /^(\d+)(s|m|h)$/.exec(raw);
  if (!match)
    throw new ConfigError(`${name} must be a whole number and a unit (s, m or h) like 15m, got "${raw}"`);
  const ms = Number(match[1]) * INTERVAL_UNITS[match[2]];
  if (ms < minMs || ms > maxMs)
    throw new ConfigError(
      `${name} must be between ${minMs / 60_000}m and ${maxMs / 3_600_000}h, got "${raw}"`,
    );
  return ms;
}

export function loadConfig(env: Env = process.env): Config {
  const dataDirRaw = env.DATA_DIR && env.DATA_DIR !== "" ? env.DATA_DIR : "./data";
  const adminToken = env.ADMIN_TOKEN && env.ADMIN_TOKEN !== "" ? env.ADMIN_TOKEN : null;
  // The admin API throttles failed attempts per address, but a short token would still fall to a
  // patient or distributed guesser; 32 characters is out of reach (the generated one has 44).
  if (adminToken !== null && adminToken.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new ConfigError(
      `ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters, got ${adminToken.length}`,
    );
  }
  const retrySchedule =
    env.WEBHOOK_RETRY_SCHEDULE && env.WEBHOOK_RETRY_SCHEDULE !== "" ? env.WEBHOOK_RETRY_SCHEDULE : null;
  if (retrySchedule !== null && !/^\s*\d+[smhd](\s*,\s*\d+[smhd])*\s*$/.test(retrySchedule)) {
    throw new ConfigError(
      `WEBHOOK_RETRY_SCHEDULE must be a comma list like 1m,5m,30m,2h,12h,1d, got "${retrySchedule}"`,
    );
  }
  const host = env.HOST && env.HOST !== "" ? env.HOST : "127.0.0.1";
  const config: Config = {
    host,
    port: readInt(env, "PORT", 3000, 0, 65535),
    dataDir: dataDirRaw === ":memory:" ? ":memory:" : path.resolve(dataDirRaw),
    outboxDir:
      env.OUTBOX_DIR && env.OUTBOX_DIR !== ""
        ? path.resolve(env.OUTBOX_DIR)
        : dataDirRaw === ":memory:"
          ? path.join(os.tmpdir(), "stockroom-outbox")
          : path.resolve(dataDirRaw, "outbox"),
    databaseUrl: readUrl(env, "DATABASE_URL", ["postgres:", "postgresql:"]),
    redisUrl: readUrl(env, "REDIS_URL", ["redis:", "rediss:"]),
    smtpUrl: readUrl(env, "SMTP_URL", ["smtp:", "smtps:"]),
    mailFrom: env.MAIL_FROM && env.MAIL_FROM !== "" ? env.MAIL_FROM : "Stockroom <no-reply@stockroom.local>",
    adminToken,
    bootstrap: readEnum(env, "BOOTSTRAP", ["demo", "none"] as const, "demo"),
    workers: readEnum(env, "WORKERS", ["on", "off"] as const, "on"),
    workerConcurrency: readInt(env, "WORKER_CONCURRENCY", 8, 1, 256),
    webhookAllowPrivate: readBool(env, "WEBHOOK_ALLOW_PRIVATE", false),
    webhookRetrySchedule: retrySchedule,
    publicHostnames: (env.PUBLIC_HOSTNAMES ?? "")
      .split(",")
      .map((h) => h.trim().toLowerCase())
      .filter((h) => h !== ""),
    publicUrl: readUrl(env, "PUBLIC_URL", ["http:", "https:"])?.replace(/\/+$/, "") ?? null,
    logLevel: readEnum(
      env,
      "LOG_LEVEL",
      ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const,
      "info",
    ),
    requestTimeoutMs: readInt(env, "REQUEST_TIMEOUT_MS", 30_000, 1_000, 600_000),
    trustProxy: readBool(env, "TRUST_PROXY", false),
    serverTiming: readBool(env, "SERVER_TIMING", false),
    embeddedBackgroundShare: readInt(env, "EMBEDDED_BACKGROUND_SHARE", 50, 10, 50),
    secretsKey: readSecretKey(env, "SECRETS_KEY"),
    secretsKeyPrevious: readSecretKey(env, "SECRETS_KEY_PREVIOUS"),
    shopify: Object.freeze(readShopify(env)),
  };
  return Object.freeze(config);
}

/** `loadConfig` for entry points: a bad value prints its message and exits with status 2. */
export function loadConfigOrExit(env: Env = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
}
