import { createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Permission } from '../roles';
import type { ConsoleSession } from './console-sessions';

export const PUBLIC_PAGE = 'console:public';
export const PERMISSION = 'console:permission';

/** A page anyone may open (sign-in, health, assets). */
export const PublicPage = () => SetMetadata(PUBLIC_PAGE, true);

/** What the user's role must allow for this action (roles.ts); signed-in pages without it read only. */
export const Requires = (permission: Permission) => SetMetadata(PERMISSION, permission);

declare module 'fastify' {
  interface FastifyRequest {
    consoleSession?: ConsoleSession;
  }
}

/** The signed-in session of the request (the guard set it). */
export const CurrentSession = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const session = context.switchToHttp().getRequest<FastifyRequest>().consoleSession;
  if (!session) throw new Error('CurrentSession on a public page');
  return session;
});
