import { CHARGE_STATUSES, PAYMENT_TYPES } from '@kessai/domain';
import type { AggregateEvent, Capture, Charge, ChargeListItem, Refund } from '@kessai/db';
import { html, type Html } from './html';
import { csrfField, layout, type PageContext } from './layout';
import type { Messages } from './messages';
import { majorAmount, money } from './money';
import {
  dataTable,
  detailRow,
  filterForm,
  metadataList,
  pageLinks,
  plainOptions,
  selectField,
  type Column,
  type TableSpec,
} from './parts';

export interface PaymentListView {
  rows: ChargeListItem[];
  /** the merchant's stores, for the store filter */
  stores: { id: string; name: string }[];
  /** the filters as the URL gave them (strings, shown back in the form) */
  query: Record<string, string>;
  /** the query of the next and previous pages, when there are such pages */
  nextQuery: string | null;
  previousQuery: string | null;
  error?: string;
}

function input(
  id: string,
  label: string,
  type: string,
  value: string | undefined,
  extra: Html | string = '',
): Html {
  return html`<label for="${id}">${label}</label
    ><input id="${id}" name="${id}" type="${type}" value="${value ?? ''}" ${extra} />`;
}

/**
 * The columns of a list of charges: created, amount, status, any `extra` ones (the store, where the
 * rows carry it), and the id linking to the payment's page.
 */
export function chargeColumns<T extends Charge>(m: Messages, ...extra: Column<T>[]): Column<T>[] {
  return [
    { header: m.created, cell: (charge) => charge.createdOn.toISOString() },
    { header: m.amount, cell: (charge) => money(charge.requestedAmount, charge.requestedCurrency) },
    { header: m.status, cell: (charge) => charge.status },
    ...extra,
    { header: m.id, cell: (charge) => html`<a href="/payments/${charge.id}">${charge.id}</a>` },
  ];
}

function paymentsTable(m: Messages): TableSpec<ChargeListItem> {
  return {
    id: 'payments',
    caption: m.payments,
    empty: html`<p id="no-payments">${m.noPayments}</p>`,
    columns: chargeColumns<ChargeListItem>(m, { header: m.store, cell: (charge) => charge.store.name }),
    data: (charge) => ({ 'charge-id': charge.id }),
  };
}

function refundsTable(m: Messages): TableSpec<Refund> {
  return {
    id: 'refunds',
    caption: m.refunds,
    empty: html`<p>${m.noRefunds}</p>`,
    columns: [
      { header: m.created, cell: (r) => r.createdOn.toISOString() },
      { header: m.amount, cell: (r) => money(r.amount, r.currency) },
      { header: m.status, cell: (r) => r.status },
      { header: m.id, cell: (r) => r.id },
    ],
    data: (r) => ({ 'refund-id': r.id }),
  };
}

export function paymentListPage(ctx: PageContext, view: PaymentListView): string {
  const { m } = ctx;
  const q = view.query;
  const filters = filterForm(m, '/payments', [
    selectField('status', m.status, plainOptions(CHARGE_STATUSES), q.status, m.any),
    selectField('payment_type', m.paymentType, plainOptions(PAYMENT_TYPES), q.payment_type, m.any),
    input('from', m.from, 'date', q.from),
    input('to', m.to, 'date', q.to),
    input('amount_from', m.amountFrom, 'number', q.amount_from, html` min="0" step="1"`),
    input('amount_to', m.amountTo, 'number', q.amount_to, html` min="0" step="1"`),
    input('email', m.email, 'text', q.email),
    input(
      'last_four',
      m.cardLastFour,
      'text',
      q.last_four,
      html` inputmode="numeric" pattern="[0-9]{4}" maxlength="4"`,
    ),
    input('metadata_key', m.metadataKey, 'text', q.metadata_key),
    input('metadata_value', m.metadataValue, 'text', q.metadata_value),
    selectField(
      'store',
      m.store,
      view.stores.map((store) => ({ value: store.id, text: store.name })),
      q.store,
      m.any,
    ),
  ]);
  const exportQuery = new URLSearchParams(
    Object.entries(q).filter(([key]) => key !== 'cursor' && key !== 'direction'),
  ).toString();
  const exportLink = html`<p class="export">
    <a id="export-csv" href="/payments/export.csv${exportQuery ? `?${exportQuery}` : ''}" download
      >${m.exportCsv}</a
    >
  </p>`;
  const table = dataTable(paymentsTable(m), view.rows);
  const pages = pageLinks(m, '/payments', view.previousQuery, view.nextQuery);
  return layout(
    ctx,
    m.payments,
    html`<h1>${m.payments}</h1>
      ${view.error ? html`<p class="error" role="alert" id="filter-error">${view.error}</p>` : ''}${filters}${exportLink}${table}${pages}`,
  );
}

export interface PaymentView {
  charge: Charge;
  paymentType: string;
  email: string | null;
  refunds: Refund[];
  events: AggregateEvent[];
  canRefund: boolean;
  /** a fresh id for the refund form: resubmitting the same form refunds once */
  refundId: string;
  /** the charge's capture, when one was asked for */
  capture: Capture | null;
  canCapture: boolean;
  canCancel: boolean;
  /** a fresh id for the cancel form: resubmitting it cancels once */
  cancelId: string;
  notice?: string;
  error?: string;
}

export function paymentPage(ctx: PageContext, view: PaymentView): string {
  const { m } = ctx;
  const c = view.charge;
  const currency = c.chargedCurrency ?? c.requestedCurrency;
  const refundable =
    c.status === 'successful' && c.chargedAmount !== null ? c.chargedAmount - c.refundReservedAmount : 0n;
  const refundForm =
    view.canRefund && refundable > 0n
      ? html`<form
          method="post"
          action="/payments/${c.id}/refunds"
          class="refund"
          aria-labelledby="refund-title"
        >
          <h2 id="refund-title">${m.refund}</h2>
          ${csrfField(ctx)}<input type="hidden" name="refund_id" value="${view.refundId}" />
          <label for="amount">${m.refundAmount} (${currency})</label>
          <input
            id="amount"
            name="amount"
            type="text"
            inputmode="decimal"
            required
            value="${majorAmount(refundable, currency)}"
          />
          <label for="reason">${m.refundReason}</label>
          <select id="reason" name="reason">
            <option value="">—</option>
            ${(['duplicate', 'fraud', 'customer_request', 'chargeback'] as const).map((reason) => html`<option value="${reason}">${m.reasons[reason]}</option>`)}
          </select>
          <label for="message">${m.refundMessage}</label>
          <input id="message" name="message" type="text" maxlength="255" />
          <button type="submit" id="refund-button">${m.refund}</button>
        </form>`
      : '';
  const captureForm = view.canCapture
    ? html`<form
        method="post"
        action="/payments/${c.id}/capture"
        class="capture"
        aria-labelledby="capture-title"
      >
        <h2 id="capture-title">${m.capture}</h2>
        ${csrfField(ctx)}
        <label for="capture-amount">${m.captureAmount} (${c.requestedCurrency})</label>
        <input
          id="capture-amount"
          name="amount"
          type="text"
          inputmode="decimal"
          required
          value="${majorAmount(c.requestedAmount, c.requestedCurrency)}"
        />
        <button type="submit" id="capture-button">${m.capture}</button>
      </form>`
    : '';
  const cancelForm = view.canCancel
    ? html`<form
        method="post"
        action="/payments/${c.id}/cancel"
        class="cancel"
        aria-labelledby="cancel-title"
      >
        <h2 id="cancel-title">${m.cancel}</h2>
        ${csrfField(ctx)}<input type="hidden" name="cancel_id" value="${view.cancelId}" />
        <p>${m.cancelHint}</p>
        <button type="submit" id="cancel-button">${m.cancel}</button>
      </form>`
    : '';
  const refunds = dataTable(refundsTable(m), view.refunds);
  const events =
    view.events.length === 0
      ? html`<p>${m.noEvents}</p>`
      : html`<ol id="events">
          ${view.events.map(
            (e) =>
              html`<li data-event-type="${e.eventType}">
                <time datetime="${e.createdOn.toISOString()}">${e.createdOn.toISOString()}</time>
                <span class="event">${e.eventType}</span>
                (${e.aggregateType})${e.deliveries.map((d) => html` <span class="delivery" data-delivery-status="${d.status}">webhook ${d.status}, ${d.attempts}×</span>`)}
              </li>`,
          )}
        </ol>`;
  return layout(
    ctx,
    `${m.payment} ${c.id}`,
    html`<h1>${m.payment}</h1>
      ${view.notice ? html`<p class="notice" role="status" id="notice">${view.notice}</p>` : ''}
      ${view.error ? html`<p class="error" role="alert" id="action-error">${view.error}</p>` : ''}
      <table id="charge">
        <caption>
          ${m.charge}
        </caption>
        <tbody>
          ${detailRow(m.id, c.id)} ${detailRow(m.status, html`<span id="charge-status">${c.status}</span>`)}
          ${detailRow(m.amount, money(c.requestedAmount, c.requestedCurrency))}
          ${detailRow(m.refundable, html`<span id="refundable">${money(refundable, currency)}</span>`)}
          ${detailRow(
            m.captured,
            view.capture
              ? html`<span id="captured" data-capture-status="${view.capture.status}"
                  >${money(view.capture.amount, view.capture.currency)} (${view.capture.status})</span
                >`
              : null,
          )}
          ${detailRow(m.paymentType, view.paymentType)} ${detailRow(m.email, view.email)}
          ${detailRow(m.created, c.createdOn.toISOString())} ${detailRow(m.token, c.transactionTokenId)}
          ${detailRow(m.metadata, metadataList(c.metadata))}
        </tbody>
      </table>
      ${captureForm}${cancelForm}${refundForm}
      <h2>${m.refunds}</h2>
      ${refunds}
      <h2>${m.events}</h2>
      ${events}
      <p><a href="/payments">${m.backToPayments}</a></p>`,
  );
}
