import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '@kessai/config';

export const SESSION_COOKIE = 'kessai_console_session';
export const SIGN_IN_COOKIE = 'kessai_console_sign_in';
export const MODE_COOKIE = 'kessai_console_mode';
export const LANG_COOKIE = 'kessai_console_lang';

/** HttpOnly, SameSite=Lax, and Secure everywhere but local development. */
export function cookieOptions(config: AppConfig, maxAgeSeconds?: number) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: config.NODE_ENV !== 'development',
    signed: true,
    ...(maxAgeSeconds !== undefined ? { maxAge: maxAgeSeconds } : {}),
  };
}

/** A signed cookie's value when its signature holds; undefined otherwise. */
export function signedCookie(request: FastifyRequest, name: string): string | undefined {
  const value = request.cookies[name];
  if (value === undefined) return undefined;
  const unsigned = request.unsignCookie(value);
  return unsigned.valid && unsigned.value !== null ? unsigned.value : undefined;
}

export function clearCookie(reply: FastifyReply, config: AppConfig, name: string): void {
  void reply.clearCookie(name, { ...cookieOptions(config), signed: false });
}
