import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** Addresses a webhook may never reach: private, link-local, CGNAT, multicast, reserved, unspecified. */
const privateRanges = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  privateRanges.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
] as const) {
  privateRanges.addSubnet(net, bits, 'ipv6');
}
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

export type AddressClass = 'public' | 'loopback' | 'private';

export function classifyAddress(address: string): AddressClass {
  let a = address.replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  if (mapped) a = mapped[1];
  const family = isIP(a) === 6 ? 'ipv6' : 'ipv4';
  if (loopback.check(a, family)) return 'loopback';
  if (privateRanges.check(a, family)) return 'private';
  return 'public';
}

export interface GuardPolicy {
  /** --allow-insecure-webhooks: http:// and loopback receivers, for local development. */
  allowInsecure: boolean;
}

/** Why an address of each refused class is refused, said after the address ("10.0.0.8 is …"). */
const WHY: Record<Exclude<AddressClass, 'public'>, string> = {
  private:
    'a private or reserved address, and webhooks are never sent into private networks (they could reach services not meant to be public)',
  loopback:
    'a loopback address, and webhooks go to loopback receivers only when the server runs with --allow-insecure-webhooks (for local development)',
};

/** Why an address is refused, or null when it may be called: "the host 10.0.0.8 is a private …". */
export function refusedAddress(address: string, policy: GuardPolicy): string | null {
  const why = refusal(address, policy);
  return why && `the host ${address} is ${why}`;
}

/** Why a host name that resolves to `address` is refused, or null: "the host db.internal resolves to 10.0.0.8, a private …". */
export function refusedResolution(host: string, address: string, policy: GuardPolicy): string | null {
  const why = refusal(address, policy);
  return why && `the host ${host} resolves to ${address}, ${why}`;
}

function refusal(address: string, policy: GuardPolicy): string | null {
  const c = classifyAddress(address);
  if (c === 'private') return WHY.private;
  if (c === 'loopback' && !policy.allowInsecure) return WHY.loopback;
  return null;
}

/**
 * The rule for a webhook's address before any connection: its form (`error`, said of the url:
 * "must use https://") or its host written in it (`refused`: "the host 10.0.0.8 is a private …").
 * A host name is checked again by what it resolves to, at registration (checkResolvedHost) and at
 * every connection (guardedLookup), since DNS can change. Registration says `Invalid url: …`;
 * a delivery, whose endpoint may predate a change of rule or of the server's policy, says
 * `Refused: …` (modules/webhooks/sender.ts), from this one statement of the rule.
 */
export function checkWebhookUrl(raw: string, policy: GuardPolicy): { url: URL } | { error: string } | { refused: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { error: 'must be an absolute https:// address' };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowInsecure)) {
    return { error: policy.allowInsecure ? 'must use https:// or http://' : 'must use https://' };
  }
  if (url.username || url.password) return { error: 'must not carry credentials' };
  const host = hostOf(url);
  if (isIP(host)) {
    const why = refusedAddress(host, policy);
    if (why) return { refused: why };
  } else if (/^localhost$|\.localhost$/i.test(host) && !policy.allowInsecure) {
    return { refused: `the host ${host} is ${WHY.loopback}` };
  }
  return { url };
}

/** A URL's host as DNS and the address ranges take it: no IPv6 brackets, and a fully qualified name's final dot ("localhost.") dropped. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

/** Resolves every address of a name at registration; a name that does not resolve yet is let through. */
export async function checkResolvedHost(url: URL, policy: GuardPolicy): Promise<string | null> {
  const host = hostOf(url);
  if (isIP(host)) return refusedAddress(host, policy);
  const addrs = await new Promise<LookupAddress[]>((resolve) => dnsLookup(host, { all: true }, (err, a) => resolve(err ? [] : a)));
  for (const a of addrs) {
    const why = refusedResolution(host, a.address, policy);
    if (why) return why;
  }
  return null;
}

/**
 * A dns.lookup replacement for http.request: the connection only goes to an address the policy
 * allows, so a name that re-resolves to 10.x or 127.x after registration is still refused.
 */
export function guardedLookup(policy: GuardPolicy) {
  return (hostname: string, options: LookupOptions | undefined, callback: (...args: unknown[]) => void) => {
    dnsLookup(hostname, { ...(options ?? {}), all: true }, (err, addrs) => {
      if (err) return callback(err);
      const list = addrs;
      for (const a of list) {
        const why = refusedResolution(hostname, a.address, policy);
        if (why) return callback(Object.assign(new Error(`Refused: ${why}`), { code: 'EWEBHOOKREFUSED' }));
      }
      if (options?.all) return callback(null, list);
      return callback(null, list[0].address, list[0].family);
    });
  };
}
