import * as assert from 'node:assert/strict';
import { blockedAddressReason, ipv6Bytes } from '../../../src/node/ingest/addressGuard';

const strict = { allowLoopback: false };
const loopbackAllowed = { allowLoopback: true };

describe('SSRF address guard', () => {
  it('refuses private, loopback, link-local, metadata, unspecified, multicast and reserved IPv4 addresses, naming why', () => {
    const cases: Array<[string, RegExp]> = [
      ['10.1.2.3', /private.*10\.0\.0\.0\/8/],
      ['172.16.0.1', /private.*172\.16\.0\.0\/12/],
      ['172.31.255.255', /private/],
      ['192.168.1.1', /private.*192\.168/],
      ['127.0.0.1', /loopback/],
      ['127.255.0.9', /loopback/],
      ['169.254.1.1', /link-local/],
      ['169.254.169.254', /metadata/],
      ['0.0.0.0', /unspecified/],
      ['224.0.0.251', /multicast/],
      ['255.255.255.255', /reserved or broadcast/],
      ['100.64.0.1', /carrier-grade/],
    ];
    for (const [address, reason] of cases) {
      assert.match(blockedAddressReason(address, strict) ?? 'allowed', reason, address);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '192.169.0.1', '11.0.0.1']) {
      assert.equal(blockedAddressReason(address, strict), undefined, address);
    }
  });

  it('refuses the IPv6 equivalents, and IPv4 addresses carried in IPv6 (mapped, NAT64, 6to4, compatible)', () => {
    const cases: Array<[string, RegExp]> = [
      ['::1', /loopback/],
      ['::', /unspecified/],
      ['fd00:ec2::254', /metadata/],
      ['fd12:3456::1', /unique local/],
      ['fc00::1', /unique local/],
      ['fe80::1%eth0', /link-local/],
      ['ff02::1', /multicast/],
      ['::ffff:127.0.0.1', /IPv4-mapped 127\.0\.0\.1, a loopback/],
      ['::ffff:7f00:1', /IPv4-mapped 127\.0\.0\.1/],
      ['::ffff:169.254.169.254', /IPv4-mapped 169\.254\.169\.254, a cloud metadata/],
      ['::ffff:10.0.0.1', /private/],
      ['64:ff9b::192.168.0.1', /NAT64 192\.168\.0\.1/],
      ['2002:a00:1::', /6to4 10\.0\.0\.1/],
      ['::10.0.0.1', /IPv4-compatible 10\.0\.0\.1/],
      ['[::1]', /loopback/],
    ];
    for (const [address, reason] of cases) {
      assert.match(blockedAddressReason(address, strict) ?? 'allowed', reason, address);
    }
    for (const address of ['2606:4700::1111', '2001:db8::1', '::ffff:8.8.8.8', '64:ff9b::808:808']) {
      assert.equal(blockedAddressReason(address, strict), undefined, address);
    }
  });

  it('the loopback flag lets loopback through (also mapped), and nothing else', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) {
      assert.equal(blockedAddressReason(address, loopbackAllowed), undefined, address);
    }
    for (const address of ['10.0.0.1', '169.254.169.254', 'fd00:ec2::254', '0.0.0.0', '::ffff:192.168.1.1', 'fe80::1']) {
      assert.notEqual(blockedAddressReason(address, loopbackAllowed), undefined, address);
    }
  });

  it('judges only IP addresses: a name is refused', () => {
    assert.equal(blockedAddressReason('localhost', loopbackAllowed), 'not an IP address');
  });

  it('expands IPv6 text to 16 bytes', () => {
    assert.deepEqual(ipv6Bytes('::1'), [...new Array<number>(15).fill(0), 1]);
    assert.deepEqual(ipv6Bytes('::ffff:1.2.3.4')?.slice(10), [0xff, 0xff, 1, 2, 3, 4]);
    assert.deepEqual(ipv6Bytes('fe80::1:2')?.slice(0, 2), [0xfe, 0x80]);
    assert.equal(ipv6Bytes('1.2.3.4'), undefined);
  });
});
