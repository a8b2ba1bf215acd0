/** Sealing of secrets the service stores and reads back; keys from outside the database. */

export { KEY_FILE_NAME, keyFilePath } from "./key-file.ts";
export { parseSecretKey, SecretKey } from "./keys.ts";
export { SecretsRefusal } from "./refusal.ts";
export { IDEMPOTENT_RESPONSE_CONTEXT, webhookSecretContext } from "./sealed-columns.ts";
export { Sealer } from "./sealer.ts";
export { openSecrets } from "./startup.ts";
