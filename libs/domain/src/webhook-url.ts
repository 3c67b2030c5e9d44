import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';

/**
 * Where a webhook may point (docs/webhooks.md, "URL rules"; decision 0024): the same rule for every
 * webhook, test or live, at creation and on every try against the address actually connected to.
 *
 * Only global unicast addresses are public: for IPv4 what ipaddr.js calls `unicast` (not loopback,
 * private, link-local, carrier-grade NAT, multicast, broadcast, reserved, documentation,
 * benchmarking, unspecified), less Azure's platform endpoint 168.63.129.16; for IPv6 `unicast`
 * inside 2000::/3 (the global unicast block; not documentation, ORCHID, benchmarking, …).
 *
 * IPv6 forms carrying an IPv4 address: an IPv4-mapped address (`::ffff:a.b.c.d`, what a resolver
 * asked for IPv6 may answer) and the well-known NAT64 prefix (`64:ff9b::/96`, what DNS64 answers for
 * an IPv4-only host) are judged as the IPv4 address they carry. Every other one — IPv4-compatible
 * `::a.b.c.d`, 6to4 `2002::/16`, Teredo `2001::/32`, the local-use NAT64 prefix `64:ff9b:1::/48`
 * (where the address sits depends on the operator's translator), SIIT `::ffff:0:a.b.c.d` — is
 * refused outright: they are deprecated or tunnelling forms no merchant's receiver needs, and judging
 * them would mean trusting a translator or relay we do not know.
 */
const AZURE_PLATFORM = ipaddr.IPv4.parse('168.63.129.16');
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parse('2000::');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parse('64:ff9b::');
const IPV4_COMPATIBLE = ipaddr.IPv6.parse('::');
/** ipaddr.js's names of the refused IPv6 forms carrying an IPv4 address (rfc6052 past the /96: 64:ff9b:1::/48) */
const EMBEDDING_IPV4 = new Set(['rfc6052', '6to4', 'teredo', 'rfc6145']);

/**
 * What kind of address `address` is: `public` (a webhook may reach it), or why not — ipaddr.js's
 * range name (`loopback`, `private`, `linkLocal`, `uniqueLocal`, `carrierGradeNat`, …),
 * `embeddedIpv4` for the refused IPv6 forms carrying an IPv4 address, `notGlobal` for IPv6 outside
 * 2000::/3, `platform` for a cloud platform endpoint, `invalid` for anything that is not exactly an
 * IP address as Node writes one (names, numeric shorthands: a URL is normalised before it gets here).
 */
export function addressClassOf(address: string): string {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(bare);
  if (family === 0) return 'invalid';
  if (family === 4) return ipv4ClassOf(ipaddr.IPv4.parse(bare));
  const canonical = canonicalIpv6(bare);
  if (canonical === null) return 'invalid';
  const parsed = ipaddr.IPv6.parse(canonical);
  const range = parsed.range();
  if (range === 'ipv4Mapped') return ipv4ClassOf(parsed.toIPv4Address());
  if (parsed.match(NAT64_WELL_KNOWN, 96)) return ipv4ClassOf(new ipaddr.IPv4(parsed.toByteArray().slice(12)));
  if (range === 'unspecified' || range === 'loopback') return range;
  if (EMBEDDING_IPV4.has(range) || parsed.match(IPV4_COMPATIBLE, 96)) return 'embeddedIpv4';
  if (range !== 'unicast') return range;
  return parsed.match(GLOBAL_UNICAST_V6, 3) ? 'public' : 'notGlobal';
}

/**
 * An IPv6 address as the WHATWG URL parser writes it (hex groups only, zero runs compressed), or
 * null (a zone id, say). ipaddr.js 2.5.0 reads a dotted tail after `::` as IPv4-mapped (`::127.0.0.1`
 * becomes `::ffff:7f00:1`), which would judge an IPv4-compatible address as the IPv4 one it carries;
 * written without the dotted tail it is read as it is.
 */
function canonicalIpv6(address: string): string | null {
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
}

function ipv4ClassOf(address: ipaddr.IPv4): string {
  const range = address.range();
  if (range !== 'unicast') return range;
  return address.match(AZURE_PLATFORM, 32) ? 'platform' : 'public';
}

/** True for a global unicast address, the only kind a webhook reaches without the operator's leave. */
export function isPublicAddress(address: string): boolean {
  return addressClassOf(address) === 'public';
}

/**
 * The operator's exceptions to the address rule (libs/config: WEBHOOK_ALLOW_PRIVATE_TARGETS for any
 * address, development only; WEBHOOK_ALLOWED_PRIVATE_TARGETS for exact address:port targets).
 */
export interface WebhookTargetPolicy {
  allowPrivate: boolean;
  /** `address:port` keys (IPv6 as `[address]:port`), addresses in canonical form */
  allowedTargets: ReadonlySet<string>;
}

export const PUBLIC_TARGETS_ONLY: WebhookTargetPolicy = { allowPrivate: false, allowedTargets: new Set() };

/** The policy of the settings: the allow-list's entries canonicalised as connected addresses will be. */
export function webhookTargetPolicy(
  allowPrivate: boolean,
  allowedTargets: readonly string[],
): WebhookTargetPolicy {
  const keys = new Set<string>();
  for (const entry of allowedTargets) {
    const target = parseTarget(entry);
    if (target === null) throw new Error(`not an address:port target: ${entry}`);
    keys.add(targetKey(target.address, target.port));
  }
  return { allowPrivate, allowedTargets: keys };
}

/** `a.b.c.d:port` or `[v6]:port`, or null. */
export function parseTarget(entry: string): { address: string; port: number } | null {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(entry.trim());
  if (!match) return null;
  const address = match[1] ?? match[2] ?? '';
  const port = Number(match[3]);
  const family = isIP(address);
  if (family === 0 || (family === 6 && match[1] === undefined) || port < 1 || port > 65_535) return null;
  return { address, port };
}

function targetKey(address: string, port: number): string {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  return isIP(bare) === 6 ? `[${canonicalIpv6(bare) ?? bare}]:${port}` : `${bare}:${port}`;
}

/** True when a webhook may connect to `address` on `port` under `policy`. */
export function isAllowedWebhookTarget(address: string, port: number, policy: WebhookTargetPolicy): boolean {
  const kind = addressClassOf(address);
  if (kind === 'public') return true;
  if (kind === 'invalid') return false;
  return policy.allowPrivate || policy.allowedTargets.has(targetKey(address, port));
}

export type WebhookUrlRefusal = 'INVALID_FORMAT_URL' | 'HTTPS_REQUIRED' | 'FORBIDDEN_ADDRESS';

/** A webhook URL's target as the WHATWG parser normalised it. */
export interface WebhookUrlTarget {
  url: URL;
  /** the host without IPv6 brackets: `http://2130706433/`, `http://0177.0.0.1/` and `http://127.1/` all give 127.0.0.1 */
  host: string;
  hostIsIp: boolean;
  /** the URL's port, or its scheme's */
  port: number;
}

/**
 * A webhook URL checked without the network: an absolute http(s) URL without credentials, https in
 * live mode, and — in every mode — no IP host the policy refuses and, unless any address is allowed,
 * no name that is this machine or its network whatever DNS says ('localhost', '*.local', …). The
 * host is judged after the WHATWG parser's normalisation, so numeric forms are the addresses they
 * are. A host name passing this still has its addresses checked (the gateway resolves it, and every
 * try checks the address it connects to).
 */
export function checkWebhookUrl(
  raw: string,
  mode: 'test' | 'live',
  policy: WebhookTargetPolicy = PUBLIC_TARGETS_ONLY,
): { refusal: WebhookUrlRefusal } | WebhookUrlTarget {
  const target = webhookUrlTarget(raw);
  if (target === null) return { refusal: 'INVALID_FORMAT_URL' };
  if (mode === 'live' && target.url.protocol !== 'https:') return { refusal: 'HTTPS_REQUIRED' };
  if (
    target.hostIsIp
      ? !isAllowedWebhookTarget(target.host, target.port, policy)
      : !policy.allowPrivate && isLocalName(target.host)
  )
    return { refusal: 'FORBIDDEN_ADDRESS' };
  return target;
}

/** The parsed target of an absolute http(s) URL without credentials, or null. */
export function webhookUrlTarget(raw: string): WebhookUrlTarget | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username !== '' || url.password !== '' || url.hostname === '') return null;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return { url, host, hostIsIp: isIP(host) !== 0, port };
}

/** Names that are this machine or its local network whatever DNS says. */
function isLocalName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    name.endsWith('.local') ||
    name.endsWith('.internal') ||
    !name.includes('.')
  );
}
