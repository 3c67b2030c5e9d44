import { html, type Html } from './html';
import { MESSAGES, type Lang, type Messages } from './messages';

/** What every page knows of its request. */
export interface PageContext {
  lang: Lang;
  m: Messages;
  /** the request's path and query, for the language links */
  path: string;
  mode: 'test' | 'live';
  /** the signed-in user, with the CSRF token of its forms */
  user?: { email: string; role: string; csrf: string; canReadAudit: boolean; canManageUsers: boolean };
}

export function contextOf(
  lang: Lang,
  path: string,
  mode: 'test' | 'live',
  user?: PageContext['user'],
): PageContext {
  return { lang, m: MESSAGES[lang], path, mode, user };
}

/** The hidden CSRF field every form of a signed-in page carries. */
export function csrfField(ctx: PageContext): Html {
  return html`<input type="hidden" name="_csrf" value="${ctx.user?.csrf ?? ''}" />`;
}

function header(ctx: PageContext): Html {
  const { m, user } = ctx;
  const other: Lang = ctx.lang === 'ja' ? 'en' : 'ja';
  const langLink = html`<a
    href="/lang/${other}?next=${encodeURIComponent(ctx.path)}"
    lang="${other}"
    hreflang="${other}"
    >${other === 'ja' ? '日本語' : 'English'}</a
  >`;
  if (!user)
    return html`<header class="top">
      <p class="brand">${m.appName}</p>
      <nav aria-label="${m.language}">${langLink}</nav>
    </header>`;
  const target = ctx.mode === 'test' ? 'live' : 'test';
  return html`<header class="top">
      <p class="brand">${m.appName}</p>
      <nav aria-label="${m.nav}">
        <a href="/overview">${m.overview}</a>
        <a href="/payments">${m.payments}</a> <a href="/subscriptions">${m.subscriptions}</a>
        <a href="/developers">${m.developers}</a>
        ${user.canReadAudit ? html`<a href="/settings/audit">${m.auditLog}</a>` : ''}
        ${user.canManageUsers ? html`<a href="/settings/users">${m.users}</a>` : ''}
        <a href="/settings/stores">${m.stores}</a>
      </nav>
      <form method="post" action="/mode" class="mode-switch">
        ${csrfField(ctx)}<input type="hidden" name="mode" value="${target}" />
        <span class="mode mode-${ctx.mode}" id="mode">${ctx.mode === 'test' ? m.testMode : m.liveMode}</span>
        <button type="submit">${target === 'live' ? m.switchToLive : m.switchToTest}</button>
      </form>
      <nav aria-label="${m.language}">${langLink}</nav>
      <p class="who">
        ${m.signedInAs} <span id="user-email">${user.email}</span> (${m.role}:
        <span id="user-role">${user.role}</span>)
      </p>
      <form method="post" action="/sign-out">
        ${csrfField(ctx)}<button type="submit" id="sign-out">${m.signOut}</button>
      </form>
      <form method="post" action="/sign-out-everywhere">
        ${csrfField(ctx)}<button type="submit" id="sign-out-everywhere">${m.signOutEverywhere}</button>
      </form>
    </header>
    ${ctx.mode === 'test' ? html`<p class="test-banner" role="status">${m.testBanner}</p>` : ''}`;
}

/** A whole page: no script, one stylesheet of the console's own (the CSP allows nothing else). */
export function layout(ctx: PageContext, title: string, body: Html): string {
  return html`<!doctype html>
    <html lang="${ctx.lang}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · ${ctx.m.appName}</title>
        <link rel="stylesheet" href="/assets/console.css" />
      </head>
      <body>
        <a class="skip" href="#main">${ctx.m.skip}</a>
        ${header(ctx)}
        <main id="main">${body}</main>
      </body>
    </html> `.text;
}

/** A page that only says something (refusals, errors). */
export function messagePage(ctx: PageContext, title: string, message: string): string {
  return layout(
    ctx,
    title,
    html`<h1>${title}</h1>
      <p id="message">${message}</p>
      ${ctx.user ? html`<p><a href="/payments">${ctx.m.backToPayments}</a></p>` : ''}`,
  );
}
