/**
 * The staff module's public entry: a store's staff members, their roles and what each role may change.
 */
export {
  isStaffRole,
  PERMISSIONS,
  type Permission,
  permissionsOf,
  STAFF_ROLES,
  type StaffRole,
  scopesOf,
} from "./roles.ts";
