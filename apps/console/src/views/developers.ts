import type { AppToken, LoggedDelivery } from '@kessai/db';
import type { WebhookListEntry, WebhookResource } from '@kessai/webhooks';
import { html, type Html } from './html';
import { csrfField, layout, type PageContext } from './layout';
import type { Messages } from './messages';
import { dataTable, detailRow, selectField, type TableSpec } from './parts';

/** Whose keys and webhooks a page is about: the merchant's own (`storeId` null) or one store's. */
export interface OwnerChoice {
  storeId: string | null;
  stores: { id: string; name: string }[];
}

export interface DevelopersView {
  owner: OwnerChoice;
  tokens: AppToken[];
  webhooks: WebhookListEntry[];
  /** the triggers a webhook of this owner may have */
  triggers: readonly string[];
  /** the user's role may create, change and revoke */
  canManage: boolean;
  notice?: string;
  error?: string;
}

/** The hidden field naming a form's owner (a store, or none for the merchant's own). */
function ownerField(storeId: string | null): Html {
  return storeId === null ? html`` : html`<input type="hidden" name="store" value="${storeId}" />`;
}

function ownerQuery(storeId: string | null): string {
  return storeId === null ? '' : `?store=${encodeURIComponent(storeId)}`;
}

function notices(view: { notice?: string; error?: string }): Html {
  return html`${view.notice ? html`<p class="notice" role="status" id="notice">${view.notice}</p>` : ''}
  ${view.error ? html`<p class="error" role="alert" id="action-error">${view.error}</p>` : ''}`;
}

function tokensTable(ctx: PageContext, view: DevelopersView): TableSpec<AppToken> {
  const { m } = ctx;
  const revoke = (token: AppToken) =>
    html`<form method="post" action="/developers/app-tokens/${token.id}/revoke" class="inline">
      ${csrfField(ctx)}${ownerField(view.owner.storeId)}
      <button type="submit" aria-label="${m.revoke} ${token.id}">${m.revoke}</button>
    </form>`;
  return {
    id: 'app-tokens',
    caption: m.appTokens,
    empty: html`<p id="no-app-tokens">${m.noAppTokens}</p>`,
    columns: [
      { header: m.created, cell: (t) => t.createdOn.toISOString() },
      { header: m.id, cell: (t) => t.id },
      { header: m.domains, cell: (t) => (t.domains.length > 0 ? t.domains.join(', ') : '—') },
      ...(view.canManage ? [{ header: m.action, cell: revoke }] : []),
    ],
    data: (t) => ({ 'token-id': t.id }),
  };
}

function webhooksTable(m: Messages, storeId: string | null): TableSpec<WebhookListEntry> {
  return {
    id: 'webhooks',
    caption: m.webhooks,
    empty: html`<p id="no-webhooks">${m.noWebhooks}</p>`,
    columns: [
      { header: m.created, cell: (w) => w.createdOn.toISOString() },
      {
        header: m.url,
        cell: (w) => html`<a href="/developers/webhooks/${w.id}${ownerQuery(storeId)}">${w.url}</a>`,
      },
      { header: m.triggers, cell: (w) => w.triggers.join(', ') },
      { header: m.active, cell: (w) => (w.active ? '✓' : (w.disabledReason ?? '—')) },
    ],
    data: (w) => ({ 'webhook-id': w.id }),
  };
}

/** Checkboxes of the triggers offered, those in `checked` ticked. */
function triggerBoxes(m: Messages, triggers: readonly string[], checked: readonly string[]): Html {
  return html`<fieldset class="triggers">
    <legend>${m.triggers}</legend>
    ${triggers.map(
      (trigger) =>
        html`<label
          ><input
            type="checkbox"
            name="triggers"
            value="${trigger}"
            ${checked.includes(trigger) ? html`checked` : ''}
          />
          ${trigger}</label
        >`,
    )}
  </fieldset>`;
}

/** The developers page: the owner's app tokens and webhooks in the switch's mode, with the forms the role allows. */
export function developersPage(ctx: PageContext, view: DevelopersView): string {
  const { m } = ctx;
  const { storeId } = view.owner;
  const ownerPicker = html`<form method="get" action="/developers" class="filters">
    ${selectField(
      'store',
      m.owner,
      view.owner.stores.map((store) => ({ value: store.id, text: store.name })),
      storeId ?? undefined,
      m.merchantItself,
    )}
    <button type="submit" id="show-owner">${m.show}</button>
  </form>`;
  const newToken = html`<form
    method="post"
    action="/developers/app-tokens"
    class="action"
    aria-labelledby="new-token-title"
  >
    <h3 id="new-token-title">${m.newAppToken}</h3>
    ${csrfField(ctx)}${ownerField(storeId)}
    <label for="domains">${m.domains}</label>
    <input id="domains" name="domains" type="text" aria-describedby="domains-hint" />
    <p id="domains-hint" class="hint">${m.domainsHint}</p>
    <button type="submit" id="create-app-token">${m.createAppToken}</button>
  </form>`;
  const newWebhook = html`<form
    method="post"
    action="/developers/webhooks"
    class="action"
    aria-labelledby="new-webhook-title"
  >
    <h3 id="new-webhook-title">${m.newWebhook}</h3>
    ${csrfField(ctx)}${ownerField(storeId)}
    <label for="url">${m.url}</label>
    <input id="url" name="url" type="url" required />
    ${triggerBoxes(m, view.triggers, [])}
    <label for="auth_token">${m.authToken}</label>
    <input id="auth_token" name="auth_token" type="text" autocomplete="off" />
    <button type="submit" id="create-webhook">${m.createWebhook}</button>
  </form>`;
  return layout(
    ctx,
    m.developers,
    html`<h1>${m.developers}</h1>
      ${notices(view)}${ownerPicker}
      <h2>${m.appTokens}</h2>
      ${dataTable(tokensTable(ctx, view), view.tokens)}${view.canManage ? newToken : ''}
      <h2>${m.webhooks}</h2>
      ${dataTable(webhooksTable(m, storeId), view.webhooks)}${view.canManage ? newWebhook : ''}`,
  );
}

/** A secret shown once, right after the write that made it (never stored in the clear, never shown again). */
export function secretsPage(
  ctx: PageContext,
  title: string,
  rows: readonly { label: string; id: string; value: string }[],
  back: { href: string; text: string },
): string {
  const { m } = ctx;
  return layout(
    ctx,
    title,
    html`<h1>${title}</h1>
      <p class="notice" role="status" id="shown-once">${m.shownOnce}</p>
      <table id="secrets">
        <caption class="visually-hidden">
          ${title}
        </caption>
        <tbody>
          ${rows.map((row) => detailRow(row.label, html`<code id="${row.id}">${row.value}</code>`))}
        </tbody>
      </table>
      <p><a href="${back.href}">${back.text}</a></p>`,
  );
}

export interface WebhookView {
  webhook: WebhookResource;
  deliveries: LoggedDelivery[];
  triggers: readonly string[];
  canManage: boolean;
  notice?: string;
  error?: string;
}

function deliveriesTable(ctx: PageContext, view: WebhookView): TableSpec<LoggedDelivery> {
  const { m } = ctx;
  const { webhook } = view;
  const tries = (delivery: LoggedDelivery) =>
    delivery.attempts.length === 0
      ? '—'
      : html`<ol class="tries">
          ${delivery.attempts.map(
            (attempt) =>
              html`<li>
                ${attempt.statusCode ?? attempt.errorMessage ?? '—'} · ${attempt.durationMs} ms
                ${attempt.responseSnippet ? html`· <code>${attempt.responseSnippet}</code>` : ''}
              </li>`,
          )}
        </ol>`;
  const replay = (delivery: LoggedDelivery) =>
    html`<form
      method="post"
      action="/developers/webhooks/${webhook.id}/deliveries/${delivery.id}/replay"
      class="inline"
    >
      ${csrfField(ctx)}${ownerField(webhook.storeId)}
      <button type="submit" aria-label="${m.replay} ${delivery.id}">${m.replay}</button>
    </form>`;
  return {
    id: 'deliveries',
    caption: m.deliveries,
    empty: html`<p id="no-deliveries">${m.noDeliveries}</p>`,
    columns: [
      { header: m.created, cell: (d) => d.createdOn.toISOString() },
      { header: m.event, cell: (d) => d.event },
      { header: m.status, cell: (d) => d.status },
      { header: m.tries, cell: tries },
      ...(view.canManage && webhook.active ? [{ header: m.action, cell: replay }] : []),
    ],
    data: (d) => ({ 'delivery-id': d.id, 'delivery-status': d.status }),
  };
}

/** A webhook: its fields, its changes, secret rotation and deletion (as the role allows), and its deliveries. */
export function webhookPage(ctx: PageContext, view: WebhookView): string {
  const { m } = ctx;
  const { webhook } = view;
  const base = `/developers/webhooks/${webhook.id}`;
  const owner = ownerField(webhook.storeId);
  const actions = html`<form method="post" action="${base}" class="action" aria-labelledby="edit-title">
      <h2 id="edit-title">${m.saveWebhook}</h2>
      ${csrfField(ctx)}${owner}
      <label for="url">${m.url}</label>
      <input id="url" name="url" type="url" required value="${webhook.url}" />
      ${triggerBoxes(m, view.triggers, webhook.triggers)}
      <label for="auth_token">${m.authToken}</label>
      <input id="auth_token" name="auth_token" type="text" autocomplete="off" aria-describedby="auth-hint" />
      <p id="auth-hint" class="hint">${m.authTokenHint}</p>
      <label
        ><input type="checkbox" name="active" id="active" ${webhook.active ? html`checked` : ''} />
        ${m.active}</label
      >
      <button type="submit" id="save-webhook">${m.saveWebhook}</button>
    </form>
    <form method="post" action="${base}/rotate-secret" class="action">
      ${csrfField(ctx)}${owner}
      <p class="hint">${m.rotateHint}</p>
      <button type="submit" id="rotate-secret">${m.rotateSecret}</button>
    </form>
    <form method="post" action="${base}/delete" class="action">
      ${csrfField(ctx)}${owner}<button type="submit" id="delete-webhook">${m.deleteWebhook}</button>
    </form>`;
  return layout(
    ctx,
    `${m.webhook} ${webhook.id}`,
    html`<h1>${m.webhook}</h1>
      ${notices(view)}
      <table id="webhook">
        <caption class="visually-hidden">
          ${m.webhook}
        </caption>
        <tbody>
          ${detailRow(m.id, webhook.id)} ${detailRow(m.url, webhook.url)}
          ${detailRow(m.triggers, webhook.triggers.join(', '))} ${detailRow(m.mode, webhook.mode)}
          ${detailRow(m.active, html`<span id="webhook-active">${webhook.active ? '✓' : '—'}</span>`)}
          ${detailRow(m.disabledReason, webhook.disabledReason)}
          ${detailRow(m.created, webhook.createdOn.toISOString())}
        </tbody>
      </table>
      ${view.canManage ? actions : ''}
      <h2>${m.deliveries}</h2>
      ${dataTable(deliveriesTable(ctx, view), view.deliveries)}
      <p><a href="/developers${ownerQuery(webhook.storeId)}">${m.backToDevelopers}</a></p>`,
  );
}
