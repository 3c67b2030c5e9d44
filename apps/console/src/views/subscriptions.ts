import { SUBSCRIPTION_STATUSES } from '@kessai/domain';
import type { Charge, ScheduledPayment, SubscriptionListItem, SubscriptionWithNextPayment } from '@kessai/db';
import { html, type Html } from './html';
import { csrfField, layout, type PageContext } from './layout';
import { money } from './money';

export interface SubscriptionListView {
  rows: SubscriptionListItem[];
  /** the status filter as the URL gave it */
  status: string;
  nextQuery: string | null;
  previousQuery: string | null;
  error?: string;
}

export function subscriptionListPage(ctx: PageContext, view: SubscriptionListView): string {
  const { m } = ctx;
  const filters = html`<form
    method="get"
    action="/subscriptions"
    class="filters"
    aria-labelledby="filters-title"
  >
    <h2 id="filters-title">${m.filters}</h2>
    <div class="fields">
      <div>
        <label for="status">${m.status}</label>
        <select id="status" name="status">
          <option value="">${m.any}</option>
          ${SUBSCRIPTION_STATUSES.map((s) => html`<option value="${s}" ${s === view.status ? html` selected` : ''}>${s}</option>`)}
        </select>
      </div>
    </div>
    <button type="submit" id="apply-filters">${m.apply}</button> <a href="/subscriptions">${m.clear}</a>
  </form>`;
  const table =
    view.rows.length === 0
      ? html`<p id="no-subscriptions">${m.noSubscriptions}</p>`
      : html`<table id="subscriptions">
          <caption class="visually-hidden">
            ${m.subscriptions}
          </caption>
          <thead>
            <tr>
              <th scope="col">${m.created}</th>
              <th scope="col">${m.amount}</th>
              <th scope="col">${m.period}</th>
              <th scope="col">${m.status}</th>
              <th scope="col">${m.store}</th>
              <th scope="col">${m.id}</th>
            </tr>
          </thead>
          <tbody>
            ${view.rows.map(
              (s) =>
                html`<tr data-subscription-id="${s.id}">
                  <td>${s.createdOn.toISOString()}</td>
                  <td>${money(s.amount, s.currency)}</td>
                  <td>${s.period ?? s.cyclicalPeriod}</td>
                  <td>${s.status}</td>
                  <td>${s.store.name}</td>
                  <td><a href="/subscriptions/${s.id}">${s.id}</a></td>
                </tr>`,
            )}
          </tbody>
        </table>`;
  const pages = html`<nav aria-label="${m.pagination}" class="pages">
    ${view.previousQuery !== null ? html`<a id="previous-page" rel="prev" href="/subscriptions?${view.previousQuery}">${m.previous}</a>` : ''}
    ${view.nextQuery !== null ? html`<a id="next-page" rel="next" href="/subscriptions?${view.nextQuery}">${m.next}</a>` : ''}
  </nav>`;
  return layout(
    ctx,
    m.subscriptions,
    html`<h1>${m.subscriptions}</h1>
      ${view.error ? html`<p class="error" role="alert" id="filter-error">${view.error}</p>` : ''}${filters}${table}${pages}`,
  );
}

export interface SubscriptionView {
  subscription: SubscriptionWithNextPayment;
  payments: ScheduledPayment[];
  charges: Charge[];
  /** the moves offered (the role and the status allow them) */
  actions: readonly ('suspend' | 'unsuspend' | 'cancel')[];
  done?: 'suspend' | 'unsuspend' | 'cancel';
  error?: string;
}

function row(label: string, value: Html | string | null): Html {
  return html`<tr>
    <th scope="row">${label}</th>
    <td>${value ?? '—'}</td>
  </tr>`;
}

export function subscriptionPage(ctx: PageContext, view: SubscriptionView): string {
  const { m } = ctx;
  const s = view.subscription;
  const metadata = Object.entries((s.metadata ?? {}) as Record<string, unknown>);
  const labels = { suspend: m.suspend, unsuspend: m.unsuspend, cancel: m.cancelSubscription };
  const actions = view.actions.map(
    (action) =>
      html`<form method="post" action="/subscriptions/${s.id}/${action}" class="subscription-action">
        ${csrfField(ctx)}<button type="submit" id="${action}-button">${labels[action]}</button>
      </form>`,
  );
  const payments =
    view.payments.length === 0
      ? html`<p>${m.noScheduledPayments}</p>`
      : html`<table id="scheduled-payments">
          <caption class="visually-hidden">
            ${m.scheduledPayments}
          </caption>
          <thead>
            <tr>
              <th scope="col">${m.dueDate}</th>
              <th scope="col">${m.amount}</th>
              <th scope="col">${m.status}</th>
            </tr>
          </thead>
          <tbody>
            ${view.payments.map(
              (p) =>
                html`<tr data-payment-id="${p.id}">
                  <td>${p.dueDate.toISOString().slice(0, 10)}</td>
                  <td>${money(p.amount, p.currency)}</td>
                  <td>${p.status}</td>
                </tr>`,
            )}
          </tbody>
        </table>`;
  const charges =
    view.charges.length === 0
      ? html`<p>${m.noPayments}</p>`
      : html`<table id="subscription-charges">
          <caption class="visually-hidden">
            ${m.payments}
          </caption>
          <thead>
            <tr>
              <th scope="col">${m.created}</th>
              <th scope="col">${m.amount}</th>
              <th scope="col">${m.status}</th>
              <th scope="col">${m.id}</th>
            </tr>
          </thead>
          <tbody>
            ${view.charges.map(
              (c) =>
                html`<tr data-charge-id="${c.id}">
                  <td>${c.createdOn.toISOString()}</td>
                  <td>${money(c.requestedAmount, c.requestedCurrency)}</td>
                  <td>${c.status}</td>
                  <td><a href="/payments/${c.id}">${c.id}</a></td>
                </tr>`,
            )}
          </tbody>
        </table>`;
  return layout(
    ctx,
    `${m.subscription} ${s.id}`,
    html`<h1>${m.subscription}</h1>
      ${view.done ? html`<p class="notice" role="status" id="notice">${m.subscriptionDone}</p>` : ''}
      ${view.error ? html`<p class="error" role="alert" id="action-error">${view.error}</p>` : ''}
      <table id="subscription">
        <caption>
          ${m.subscription}
        </caption>
        <tbody>
          ${row(m.id, s.id)} ${row(m.status, html`<span id="subscription-status">${s.status}</span>`)}
          ${row(m.amount, money(s.amount, s.currency))} ${row(m.period, s.period ?? s.cyclicalPeriod)}
          ${row(m.nextPayment, s.nextPayment ? s.nextPayment.dueDate.toISOString().slice(0, 10) : null)}
          ${row(m.created, s.createdOn.toISOString())} ${row(m.token, s.transactionTokenId)}
          ${row(m.descriptor, s.descriptor)}
          ${row(
            m.metadata,
            metadata.length === 0
              ? null
              : html`<dl class="metadata">
                  ${metadata.map(
                    ([k, v]) =>
                      html`<dt>${k}</dt>
                        <dd>${typeof v === 'string' ? v : JSON.stringify(v)}</dd>`,
                  )}
                </dl>`,
          )}
        </tbody>
      </table>
      ${actions.length > 0 ? html`<div class="actions">${actions}</div>` : ''}
      <h2>${m.scheduledPayments}</h2>
      ${payments}
      <h2>${m.payments}</h2>
      ${charges}
      <p><a href="/subscriptions">${m.backToSubscriptions}</a></p>`,
  );
}
