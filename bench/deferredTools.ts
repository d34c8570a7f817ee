/**
 * Tokens of the first model request in routed mode, eager (both tool sets attached) vs deferred (one line per
 * capability plus `load_capability`), on a real question over the Vite guide. Counted with gpt-tokenizer over the
 * JSON request body the scripted OpenAI-compatible server receives. Run: `npx tsx bench/deferredTools.ts`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { encode } from 'gpt-tokenizer';
import { runAgent } from '../src/core/agent/runAgent';
import { createOpenAiCompatibleModel } from '../src/node/agent/openAiCompatibleModel';
import { createCodeSandbox } from '../src/node/sandbox/codeSandbox';
import { indexPaths } from '../src/node/index/indexer';
import { openStore } from '../src/node/store/lanceStore';
import { startScriptedChatServer, systemPrompt, type RecordedRequest } from '../test/support/scriptedChatServer';

const QUESTION = 'Why does Vite pre-bundle dependencies, and where is the cache stored?';

function tokens(text: string): number {
  return encode(text).length;
}

function describe(label: string, request: RecordedRequest): { body: number } {
  const body = tokens(JSON.stringify(request.body));
  const system = tokens(systemPrompt(request));
  const tools = tokens(JSON.stringify(request.body.tools ?? []));
  console.log(`${label.padEnd(10)} body ${String(body).padStart(5)} tokens (system ${system}, tools ${tools}; ${(request.body.tools ?? []).length} tool(s))`);
  return { body };
}

async function main(): Promise<void> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-bench-deferred-'));
  const guide = path.resolve(__dirname, '../../shared/corpus/vite-docs/docs/guide');
  const store = await openStore({ uri: path.join(folder, 'index') });
  const server = await startScriptedChatServer();
  try {
    await indexPaths({ roots: [guide], store, baseFolder: guide });
    const { model } = createOpenAiCompatibleModel({ baseUrl: server.baseUrl, name: 'bench' });
    for (const deferLoading of [false, true]) {
      server.push({ text: 'ok' });
      await runAgent({ model, knowledgeBase: store, question: QUESTION, mode: 'auto', deferLoading, createSandbox: (host) => createCodeSandbox({ host }), maxRetries: 0 });
    }
    const eager = describe('eager', server.requests[0]);
    const deferred = describe('deferred', server.requests[1]);
    console.log(`deferred / eager = ${(deferred.body / eager.body).toFixed(2)} (${eager.body - deferred.body} tokens saved on the first request)`);
  } finally {
    await server.close();
    await store.close();
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

void main();
