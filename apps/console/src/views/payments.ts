import { CHARGE_STATUSES, PAYMENT_TYPES } from '@kessai/domain';
import type { AggregateEvent, Capture, Charge, ChargeListItem, Refund } from '@kessai/db';
import { html, type Html } from './html';
import { csrfField, layout, type PageContext } from './layout';
import { majorAmount, money } from './money';

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

function select(
  id: string,
  label: string,
  options: readonly string[],
  value: string | undefined,
  any: string,
): Html {
  return html`<label for="${id}">${label}</label>
    <select id="${id}" name="${id}">
      <option value="">${any}</option>
      ${options.map((option) => html`<option value="${option}" ${option === value ? html` selected` : ''}>${option}</option>`)}
    </select>`;
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

export function paymentListPage(ctx: PageContext, view: PaymentListView): string {
  const { m } = ctx;
  const q = view.query;
  const filters = html`<form method="get" action="/payments" class="filters" aria-labelledby="filters-title">
    <h2 id="filters-title">${m.filters}</h2>
    <div class="fields">
      <div>${select('status', m.status, CHARGE_STATUSES, q.status, m.any)}</div>
      <div>${select('payment_type', m.paymentType, PAYMENT_TYPES, q.payment_type, m.any)}</div>
      <div>${input('from', m.from, 'date', q.from)}</div>
      <div>${input('to', m.to, 'date', q.to)}</div>
      <div>${input('amount_from', m.amountFrom, 'number', q.amount_from, html` min="0" step="1"`)}</div>
      <div>${input('amount_to', m.amountTo, 'number', q.amount_to, html` min="0" step="1"`)}</div>
      <div>${input('email', m.email, 'text', q.email)}</div>
      <div>
        ${input('last_four', m.cardLastFour, 'text', q.last_four, html` inputmode="numeric" pattern="[0-9]{4}" maxlength="4"`)}
      </div>
      <div>${input('metadata_key', m.metadataKey, 'text', q.metadata_key)}</div>
      <div>${input('metadata_value', m.metadataValue, 'text', q.metadata_value)}</div>
      <div>
        <label for="store">${m.store}</label>
        <select id="store" name="store">
          <option value="">${m.any}</option>
          ${view.stores.map((store) => html`<option value="${store.id}" ${store.id === q.store ? html` selected` : ''}>${store.name}</option>`)}
        </select>
      </div>
    </div>
    <button type="submit" id="apply-filters">${m.apply}</button> <a href="/payments">${m.clear}</a>
  </form>`;
  const exportQuery = new URLSearchParams(
    Object.entries(q).filter(([key]) => key !== 'cursor' && key !== 'direction'),
  ).toString();
  const exportLink = html`<p class="export">
    <a id="export-csv" href="/payments/export.csv${exportQuery ? `?${exportQuery}` : ''}" download
      >${m.exportCsv}</a
    >
  </p>`;
  const table =
    view.rows.length === 0
      ? html`<p id="no-payments">${m.noPayments}</p>`
      : html`<table id="payments">
          <caption class="visually-hidden">
            ${m.payments}
          </caption>
          <thead>
            <tr>
              <th scope="col">${m.created}</th>
              <th scope="col">${m.amount}</th>
              <th scope="col">${m.status}</th>
              <th scope="col">${m.store}</th>
              <th scope="col">${m.id}</th>
            </tr>
          </thead>
          <tbody>
            ${view.rows.map(
              (charge) =>
                html`<tr data-charge-id="${charge.id}">
                  <td>${charge.createdOn.toISOString()}</td>
                  <td>${money(charge.requestedAmount, charge.requestedCurrency)}</td>
                  <td>${charge.status}</td>
                  <td>${charge.store.name}</td>
                  <td><a href="/payments/${charge.id}">${charge.id}</a></td>
                </tr>`,
            )}
          </tbody>
        </table>`;
  const pages = html`<nav aria-label="${m.pagination}" class="pages">
    ${view.previousQuery !== null ? html`<a id="previous-page" rel="prev" href="/payments?${view.previousQuery}">${m.previous}</a>` : ''}
    ${view.nextQuery !== null ? html`<a id="next-page" rel="next" href="/payments?${view.nextQuery}">${m.next}</a>` : ''}
  </nav>`;
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

function row(label: string, value: Html | string | null): Html {
  return html`<tr>
    <th scope="row">${label}</th>
    <td>${value ?? '—'}</td>
  </tr>`;
}

export function paymentPage(ctx: PageContext, view: PaymentView): string {
  const { m } = ctx;
  const c = view.charge;
  const currency = c.chargedCurrency ?? c.requestedCurrency;
  const refundable =
    c.status === 'successful' && c.chargedAmount !== null ? c.chargedAmount - c.refundReservedAmount : 0n;
  const metadata = Object.entries((c.metadata ?? {}) as Record<string, unknown>);
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
  const refunds =
    view.refunds.length === 0
      ? html`<p>${m.noRefunds}</p>`
      : html`<table id="refunds">
          <caption class="visually-hidden">
            ${m.refunds}
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
            ${view.refunds.map(
              (r) =>
                html`<tr data-refund-id="${r.id}">
                  <td>${r.createdOn.toISOString()}</td>
                  <td>${money(r.amount, r.currency)}</td>
                  <td>${r.status}</td>
                  <td>${r.id}</td>
                </tr>`,
            )}
          </tbody>
        </table>`;
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
          ${row(m.id, c.id)} ${row(m.status, html`<span id="charge-status">${c.status}</span>`)}
          ${row(m.amount, money(c.requestedAmount, c.requestedCurrency))}
          ${row(m.refundable, html`<span id="refundable">${money(refundable, currency)}</span>`)}
          ${row(
            m.captured,
            view.capture
              ? html`<span id="captured" data-capture-status="${view.capture.status}"
                  >${money(view.capture.amount, view.capture.currency)} (${view.capture.status})</span
                >`
              : null,
          )}
          ${row(m.paymentType, view.paymentType)} ${row(m.email, view.email)}
          ${row(m.created, c.createdOn.toISOString())} ${row(m.token, c.transactionTokenId)}
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
      ${captureForm}${cancelForm}${refundForm}
      <h2>${m.refunds}</h2>
      ${refunds}
      <h2>${m.events}</h2>
      ${events}
      <p><a href="/payments">${m.backToPayments}</a></p>`,
  );
}
