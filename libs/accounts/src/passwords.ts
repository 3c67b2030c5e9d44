/** What a merchant user's password must be (NIST SP 800-63B: length, not composition rules). */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;

/** Emails are compared case-insensitively: stored and looked up trimmed and in lower case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
