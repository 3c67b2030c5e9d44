import type { CurrencySeries, DayOutcome, OwedBalance, PaymentOverview } from '@kessai/payments';
import { barChart, type Bar } from './charts';
import { html, type Html } from './html';
import { layout, type PageContext } from './layout';
import type { Messages } from './messages';
import { majorAmount, money } from './money';
import { dataTable, type TableSpec } from './parts';

/** The quick ranges the page links (the last N days, today included). */
const QUICK_RANGES = [7, 30, 90] as const;

export interface OverviewView {
  /** null when the range was refused (the form and the error only) */
  overview: PaymentOverview | null;
  /** the range as the URL gave it (shown back in the form) */
  query: { from?: string; to?: string };
  error?: string;
}

/** successful ÷ finished as a percentage with one decimal, rounded; a dash when nothing finished. */
export function successRate(successful: bigint, finished: bigint): string {
  if (finished === 0n) return '—';
  const perMille = (successful * 2000n + finished) / (2n * finished);
  return `${perMille / 10n}.${perMille % 10n} %`;
}

/** The calendar day `days` before `day` (both YYYY-MM-DD). */
function daysBefore(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
}

function rangeForm(ctx: PageContext, view: OverviewView): Html {
  const { m } = ctx;
  const from = view.overview?.from ?? view.query.from ?? '';
  const to = view.overview?.to ?? view.query.to ?? '';
  const today = view.overview?.today;
  const quick = today
    ? QUICK_RANGES.map(
        (days) =>
          html`<a href="/overview?from=${daysBefore(today, days - 1)}&amp;to=${today}" id="last-${days}-days"
            >${m.lastDays(days)}</a
          >`,
      )
    : [];
  return html`<form method="get" action="/overview" class="filters" aria-labelledby="range-title">
    <h2 id="range-title">${m.rangeTitle}</h2>
    <div class="fields">
      <div>
        <label for="from">${m.rangeFrom}</label><input id="from" name="from" type="date" value="${from}" />
      </div>
      <div><label for="to">${m.rangeTo}</label><input id="to" name="to" type="date" value="${to}" /></div>
    </div>
    <button type="submit" id="apply-range">${m.apply}</button>
    <p class="hint">
      ${m.rangeHint}${view.overview ? html`: <span id="time-zone">${view.overview.timeZone}</span>` : ''}
    </p>
    <nav class="pages" aria-label="${m.rangeTitle}">${quick}</nav>
  </form>`;
}

interface CurrencyDay {
  day: string;
  count: bigint;
  amount: bigint;
  refundCount: bigint;
  refunded: bigint;
}

/** Every currency's days, its charges and refunds side by side (a currency with either). */
function currencyDays(overview: PaymentOverview): { currency: string; days: CurrencyDay[] }[] {
  const currencies = [
    ...new Set([...overview.charges, ...overview.refunds].map((series) => series.currency)),
  ].sort();
  return currencies.map((currency) => {
    const charges = overview.charges.find((series) => series.currency === currency);
    const refunds = overview.refunds.find((series) => series.currency === currency);
    return {
      currency,
      days: overview.days.map((day, i) => ({
        day,
        count: charges?.days[i].count ?? 0n,
        amount: charges?.days[i].amount ?? 0n,
        refundCount: refunds?.days[i].count ?? 0n,
        refunded: refunds?.days[i].amount ?? 0n,
      })),
    };
  });
}

function totalsTable(m: Messages, overview: PaymentOverview): Html {
  const rows = currencyDays(overview).map(({ currency }) => {
    const charges = overview.charges.find((series) => series.currency === currency);
    const refunds = overview.refunds.find((series) => series.currency === currency);
    return { currency, charges, refunds };
  });
  return dataTable(
    {
      id: 'totals',
      caption: m.totals,
      empty: html``,
      columns: [
        { header: m.currency, cell: (row) => row.currency },
        { header: m.successfulCharges, cell: (row) => String(row.charges?.count ?? 0n) },
        { header: m.amount, cell: (row) => money(row.charges?.amount ?? 0n, row.currency) },
        { header: m.refundCount, cell: (row) => String(row.refunds?.count ?? 0n) },
        { header: m.refunded, cell: (row) => money(row.refunds?.amount ?? 0n, row.currency) },
      ],
      data: (row) => ({ currency: row.currency }),
    },
    rows,
  );
}

function dayTable(m: Messages, currency: string, days: CurrencyDay[]): Html {
  const spec: TableSpec<CurrencyDay> = {
    id: `days-${currency}`,
    caption: `${m.numbersPerDay} (${currency})`,
    empty: html``,
    columns: [
      { header: m.day, cell: (d) => d.day },
      { header: m.count, cell: (d) => String(d.count) },
      { header: m.amount, cell: (d) => money(d.amount, currency) },
      { header: m.refundCount, cell: (d) => String(d.refundCount) },
      { header: m.refunded, cell: (d) => money(d.refunded, currency) },
    ],
    data: (d) => ({ day: d.day }),
  };
  return dataTable(spec, days);
}

function rateTable(m: Messages, outcomes: DayOutcome[]): Html {
  return dataTable(
    {
      id: 'rate-days',
      caption: `${m.numbersPerDay} (${m.successRate})`,
      empty: html``,
      columns: [
        { header: m.day, cell: (d) => d.day },
        { header: m.successfulCharges, cell: (d) => String(d.successful) },
        { header: m.finished, cell: (d) => String(d.finished) },
        { header: m.rate, cell: (d) => successRate(d.successful, d.finished) },
      ],
      data: (d) => ({ day: d.day }),
    },
    outcomes,
  );
}

function amountChart(id: string, title: string, description: string, series: CurrencySeries): Html {
  return barChart({
    id,
    title,
    description,
    bars: series.days.map((d): Bar => ({
      label: d.day,
      value: Number(d.amount),
      text: money(d.amount, series.currency),
    })),
    format: (value) => majorAmount(BigInt(Math.round(value)), series.currency),
  });
}

function charts(m: Messages, overview: PaymentOverview): Html {
  const { from, to } = overview;
  const counts = overview.outcomes.map((d): Bar => ({
    label: d.day,
    value: Number(d.successful),
    text: String(d.successful),
  }));
  const rates = overview.outcomes.map((d): Bar => ({
    label: d.day,
    value: d.finished === 0n ? null : (Number(d.successful) / Number(d.finished)) * 100,
    text: successRate(d.successful, d.finished),
  }));
  return html`<section aria-labelledby="charges-title">
      <h2 id="charges-title">${m.successfulCharges}</h2>
      ${barChart({
        id: 'chart-count',
        title: m.successfulCharges,
        description: m.successfulChargesDesc(from, to),
        bars: counts,
        format: (value) => String(Math.round(value)),
      })}
      ${overview.charges.map(
        (series) =>
          html`<h3>${m.volume(series.currency)}</h3>
            ${amountChart(
              `chart-volume-${series.currency}`,
              m.volume(series.currency),
              m.volumeDesc(series.currency, from, to),
              series,
            )}`,
      )}
    </section>
    <section aria-labelledby="rate-title">
      <h2 id="rate-title">${m.successRate}</h2>
      <p>
        <span id="success-rate">${successRate(overview.successful, overview.finished)}</span>
        (${overview.successful} / ${overview.finished})
      </p>
      ${barChart({
        id: 'chart-rate',
        title: m.successRate,
        description: m.successRateDesc(from, to),
        bars: rates,
        max: 100,
        format: (value) => `${Math.round(value)} %`,
      })}
    </section>
    <section aria-labelledby="refunds-title">
      <h2 id="refunds-title">${m.refunds}</h2>
      ${overview.refunds.length === 0 ? html`<p id="no-refunds">${m.noRefunds}</p>` : ''}
      ${overview.refunds.map(
        (series) =>
          html`<h3>${m.refundsIn(series.currency)}</h3>
            ${amountChart(
              `chart-refunds-${series.currency}`,
              m.refundsIn(series.currency),
              m.refundsDesc(series.currency, from, to),
              series,
            )}`,
      )}
    </section>
    <details class="numbers">
      <summary>${m.numbersPerDay}</summary>
      ${currencyDays(overview).map(({ currency, days }) => dayTable(m, currency, days))}
      ${rateTable(m, overview.outcomes)}
    </details>`;
}

function balanceRows(balances: OwedBalance[], store?: string): Html[] {
  return balances.map(
    (b) =>
      html`<tr data-currency="${b.currency}" ${store ? html` data-store-id="${store}"` : ''}>
        <td>${b.currency}</td>
        <td class="pending">${money(b.pending, b.currency)}</td>
        <td class="available">${money(b.available, b.currency)}</td>
      </tr>`,
  );
}

function balanceSection(m: Messages, overview: PaymentOverview): Html {
  if (overview.balances.length === 0)
    return html`<section aria-labelledby="balance-title">
      <h2 id="balance-title">${m.balance}</h2>
      <p id="no-balance">${m.noBalance}</p>
    </section>`;
  const head = html`<thead>
    <tr>
      <th scope="col">${m.currency}</th>
      <th scope="col">${m.pending}</th>
      <th scope="col">${m.available}</th>
    </tr>
  </thead>`;
  return html`<section aria-labelledby="balance-title">
    <h2 id="balance-title">${m.balance}</h2>
    <p class="hint">${m.balanceHint}</p>
    <table id="balances">
      <caption>
        ${m.allStores}
      </caption>
      ${head}
      <tbody>
        ${balanceRows(overview.balances)}
      </tbody>
    </table>
    ${
      overview.stores.length > 1
        ? overview.stores.map(
            (store) =>
              html`<table class="store-balances" data-store-id="${store.storeId}">
                <caption>
                  ${m.store}: ${store.storeName}
                </caption>
                ${head}
                <tbody>
                  ${balanceRows(store.balances, store.storeId)}
                </tbody>
              </table>`,
          )
        : ''
    }
  </section>`;
}

export function overviewPage(ctx: PageContext, view: OverviewView): string {
  const { m } = ctx;
  const overview = view.overview;
  const empty = overview !== null && overview.finished === 0n && overview.refunds.length === 0;
  return layout(
    ctx,
    m.overview,
    html`<h1>${m.overview}</h1>
      ${view.error ? html`<p class="error" role="alert" id="range-error">${view.error}</p>` : ''}
      ${rangeForm(ctx, view)}
      ${
        overview === null
          ? ''
          : html`${
              empty
                ? html`<p id="overview-empty">${m.overviewEmpty}</p>`
                : html`${totalsTable(m, overview)}${charts(m, overview)}`
            }
            ${balanceSection(m, overview)}`
      }`,
  );
}
