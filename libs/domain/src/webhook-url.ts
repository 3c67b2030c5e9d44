import { BlockList, isIP } from 'node:net';

/**
 * Where a live-mode webhook may not point (docs/webhooks.md, "URL rules"): addresses that reach
 * Kessai's own network rather than the merchant's server — loopback, private, link-local (with the
 * cloud metadata endpoint 169.254.169.254), CGNAT, multicast, reserved, unspecified, and the IPv6
 * equivalents. An IPv4 address written as IPv6 (::ffff:a.b.c.d, 64:ff9b::a.b.c.d) is judged as the
 * IPv4 address it carries.
 */
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT (also Alibaba Cloud's metadata 100.100.100.200)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata 169.254.169.254
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
FORBIDDEN.addAddress('168.63.129.16', 'ipv4'); // Azure's platform endpoint (metadata, DNS)
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (AWS's metadata fd00:ec2::254)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const)
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');

/** The IPv4 address an IPv6 one carries (IPv4-mapped ::ffff:0:0/96, NAT64 64:ff9b::/96), if any. */
function embeddedIpv4(address: string): string | null {
  const match = /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(
    address,
  );
  if (!match) return null;
  if (match[1]) return match[1];
  const high = parseInt(match[2] ?? '0', 16);
  const low = parseInt(match[3] ?? '0', 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** True when an IP address (v4 or v6 text) is one a live-mode webhook may not reach. */
export function isForbiddenWebhookAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return FORBIDDEN.check(bare, 'ipv4');
  if (family !== 6) return true;
  const v4 = embeddedIpv4(bare.toLowerCase());
  if (v4 !== null) return FORBIDDEN.check(v4, 'ipv4');
  return FORBIDDEN.check(bare, 'ipv6');
}

export type WebhookUrlRefusal = 'INVALID_FORMAT_URL' | 'HTTPS_REQUIRED' | 'FORBIDDEN_ADDRESS';

/**
 * A webhook URL checked without the network: an absolute http(s) URL without credentials, https in
 * live mode, and in live mode no forbidden address written as the host ('localhost' included). A
 * host name passing this still has its addresses checked (the gateway resolves it). Returns the
 * refusal's reason, or the parsed URL and whether its host is an IP address.
 */
export function checkWebhookUrl(
  raw: string,
  mode: 'test' | 'live',
): { refusal: WebhookUrlRefusal } | { url: URL; host: string; hostIsIp: boolean } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { refusal: 'INVALID_FORMAT_URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { refusal: 'INVALID_FORMAT_URL' };
  if (url.username !== '' || url.password !== '' || url.hostname === '')
    return { refusal: 'INVALID_FORMAT_URL' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const hostIsIp = isIP(host) !== 0;
  if (mode === 'live') {
    if (url.protocol !== 'https:') return { refusal: 'HTTPS_REQUIRED' };
    if (hostIsIp ? isForbiddenWebhookAddress(host) : isLocalName(host))
      return { refusal: 'FORBIDDEN_ADDRESS' };
  }
  return { url, host, hostIsIp };
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
