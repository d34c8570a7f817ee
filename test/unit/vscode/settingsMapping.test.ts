import * as assert from 'node:assert';
import { defaultConfig } from '../../../src/core/config';
import { configFromSettings, configuredModelNames, hasConfiguredEndpoint } from '../../../src/vscode/settingsMapping';
import { statusBarText } from '../../../src/vscode/statusText';
import { indexBaseFolder } from '../../../src/vscode/workspacePaths';

describe('settings mapping (haiku.* → core configuration)', () => {
  it('gives the core defaults with the workspace storage as database when nothing is set', () => {
    const config = configFromSettings(() => undefined, { defaultDatabaseUri: '/storage/index' });
    const expected = defaultConfig();
    expected.index.databaseUri = '/storage/index';
    expected.qa.model.name = '';
    assert.deepStrictEqual(JSON.parse(JSON.stringify(config)), JSON.parse(JSON.stringify(expected)));
  });

  it('maps set values, secrets and the null request limit; ignores values of the wrong type', () => {
    const settings: Record<string, unknown> = {
      'index.databaseUri': ' s3://bucket/haiku ', 'index.include': ['**/*.md'], 'search.limit': 8, 'search.vectorWeight': 'heavy',
      'embeddings.provider': 'openai', 'embeddings.dimensions': 384, 'reranker.provider': 'bogus',
      'model.baseUrl': 'http://127.0.0.1:11434/v1', 'model.name': 'qwen3:8b, llama3.1', 'qa.requestLimit': null, 'sandbox.codeTimeoutSeconds': 5,
    };
    const read = (key: string) => settings[key];
    const config = configFromSettings(read, { defaultDatabaseUri: '/storage/index', apiKeys: { model: 'k1', embeddings: 'k2' } });
    assert.strictEqual(config.index.databaseUri, 's3://bucket/haiku');
    assert.deepStrictEqual(config.index.include, ['**/*.md']);
    assert.strictEqual(config.search.limit, 8);
    assert.strictEqual(config.search.vectorWeight, 1);
    assert.strictEqual(config.embeddings.provider, 'openai');
    assert.strictEqual(config.embeddings.dimensions, 384);
    assert.strictEqual(config.embeddings.apiKey, 'k2');
    assert.strictEqual(config.reranker.provider, 'none');
    assert.strictEqual(config.qa.model.name, 'qwen3:8b');
    assert.strictEqual(config.qa.model.apiKey, 'k1');
    assert.strictEqual(config.qa.requestLimit, null);
    assert.strictEqual(config.sandbox.codeTimeoutSeconds, 5);
    assert.deepStrictEqual(configuredModelNames(read), ['qwen3:8b', 'llama3.1']);
    assert.strictEqual(hasConfiguredEndpoint(read), true);
    assert.strictEqual(hasConfiguredEndpoint((key) => (key === 'model.name' ? 'qwen3' : undefined)), false);
  });
});

describe('status bar text', () => {
  it('shows counts, progress and what a click does for every state', () => {
    assert.deepStrictEqual(statusBarText({ state: 'ready', documents: 5, chunks: 146 }), { text: '$(book) 5', tooltip: 'Haiku index ready: 5 documents, 146 chunks.' });
    assert.strictEqual(statusBarText({ state: 'indexing', documents: 0, chunks: 0, progress: { done: 2, total: 5 } }).text, '$(sync~spin) Haiku 2/5');
    assert.match(statusBarText({ state: 'paused', documents: 1, chunks: 2 }).tooltip, /Click to resume/);
    assert.match(statusBarText({ state: 'error', documents: 0, chunks: 0, message: 'disk full' }).tooltip, /disk full/);
    assert.match(statusBarText({ state: 'waiting-for-trust', documents: 0, chunks: 0 }).tooltip, /trust/);
  });
});

describe('index base folder of a multi-root workspace', () => {
  it('is the folder itself, or the deepest common ancestor of several', () => {
    assert.strictEqual(indexBaseFolder([]), undefined);
    assert.strictEqual(indexBaseFolder(['/w/docs']), '/w/docs');
    assert.strictEqual(indexBaseFolder(['/w/a/docs', '/w/b', '/w/a/notes']), '/w');
    assert.strictEqual(indexBaseFolder(['/w/a', '/w/a/inner']), '/w/a');
    assert.strictEqual(indexBaseFolder(['/x', '/y']), '/');
  });
});
