import { SUBSCRIPTION_STATUSES } from '@kessai/domain';
import type { Charge, ScheduledPayment, SubscriptionListItem, SubscriptionWithNextPayment } from '@kessai/db';
import { html } from './html';
import { csrfField, layout, type PageContext } from './layout';
import type { Messages } from './messages';
import { money } from './money';
import { chargeColumns } from './payments';
import {
  dataTable,
  detailRow,
  filterForm,
  metadataList,
  pageLinks,
  plainOptions,
  selectField,
  type TableSpec,
} from './parts';

export interface SubscriptionListView {
  rows: SubscriptionListItem[];
  /** the status filter as the URL gave it */
  status: string;
  nextQuery: string | null;
  previousQuery: string | null;
  error?: string;
}

function subscriptionsTable(m: Messages): TableSpec<SubscriptionListItem> {
  return {
    id: 'subscriptions',
    caption: m.subscriptions,
    empty: html`<p id="no-subscriptions">${m.noSubscriptions}</p>`,
    columns: [
      { header: m.created, cell: (s) => s.createdOn.toISOString() },
      { header: m.amount, cell: (s) => money(s.amount, s.currency) },
      { header: m.period, cell: (s) => s.period ?? s.cyclicalPeriod },
      { header: m.status, cell: (s) => s.status },
      { header: m.store, cell: (s) => s.store.name },
      { header: m.id, cell: (s) => html`<a href="/subscriptions/${s.id}">${s.id}</a>` },
    ],
    data: (s) => ({ 'subscription-id': s.id }),
  };
}

export function subscriptionListPage(ctx: PageContext, view: SubscriptionListView): string {
  const { m } = ctx;
  const filters = filterForm(m, '/subscriptions', [
    selectField('status', m.status, plainOptions(SUBSCRIPTION_STATUSES), view.status, m.any),
  ]);
  const table = dataTable(subscriptionsTable(m), view.rows);
  const pages = pageLinks(m, '/subscriptions', view.previousQuery, view.nextQuery);
  // test clocks exist in test mode only (views/test-clocks.ts)
  const clocks =
    ctx.mode === 'test'
      ? html`<p><a href="/subscriptions/test-clocks" id="test-clocks-link">${m.testClocks}</a></p>`
      : '';
  return layout(
    ctx,
    m.subscriptions,
    html`<h1>${m.subscriptions}</h1>
      ${view.error ? html`<p class="error" role="alert" id="filter-error">${view.error}</p>` : ''}${filters}${table}${pages}${clocks}`,
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

function scheduledPaymentsTable(m: Messages): TableSpec<ScheduledPayment> {
  return {
    id: 'scheduled-payments',
    caption: m.scheduledPayments,
    empty: html`<p>${m.noScheduledPayments}</p>`,
    columns: [
      { header: m.dueDate, cell: (p) => p.dueDate.toISOString().slice(0, 10) },
      { header: m.amount, cell: (p) => money(p.amount, p.currency) },
      { header: m.status, cell: (p) => p.status },
    ],
    data: (p) => ({ 'payment-id': p.id }),
  };
}

function subscriptionChargesTable(m: Messages): TableSpec<Charge> {
  return {
    id: 'subscription-charges',
    caption: m.payments,
    empty: html`<p>${m.noPayments}</p>`,
    columns: chargeColumns(m),
    data: (c) => ({ 'charge-id': c.id }),
  };
}

export function subscriptionPage(ctx: PageContext, view: SubscriptionView): string {
  const { m } = ctx;
  const s = view.subscription;
  const labels = { suspend: m.suspend, unsuspend: m.unsuspend, cancel: m.cancelSubscription };
  const actions = view.actions.map(
    (action) =>
      html`<form method="post" action="/subscriptions/${s.id}/${action}" class="subscription-action">
        ${csrfField(ctx)}<button type="submit" id="${action}-button">${labels[action]}</button>
      </form>`,
  );
  const payments = dataTable(scheduledPaymentsTable(m), view.payments);
  const charges = dataTable(subscriptionChargesTable(m), view.charges);
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
          ${detailRow(m.id, s.id)}
          ${detailRow(m.status, html`<span id="subscription-status">${s.status}</span>`)}
          ${detailRow(m.amount, money(s.amount, s.currency))}
          ${detailRow(m.period, s.period ?? s.cyclicalPeriod)}
          ${detailRow(m.nextPayment, s.nextPayment ? s.nextPayment.dueDate.toISOString().slice(0, 10) : null)}
          ${detailRow(m.created, s.createdOn.toISOString())} ${detailRow(m.token, s.transactionTokenId)}
          ${detailRow(m.descriptor, s.descriptor)} ${detailRow(m.metadata, metadataList(s.metadata))}
          ${
            s.testClockId
              ? detailRow(
                  m.testClock,
                  html`<a href="/subscriptions/test-clocks/${s.testClockId}" id="subscription-test-clock"
                    >${s.testClockId}</a
                  >`,
                )
              : ''
          }
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
