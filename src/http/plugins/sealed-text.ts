import type { Sealer } from "../../secrets/index.ts";

/**
 * Stored responses can hold secrets shown once (a webhook's signing secret), so they are kept sealed
 * (src/secrets: AES-256-GCM under a key kept outside the database) rather than in plain text for their
 * 24 hours. The purpose is the context the values are sealed with (secrets/sealed-columns.ts).
 */
export interface SealingKey {
  sealer: Sealer;
  purpose: string;
}

export function sealingKey(sealer: Sealer, purpose: string): SealingKey {
  return { sealer, purpose };
}

export function seal(text: string, key: SealingKey): string {
  return key.sealer.seal(text, key.purpose);
}

export function unseal(stored: string, key: SealingKey): string {
  return key.sealer.open(stored, key.purpose);
}
