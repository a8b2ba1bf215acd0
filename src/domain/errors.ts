/** The closed list of error codes the API answers with (contract "Errors" plus decisions). */
export type ErrorCode =
  | "bad_request"
  | "idempotency_key_required"
  | "invalid_cursor"
  | "invalid_filter"
  | "unauthorized"
  | "feature_not_enabled"
  | "insufficient_scope"
  | "not_found"
  | "idempotency_key_reused"
  | "idempotency_in_progress"
  | "validation_failed"
  | "invalid_transition"
  | "limit_reached"
  | "webhook_not_active"
  | "merge_network_blocked"
  | "rate_limited"
  | "internal_error";

export interface ErrorDetail {
  /** Request field path, e.g. `lines.2.quantity`. */
  field: string;
  code: string;
  message: string;
}

const DEFAULT_STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  idempotency_key_required: 400,
  invalid_cursor: 400,
  invalid_filter: 400,
  unauthorized: 401,
  feature_not_enabled: 402,
  insufficient_scope: 403,
  not_found: 404,
  idempotency_key_reused: 409,
  idempotency_in_progress: 409,
  validation_failed: 422,
  invalid_transition: 422,
  limit_reached: 422,
  webhook_not_active: 422,
  merge_network_blocked: 422,
  rate_limited: 429,
  internal_error: 500,
};

/** Every error `code` the API answers with (the contract's list), for the OpenAPI document. */
export const ERROR_CODES = Object.keys(DEFAULT_STATUS) as readonly ErrorCode[];

/**
 * The one error type of the service. Domain code throws it; one mapper (http/plugins/errors.ts)
 * turns it into the contract's envelope. Anything else that escapes becomes a 500 without internals.
 */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    status?: number,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "AppError";
    this.status = status ?? DEFAULT_STATUS[code];
  }
}

export const notFound = (what = "record") => new AppError("not_found", `No such ${what} in this store.`);

export const invalidTransition = (message: string) => new AppError("invalid_transition", message);

/** One or more field problems: 422 validation_failed. */
export function validationFailed(details: ErrorDetail[], message?: string): AppError {
  const summary =
    message ??
    (details.length === 1 ? `${details[0].field}: ${details[0].message}` : "Some fields are invalid.");
  return new AppError("validation_failed", summary, details);
}

/** Collects field problems while checking a request, then throws them all at once. */
export class DetailCollector {
  readonly details: ErrorDetail[] = [];
  add(field: string, code: string, message: string): void {
    this.details.push({ field, code, message });
  }
  get empty(): boolean {
    return this.details.length === 0;
  }
  throwIfAny(): void {
    if (this.details.length > 0) throw validationFailed(this.details);
  }
}
