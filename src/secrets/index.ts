/** Sealing of secrets the service stores and reads back; keys from outside the database. */
export { KEY_FILE_NAME, keyFilePath } from "./key-file.ts";
export { parseSecretKey, SecretKey } from "./keys.ts";
export { LEGACY_PATTERNS } from "./legacy.ts";
export { SecretsRefusal } from "./refusal.ts";
export type { SealedColumn, SealedRow } from "./sealed-columns.ts";
export { Sealer } from "./sealer.ts";
export { openSecrets } from "./startup.ts";
