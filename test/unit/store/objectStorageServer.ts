import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ObjectStorageSettings } from '../../../src/node/store/objectStorage';
import { temporaryFolder } from '../../support/indexFixtures';

// s3rver ships no types; only these calls are used.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => { run(): Promise<AddressInfo>; close(): Promise<void> };

/** s3rver's fixed credentials (it checks signatures against these). */
export const S3RVER_ACCESS_KEY_ID = 'S3RVER';
export const S3RVER_SECRET_ACCESS_KEY = 'S3RVER';

/** A local S3 API on 127.0.0.1 (random port, temporary folder) with one bucket, plus a counting proxy in front of it. */
export interface LocalObjectStorage {
  /** The s3rver endpoint itself. */
  endpoint: string;
  /** A proxy in front of s3rver: counts requests and bytes, and answers 503 SlowDown while `throttle` is set. */
  proxyEndpoint: string;
  bucket: string;
  /** Where s3rver keeps the objects (one folder per bucket). */
  directory: string;
  proxy: { requests: number; bytesDown: number; throttle: boolean; throttled: number };
  /** `AWS_*` variables for a child process talking to `endpoint` (or the proxy). */
  environment(options?: { viaProxy?: boolean }): Record<string, string>;
  /** Settings for a store in this process talking to `endpoint` (or the proxy), with s3rver's credentials. */
  settings(options?: { viaProxy?: boolean }): ObjectStorageSettings;
  close(): Promise<void>;
}

export async function startObjectStorage(bucket = 'team'): Promise<LocalObjectStorage> {
  const folder = temporaryFolder('haiku-s3rver-');
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: folder.path, configureBuckets: [{ name: bucket }] });
  const address = await server.run();
  const endpoint = `http://127.0.0.1:${address.port}`;
  const counters = { requests: 0, bytesDown: 0, throttle: false, throttled: 0 };
  const proxyServer = http.createServer((request, response) => {
    counters.requests++;
    if (counters.throttle) {
      counters.throttled++;
      response.writeHead(503, { 'content-type': 'application/xml' });
      response.end('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>');
      request.resume();
      return;
    }
    const upstream = http.request({ host: '127.0.0.1', port: address.port, method: request.method, path: request.url, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.on('data', (chunk: Buffer) => (counters.bytesDown += chunk.length));
      answer.pipe(response);
    });
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxyServer.listen(0, '127.0.0.1', resolve));
  const proxyEndpoint = `http://127.0.0.1:${(proxyServer.address() as AddressInfo).port}`;
  return {
    endpoint,
    proxyEndpoint,
    bucket,
    directory: folder.path,
    proxy: counters,
    environment: (options = {}) => ({
      AWS_ENDPOINT: options.viaProxy ? proxyEndpoint : endpoint,
      AWS_ACCESS_KEY_ID: S3RVER_ACCESS_KEY_ID,
      AWS_SECRET_ACCESS_KEY: S3RVER_SECRET_ACCESS_KEY,
      AWS_REGION: 'us-east-1',
      AWS_ALLOW_HTTP: 'true',
      AWS_VIRTUAL_HOSTED_STYLE_REQUEST: 'false',
    }),
    settings: (options = {}) => ({ endpoint: options.viaProxy ? proxyEndpoint : endpoint, accessKeyId: S3RVER_ACCESS_KEY_ID, secretAccessKey: S3RVER_SECRET_ACCESS_KEY }),
    async close() {
      proxyServer.closeAllConnections();
      await new Promise<void>((resolve) => proxyServer.close(() => resolve()));
      await server.close();
      folder.cleanup();
    },
  };
}
