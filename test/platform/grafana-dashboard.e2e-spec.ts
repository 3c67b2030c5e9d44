// The sample Grafana dashboard (docs/grafana/kessai-dashboard.json, docs/operations.md "Metrics"):
// every metric its queries name is one that a real Kessai process registers (the gateway and the
// five worker services, scraped), so a renamed or removed metric fails here instead of leaving a
// panel silently empty.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const DASHBOARD_FILE = join(__dirname, '..', '..', 'docs', 'grafana', 'kessai-dashboard.json');
const WORKERS = [
  'charge-service',
  'subscription-service',
  'refund-cancel-service',
  'webhook-service',
  'ledger-service',
];

interface Target {
  expr?: string;
  datasource?: { type?: string; uid?: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type?: string; uid?: string };
  targets?: Target[];
  panels?: Panel[];
}
interface Dashboard {
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query: unknown }> };
}

const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as Dashboard;
const allPanels = (panels: Panel[]): Panel[] =>
  panels.flatMap((panel) => [panel, ...allPanels(panel.panels ?? [])]);
const panels = allPanels(dashboard.panels);
const expressions = panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr ?? ''));

/** Words of PromQL that are not series names. */
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/**
 * The metric names a PromQL expression selects: what is left once label matchers, ranges, label
 * lists (by, without, on…), strings and Grafana's variables are taken out, less functions and
 * aggregations (a name followed by a parenthesis) and keywords.
 */
function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/\$\{?\w+\}?/g, '');
  const names: string[] = [];
  for (const match of stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const after = stripped.slice((match.index ?? 0) + match[0].length);
    if (/^\s*\(/.test(after) || KEYWORDS.has(match[0].toLowerCase())) continue;
    names.push(match[0]);
  }
  return names;
}

/** The metric of a template variable's `label_values(<metric>, <label>)` query. */
function variableMetrics(query: unknown): string[] {
  const text = typeof query === 'string' ? query : ((query as { query?: string } | null)?.query ?? '');
  const match = /^label_values\(([^,]+),/.exec(text.trim());
  return match ? metricNames(match[1]) : [];
}

/** The series names a scrape can have: each `# TYPE`'s name, a histogram's or summary's parts. */
function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name);
    if (type === 'histogram') for (const part of ['_bucket', '_sum', '_count']) names.add(`${name}${part}`);
    if (type === 'summary') for (const part of ['_sum', '_count']) names.add(`${name}${part}`);
  }
  return names;
}

const suite = useSuite({ relaxedRateLimits: false, gateway: createGatewayApp, workers: WORKERS });
const registered = new Set<string>();

beforeAll(async () => {
  for (const url of [suite.url, ...suite.workers.map(({ healthUrl }) => healthUrl)]) {
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    for (const name of exposedNames(await response.text())) registered.add(name);
  }
}, 60_000);

describe('docs/grafana/kessai-dashboard.json', () => {
  it('queries only metrics that Kessai’s processes register', () => {
    const queried = new Set([
      ...expressions.flatMap(metricNames),
      ...dashboard.templating.list.flatMap((variable) => variableMetrics(variable.query)),
    ]);
    expect(queried.size).toBeGreaterThan(20);
    expect([...queried].filter((name) => !registered.has(name))).toEqual([]);
  });

  it('has a panel for each thing operations.md promises it shows', () => {
    const queried = new Set(expressions.flatMap(metricNames));
    for (const name of [
      'kessai_http_requests_total',
      'kessai_http_request_duration_seconds_bucket',
      'kessai_rate_limit_refusals_total',
      'kessai_queue_jobs',
      'kessai_jobs_failed_total',
      'kessai_job_duration_seconds_bucket',
      'kessai_outbox_oldest_unpublished_age_seconds',
      'kessai_charge_outcomes_total',
      'kessai_operation_outcomes_total',
      'kessai_scheduled_payment_tries_started_total',
      'kessai_webhook_tries_total',
      'kessai_webhook_try_duration_seconds_bucket',
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_p99_seconds',
    ])
      expect(queried).toContain(name);
  });

  it('reads every query from the Prometheus chosen in its datasource variable', () => {
    const variable = dashboard.templating.list.find((v) => v.name === 'datasource');
    expect(variable).toMatchObject({ type: 'datasource', query: 'prometheus' });
    const queryPanels = panels.filter((panel) => panel.type !== 'row');
    expect(new Set(panels.map((panel) => panel.id)).size).toBe(panels.length);
    for (const panel of queryPanels) {
      expect(panel.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(panel.targets?.length).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) expect(target.datasource?.uid).toBe('${datasource}');
    }
  });

  it('the name extraction sees through PromQL (the check can fail)', () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (le, route) (rate(kessai_http_request_duration_seconds_bucket{route=~"$route"}[$__rate_interval])))',
      ),
    ).toEqual(['kessai_http_request_duration_seconds_bucket']);
    expect(
      metricNames('sum(rate(a_total{s=~"5.."}[5m])) / sum without (x) (rate(b_total[5m])) > bool 0.3'),
    ).toEqual(['a_total', 'b_total']);
    expect(registered.has('kessai_no_such_metric_total')).toBe(false);
    expect(registered.has('kessai_http_requests_total')).toBe(true);
    expect(registered.has('kessai_jobs_completed_total')).toBe(true);
  });
});
