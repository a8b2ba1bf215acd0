import type { Statements } from "./index.ts";

/**
 * A store's staff (docs/decisions.md §13 and "Console staff and actors"), owned by the staff module.
 * An email is one account per store (unique, compared in lower case). Passwords are scrypt hashes;
 * invitation and reset links are stored as SHA-256 hashes of the link's secret, used once.
 */
export const staffMigration: Statements = [
  `create table staff (
    id serial primary key,
    store_id integer not null references stores(id) on delete cascade,
    email text not null,
    name text not null default '',
    role text not null check (role in ('owner', 'purchasing', 'inventory', 'viewer')),
    password_hash text,
    invited_at timestamptz not null,
    joined_at timestamptz,
    last_sign_in_at timestamptz,
    disabled_at timestamptz,
    failed_sign_ins integer not null default 0,
    locked_until timestamptz,
    created_at timestamptz not null,
    updated_at timestamptz not null
  )`,
  `create unique index staff_store_email on staff (store_id, lower(email))`,
  `create index staff_email on staff (lower(email))`,
  `create table staff_links (
    id serial primary key,
    store_id integer not null references stores(id) on delete cascade,
    staff_id integer references staff(id) on delete cascade,
    purpose text not null check (purpose in ('invitation', 'reset', 'owner_claim')),
    token_hash text not null unique,
    expires_at timestamptz not null,
    used_at timestamptz,
    created_at timestamptz not null
  )`,
  `create index staff_links_staff on staff_links (staff_id, purpose)`,
];
