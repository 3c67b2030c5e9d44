import type { NestFastifyApplication } from '@nestjs/platform-fastify';

/** A secret-bearing app token as the admin service issues it. */
export interface Credentials {
  secret: string;
  jwt: string;
}

export const bearer = (token: Credentials) => `Bearer ${token.secret}.${token.jwt}`;

export interface JsonRequest extends RequestInit {
  /** the Authorization header */
  auth?: string;
  /** the Idempotency-Key header */
  key?: string;
  /** the Origin header (a browser's page, for public tokens) */
  origin?: string;
  /** a body to send as JSON */
  json?: unknown;
}

/** One HTTP call with the raw answer kept: status, headers, text and the parsed JSON body. */
export async function requestJson(baseUrl: string, path: string, init: JsonRequest = {}) {
  const headers = new Headers(init.headers);
  if (init.auth) headers.set('authorization', init.auth);
  if (init.key !== undefined) headers.set('idempotency-key', init.key);
  if (init.origin) headers.set('origin', init.origin);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  }
  const response = await fetch(`${baseUrl}${path}`, { ...init, headers, body });
  const text = await response.text();
  /* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment -- tests read arbitrary bodies */
  const parsed: any = text ? JSON.parse(text) : null;
  return { status: response.status, headers: response.headers, text, body: parsed };
  /* eslint-enable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment */
}

/**
 * A refusal in the API's error envelope (api-reference §2.1): this status and code, as JSON, with
 * its list of field errors.
 */
export function expectErrorEnvelope(
  res: { status: number; headers: Headers; body: unknown },
  status: number,
  code: string,
): void {
  expect({ status: res.status, code: (res.body as { code?: unknown } | null)?.code }).toEqual({
    status,
    code,
  });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- jest's asymmetric matcher
  expect(res.body).toMatchObject({ status: 'error', errors: expect.any(Array) });
}

/** Starts an in-process app (a gateway made by createGatewayApp) on a free local port; its base URL. */
export async function listenLocally(app: NestFastifyApplication): Promise<string> {
  await app.listen(0, '127.0.0.1');
  return app.getUrl();
}
