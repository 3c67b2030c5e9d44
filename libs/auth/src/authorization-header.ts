/**
 * Parses the Authorization header forms the UnivaPay SDKs send (api-reference §1.1):
 * `Bearer <secret>.<jwt>` (4 dot-separated parts) and `Bearer <jwt>` (3 parts, public use). Any other
 * scheme is `unsupported`, whatever follows it: the SDK's deprecated `Token <login token>` and
 * `ApplicationToken <id>|<secret>` forms among them (docs/decisions/0008-bearer-authorization-only.md).
 */
export type ParsedAuthorization =
  | { kind: 'missing' }
  | { kind: 'unsupported' }
  | { kind: 'malformed' }
  | { kind: 'bearer'; jwt: string; secret: string | null };

export function parseAuthorizationHeader(header: string | undefined): ParsedAuthorization {
  if (header === undefined || header.trim() === '') return { kind: 'missing' };
  const [scheme, ...rest] = header.trim().split(/\s+/);
  if (scheme.toLowerCase() !== 'bearer') return { kind: 'unsupported' };
  if (rest.length !== 1) return { kind: 'malformed' };
  const credential = rest[0];
  const parts = credential.split('.');
  if (parts.some((p) => p === '')) return { kind: 'malformed' };
  if (parts.length === 4) return { kind: 'bearer', secret: parts[0], jwt: parts.slice(1).join('.') };
  if (parts.length === 3) return { kind: 'bearer', secret: null, jwt: credential };
  return { kind: 'malformed' };
}
