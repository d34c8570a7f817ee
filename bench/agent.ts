/**
 * Agent overhead per tool round, excluding the model's own time: a scripted OpenAI-compatible server on 127.0.0.1
 * answers every request instantly, so what remains is HTTP + SSE parsing, the AI SDK's tool loop, and our
 * bookkeeping (budgets, rendering, state, events) plus the tool's own work.
 *
 * References measured in the same run: a bare HTTP round trip to the server (transport floor) and a bare AI SDK
 * `streamText` tool loop with a no-op tool (SDK floor). Run: `npx tsx bench/agent.ts [rounds] [repeats]`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import { runAgent } from '../src/core/agent/runAgent';
import type { KnowledgeBase } from '../src/core/model/search';
import { createOpenAiCompatibleModel } from '../src/node/agent/openAiCompatibleModel';
import { createCodeSandbox } from '../src/node/sandbox/codeSandbox';
import { indexPaths } from '../src/node/index/indexer';
import { openStore } from '../src/node/store/lanceStore';
import { MemoryKnowledgeBase } from '../test/support/memoryKnowledgeBase';
import { startScriptedChatServer, type ScriptStep } from '../test/support/scriptedChatServer';

const rounds = Number(process.argv[2] ?? 20);
const repeats = Number(process.argv[3] ?? 5);

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)];
}

function searchScript(count: number, toolName = 'rag_search'): ScriptStep[] {
  const steps: ScriptStep[] = [];
  for (let round = 0; round < count; round++) {
    steps.push({ toolCalls: [{ name: toolName, arguments: { query: `pump valve ${round}` } }] });
  }
  steps.push({ text: 'done' });
  return steps;
}

function memoryKnowledgeBase(): MemoryKnowledgeBase {
  const documents = Array.from({ length: 20 }, (_, documentIndex) => ({
    id: `doc-${documentIndex}`,
    title: `Manual ${documentIndex}`,
    chunks: Array.from({ length: 20 }, (_, chunkIndex) => ({
      id: `chunk-${documentIndex}-${chunkIndex}`,
      content: `Pump ${chunkIndex} of manual ${documentIndex}: the valve opens at ${chunkIndex} bar. `.repeat(8),
      headings: ['Maintenance', `Section ${chunkIndex}`],
    })),
  }));
  return new MemoryKnowledgeBase(documents);
}

async function timeIt(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

async function realIndex(): Promise<{ knowledgeBase: KnowledgeBase; close: () => Promise<void> } | undefined> {
  try {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-bench-agent-'));
    const guide = path.resolve(__dirname, '../../shared/corpus/vite-docs/docs/guide');
    const store = await openStore({ uri: path.join(folder, 'index') });
    await indexPaths({ roots: [guide], store, baseFolder: guide });
    return {
      knowledgeBase: store,
      close: async () => {
        await store.close();
        fs.rmSync(folder, { recursive: true, force: true });
      },
    };
  } catch (error) {
    console.log(`(real index skipped: ${error instanceof Error ? error.message : String(error)})`);
    return undefined;
  }
}

async function main(): Promise<void> {
  const server = await startScriptedChatServer();
  const { model } = createOpenAiCompatibleModel({ baseUrl: server.baseUrl, name: 'bench' });
  // Scenarios run interleaved (one run of each per repeat) so load from other processes hits them alike.
  const scenarios: Array<{ name: string; script: () => ScriptStep[]; work: () => Promise<unknown>; samples: number[] }> = [];
  const measure = async (name: string, script: () => ScriptStep[], work: () => Promise<unknown>) => {
    scenarios.push({ name, script, work, samples: [] });
  };

  // Transport floor: one POST + SSE response per round, read to the end.
  await measure('HTTP round trip (fetch, SSE body)', () => searchScript(rounds), async () => {
    for (let round = 0; round <= rounds; round++) {
      const response = await fetch(`${server.baseUrl}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'bench', stream: true, messages: [] }) });
      await response.text();
    }
  });

  // SDK floor: the AI SDK's own loop with a tool that does nothing.
  await measure('AI SDK streamText loop, no-op tool', () => searchScript(rounds), async () => {
    const result = streamText({
      model,
      prompt: 'bench',
      stopWhen: stepCountIs(rounds + 2),
      tools: { rag_search: tool({ inputSchema: z.object({ query: z.string() }), execute: async () => 'ok' }) },
    });
    await result.consumeStream();
    await result.response;
  });

  const memory = memoryKnowledgeBase();
  const unlimited = { requestLimit: null, maxSearches: 1_000 };
  await measure('runAgent rag_search, in-memory KB (400 chunks)', () => searchScript(rounds), () =>
    runAgent({ model, knowledgeBase: memory, question: 'bench', mode: 'rag', settings: unlimited }),
  );

  const index = await realIndex();
  if (index) {
    await measure('runAgent rag_search, LanceDB (vite guide, full text + expansion)', () => searchScript(rounds), () =>
      runAgent({ model, knowledgeBase: index.knowledgeBase, question: 'bench', mode: 'rag', settings: unlimited }),
    );
  }

  await measure(
    'runAgent execute_code (real QuickJS sandbox, incl. startup once)',
    () => {
      const steps: ScriptStep[] = [];
      for (let round = 0; round < rounds; round++) {
        steps.push({ toolCalls: [{ name: 'execute_code', arguments: { code: `let total${round} = 0; for (let i = 0; i < 1000; i++) total${round} += i; total${round}` } }] });
      }
      steps.push({ text: 'done' });
      return steps;
    },
    () =>
      runAgent({
        model,
        knowledgeBase: memory,
        question: 'bench',
        mode: 'analysis',
        settings: { requestLimit: null, maxExecutions: 1_000 },
        createSandbox: (host) => createCodeSandbox({ host }),
      }),
  );
  for (let repeat = 0; repeat <= repeats; repeat++) {
    for (const scenario of scenarios) {
      server.push(...scenario.script());
      const elapsed = await timeIt(scenario.work);
      if (repeat > 0) {
        scenario.samples.push(elapsed); // the first pass warms up JIT, sockets, caches and the sandbox module
      }
    }
  }
  await index?.close();
  await server.close();
  const results = scenarios.map((scenario) => ({ name: scenario.name, perRoundMs: median(scenario.samples) / (rounds + 1) }));
  const sdk = results[1].perRoundMs;
  console.log(`Agent overhead per model request (${rounds} tool rounds + 1 answer, median of ${repeats}; model time excluded)`);
  for (const { name, perRoundMs } of results) {
    console.log(`  ${name.padEnd(70)} ${perRoundMs.toFixed(2).padStart(7)} ms/round   ×${(perRoundMs / sdk).toFixed(2)} of the SDK loop`);
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
