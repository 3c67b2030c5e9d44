/** A signed-in page asked for without a live session: answered by a redirect to the sign-in page. */
export class SignInRequiredError extends Error {
  constructor() {
    super('sign-in required');
  }
}

/** A POST without its form's CSRF token (or with another session's): 403, nothing done. */
export class CsrfError extends Error {
  constructor() {
    super('CSRF token missing or wrong');
  }
}
