/**
 * The SSRF guard of `haiku add <url>` and MCP `add_document_from_url`: which IP addresses a fetch may connect to.
 * Checked on the address actually connected (after DNS, in the socket's `lookup`), so a name that resolves to a
 * private address, or a DNS answer that changes between a check and the connection (rebinding), cannot slip through.
 */
import * as dns from 'node:dns';
import * as net from 'node:net';
import { HaikuError } from '../../core/errors';

export interface AddressPolicy {
  /** Loopback (127.0.0.0/8, ::1) is allowed: a server on this machine the user means to read (`--allow-loopback`). */
  allowLoopback: boolean;
}

/** How a caller allows loopback, named in the refusal (`--allow-loopback` on the CLI, `--allow-loopback-urls` for MCP). */
export interface GuardWording {
  loopbackFlag: string;
}

const DEFAULT_WORDING: GuardWording = { loopbackFlag: '--allow-loopback' };

interface Range {
  /** Network address as bytes (4 for IPv4, 16 for IPv6). */
  bytes: number[];
  prefix: number;
  why: string;
  loopback?: boolean;
}

function v4(text: string, prefix: number, why: string, loopback = false): Range {
  return { bytes: text.split('.').map(Number), prefix, why, loopback };
}

function v6(text: string, prefix: number, why: string, loopback = false): Range {
  return { bytes: ipv6Bytes(text)!, prefix, why, loopback };
}

/** Most specific first: the first match names the reason. */
const BLOCKED_IPV4: readonly Range[] = [
  v4('169.254.169.254', 32, 'a cloud metadata address (instance credentials live there)'),
  v4('0.0.0.0', 8, 'the unspecified "this host" address (0.0.0.0/8)'),
  v4('10.0.0.0', 8, 'a private address (10.0.0.0/8)'),
  v4('100.64.0.0', 10, 'a shared carrier-grade NAT address (100.64.0.0/10)'),
  v4('127.0.0.0', 8, 'a loopback address (127.0.0.0/8): this machine', true),
  v4('169.254.0.0', 16, 'a link-local address (169.254.0.0/16)'),
  v4('172.16.0.0', 12, 'a private address (172.16.0.0/12)'),
  v4('192.0.0.0', 24, 'an IETF protocol address (192.0.0.0/24)'),
  v4('192.168.0.0', 16, 'a private address (192.168.0.0/16)'),
  v4('198.18.0.0', 15, 'a benchmarking address (198.18.0.0/15)'),
  v4('224.0.0.0', 4, 'a multicast address (224.0.0.0/4)'),
  v4('240.0.0.0', 4, 'a reserved or broadcast address (240.0.0.0/4)'),
];

const BLOCKED_IPV6: readonly Range[] = [
  v6('fd00:ec2::254', 128, 'a cloud metadata address (instance credentials live there)'),
  v6('::1', 128, 'the loopback address (::1): this machine', true),
  v6('::', 128, 'the unspecified address (::)'),
  v6('fc00::', 7, 'a private (unique local) address (fc00::/7)'),
  v6('fe80::', 10, 'a link-local address (fe80::/10)'),
  v6('fec0::', 10, 'a site-local address (fec0::/10)'),
  v6('ff00::', 8, 'a multicast address (ff00::/8)'),
];

/** IPv6 forms that carry an IPv4 address, checked as that address: mapped, NAT64, 6to4, the old compatible form. */
const EMBEDDED_IPV4: ReadonlyArray<{ prefix: Range; offset: number }> = [
  { prefix: v6('::ffff:0:0', 96, 'IPv4-mapped'), offset: 12 },
  { prefix: v6('64:ff9b::', 96, 'NAT64'), offset: 12 },
  { prefix: v6('2002::', 16, '6to4'), offset: 2 },
  { prefix: v6('::', 96, 'IPv4-compatible'), offset: 12 },
];

/** The 16 bytes of an IPv6 address (zone index dropped), or undefined when the text is not one. */
export function ipv6Bytes(text: string): number[] | undefined {
  const address = text.replace(/^\[|\]$/g, '').split('%')[0];
  if (net.isIPv6(address) === false) {
    return undefined;
  }
  let groups: string[];
  let tail: number[] = [];
  let body = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (dotted) {
    tail = dotted[1].split('.').map(Number);
    body = body.slice(0, -dotted[1].length);
    body = body.endsWith('::') ? body : body.replace(/:$/, '');
  }
  const groupsNeeded = tail.length > 0 ? 6 : 8;
  if (body.includes('::')) {
    const [head, rest] = body.split('::');
    const headGroups = head === '' ? [] : head.split(':');
    const restGroups = rest === '' ? [] : rest.split(':');
    groups = [...headGroups, ...new Array<string>(groupsNeeded - headGroups.length - restGroups.length).fill('0'), ...restGroups];
  } else {
    groups = body === '' ? [] : body.split(':');
  }
  const bytes: number[] = [];
  for (const group of groups) {
    const value = parseInt(group, 16);
    bytes.push(value >> 8, value & 0xff);
  }
  return [...bytes, ...tail];
}

function inRange(bytes: readonly number[], range: Range): boolean {
  if (bytes.length !== range.bytes.length) {
    return false;
  }
  let bits = range.prefix;
  for (let index = 0; bits > 0; index++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[index] & mask) !== (range.bytes[index] & mask)) {
      return false;
    }
  }
  return true;
}

/**
 * Why a fetch must not connect to `address` (an IP address as text), or undefined when it may. Anything that is not
 * an IP address is refused too: only resolved addresses are judged.
 */
export function blockedAddressReason(address: string, policy: AddressPolicy): string | undefined {
  const version = net.isIP(address.replace(/^\[|\]$/g, '').split('%')[0]);
  if (version === 4) {
    const bytes = address.split('.').map(Number);
    const range = BLOCKED_IPV4.find((candidate) => inRange(bytes, candidate));
    return range && !(range.loopback && policy.allowLoopback) ? range.why : undefined;
  }
  if (version === 6) {
    const bytes = ipv6Bytes(address)!;
    const range = BLOCKED_IPV6.find((candidate) => inRange(bytes, candidate));
    if (range) {
      return range.loopback && policy.allowLoopback ? undefined : range.why;
    }
    const embedding = EMBEDDED_IPV4.find((candidate) => inRange(bytes, candidate.prefix));
    if (embedding) {
      const embedded = bytes.slice(embedding.offset, embedding.offset + 4).join('.');
      const inner = blockedAddressReason(embedded, policy);
      return inner === undefined ? undefined : `${embedding.prefix.why} ${embedded}, ${inner}`;
    }
    return undefined;
  }
  return 'not an IP address';
}

/** The refusal of one address: which address, why, and the flag when loopback is what was refused. */
export function blockedAddressError(url: string, host: string, address: string, reason: string, wording: GuardWording = DEFAULT_WORDING): HaikuError {
  const named = host === address ? address : `${host} (${address})`;
  const loopback = /loopback/.test(reason) ? ` To read a server on this machine, pass ${wording.loopbackFlag}.` : ' Private, link-local, metadata and multicast addresses are never fetched.';
  return new HaikuError('invalid_settings', `${url}: refused to connect to ${named}: ${reason}.${loopback}`);
}

/** Throws the refusal when `address` is blocked. */
export function checkAddress(url: string, host: string, address: string, policy: AddressPolicy, wording?: GuardWording): void {
  const reason = blockedAddressReason(address, policy);
  if (reason !== undefined) {
    throw blockedAddressError(url, host, address, reason, wording);
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for `http.request`/`https.request`: resolves the name, refuses the connection when any answer is a
 * blocked address (naming it), and hands the socket only the answers it checked. Node connects to what this
 * returns, so the address checked is the address connected.
 */
export function guardedLookup(url: string, policy: AddressPolicy, wording?: GuardWording): net.LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, '');
        return;
      }
      for (const entry of addresses) {
        const reason = blockedAddressReason(entry.address, policy);
        if (reason !== undefined) {
          // The typed refusal reaches the request's 'error' event as it is.
          callback(blockedAddressError(url, hostname, entry.address, reason, wording) as NodeJS.ErrnoException, '');
          return;
        }
      }
      if (options.all) {
        callback(null, addresses);
      } else if (addresses.length === 0) {
        callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      } else {
        callback(null, addresses[0].address, addresses[0].family);
      }
    });
  }) as net.LookupFunction;
}
