/**
 * The staff module's public entry: a store's staff members, their roles and what each role may change,
 * invitations and password resets by one-time mailed links, sign-in with lockout, and the owner claim of
 * a store made without one (a Shopify install). Owns `staff` and `staff_links`.
 */
export { consoleBaseUrl, LINK_MAIL_JOB, LINK_TTL_MS, linkMailJob } from "./link-mail.ts";
export {
  claimOwner,
  installLandingPath,
  type LinkInfo,
  ownerClaimPath,
  ownerClaimStore,
  passwordLinkInfo,
  setPasswordWithLink,
} from "./links.ts";
export { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "./passwords.ts";
export { presentStaff, type StaffRow, type StaffView } from "./presenter.ts";
export {
  isStaffRole,
  PERMISSIONS,
  type Permission,
  permissionsOf,
  STAFF_ROLES,
  type StaffRole,
  scopesOf,
} from "./roles.ts";
export { inviteStaff, listStaff, resendInvitation, type StaffPatch, updateStaff } from "./service.ts";
export {
  currentStaff,
  FAILED_SIGN_INS_ALLOWED,
  LOCK_MS,
  requestPasswordReset,
  type SignInResult,
  signIn,
} from "./sign-in.ts";
