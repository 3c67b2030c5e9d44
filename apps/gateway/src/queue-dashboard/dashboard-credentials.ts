import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

const BASIC = /^Basic\s+([A-Za-z0-9+/]+={0,2})$/i;

/**
 * The queue dashboard's HTTP Basic credentials (RFC 7617). Both parts are compared as digests in
 * constant time, and both always are, so that neither the length nor which part was wrong shows in
 * the answer's timing.
 */
export class DashboardCredentials {
  readonly #username: Buffer;
  readonly #password: Buffer;

  constructor(username: string, password: string) {
    this.#username = digest(username);
    this.#password = digest(password);
  }

  allows(authorization: string | string[] | undefined): boolean {
    if (typeof authorization !== 'string') return false;
    const match = BASIC.exec(authorization.trim());
    if (!match) return false;
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return false;
    const username = timingSafeEqual(digest(decoded.slice(0, colon)), this.#username);
    const password = timingSafeEqual(digest(decoded.slice(colon + 1)), this.#password);
    return username && password;
  }
}
