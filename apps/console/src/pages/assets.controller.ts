import { Controller, Get, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PublicPage } from '../session/decorators';
import { LANG_COOKIE } from '../session/cookies';

/** The console's own files (its stylesheet), read once; nothing is loaded from another origin. */
const ASSETS: Record<string, { type: string; body: Buffer }> = {
  'console.css': {
    type: 'text/css; charset=utf-8',
    body: readFileSync(join(__dirname, '..', 'assets', 'console.css')),
  },
};

@Controller()
export class AssetsController {
  @Get('assets/:name')
  @PublicPage()
  asset(@Param('name') name: string, @Res() reply: FastifyReply) {
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!asset) return reply.status(404).type('text/plain').send('not found');
    return reply
      .status(200)
      .header('cache-control', 'public, max-age=3600')
      .type(asset.type)
      .send(asset.body);
  }

  /** The language switch: a preference cookie, then back to the page it was asked from. */
  @Get('lang/:lang')
  @PublicPage()
  lang(@Param('lang') lang: string, @Res() reply: FastifyReply) {
    const request = reply.request;
    const next = (request.query as Record<string, unknown>).next;
    // only a path of this site: never another origin (an open redirect)
    const target = typeof next === 'string' && /^\/(?![/\\])/.test(next) ? next : '/payments';
    if (lang === 'en' || lang === 'ja')
      void reply.setCookie(LANG_COOKIE, lang, {
        path: '/',
        sameSite: 'lax',
        httpOnly: true,
        maxAge: 365 * 86_400,
      });
    return reply.redirect(target, 303);
  }
}
