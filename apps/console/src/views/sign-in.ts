import { html } from './html';
import { layout, type PageContext } from './layout';

export function signInPage(
  ctx: PageContext,
  token: string,
  options: { error?: string; notice?: string; email?: string } = {},
): string {
  const { m } = ctx;
  return layout(
    ctx,
    m.signInTitle,
    html`<h1>${m.signInTitle}</h1>
      ${options.notice ? html`<p class="notice" role="status" id="notice">${options.notice}</p>` : ''}
      ${options.error ? html`<p class="error" role="alert" id="sign-in-error">${options.error}</p>` : ''}
      <form method="post" action="/sign-in" class="sign-in">
        <input type="hidden" name="_csrf" value="${token}" />
        <label for="email">${m.email}</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          maxlength="254"
          value="${options.email ?? ''}"
        />
        <label for="password">${m.password}</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          maxlength="256"
        />
        <button type="submit" id="sign-in">${m.signIn}</button>
      </form>`,
  );
}
