import * as assert from 'node:assert';
import { defaultConfig } from '../../../src/core/config';
import { apiKeyFor, parseStoredApiKey, serializeApiKey } from '../../../src/vscode/apiKeyBinding';
import { autoIndexEnabled, configFromSettings, configuredModelNames, excludeGlobsFromWorkspaceSettings, hasConfiguredEndpoint } from '../../../src/vscode/settingsMapping';
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

  it('maps the size limit in megabytes, link following, and adds the workspace excludes unless turned off', () => {
    const settings: Record<string, unknown> = { 'index.maxFileSizeMB': 2, 'index.followLinksOutside': true, 'index.exclude': ['**/drafts/**'] };
    const workspaceExcludes = excludeGlobsFromWorkspaceSettings({ '**/.git': true, '**/archive': true, '**/*.js': { when: '$(basename).ts' }, '**/off': false }, { '**/generated/**': true, '**/.git': true });
    assert.deepStrictEqual(workspaceExcludes, ['**/.git', '**/.git/**', '**/archive', '**/archive/**', '**/generated/**']);
    const config = configFromSettings((key) => settings[key], { defaultDatabaseUri: '/storage/index', workspaceExcludes });
    assert.strictEqual(config.index.maxFileBytes, 2 * 1024 * 1024);
    assert.strictEqual((config.index as { followLinksOutside?: boolean }).followLinksOutside, true);
    assert.deepStrictEqual(config.index.exclude, ['**/drafts/**', ...workspaceExcludes]);
    settings['index.useExcludeSettings'] = false;
    assert.deepStrictEqual(configFromSettings((key) => settings[key], { defaultDatabaseUri: '/storage/index', workspaceExcludes }).index.exclude, ['**/drafts/**']);
    assert.strictEqual(configFromSettings(() => undefined, { defaultDatabaseUri: '/s' }).index.maxFileBytes, defaultConfig().index.maxFileBytes);
    assert.strictEqual(autoIndexEnabled(() => undefined), true);
    assert.strictEqual(autoIndexEnabled((key) => (key === 'index.autoIndex' ? false : undefined)), false);
  });

  it('maps picture processing and its vision endpoint; the model key goes only to the model\'s own server', () => {
    const settings: Record<string, unknown> = { 'processing.pictures': 'description', 'processing.pictureDescription.model': 'qwen2.5vl:7b', 'model.baseUrl': 'http://127.0.0.1:11434/v1/' };
    const apiKeys = { model: 'secret' };
    const same = configFromSettings((key) => settings[key], { defaultDatabaseUri: '/s', apiKeys }).processing;
    assert.deepStrictEqual(same, { pictures: 'description', ocr: { enabled: true, languages: ['eng'] }, pictureDescription: { baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen2.5vl:7b', apiKey: 'secret' } });
    const ocrSettings: Record<string, unknown> = { 'processing.ocr.enabled': false, 'processing.ocr.languages': ['eng', 'deu'] };
    assert.deepStrictEqual(configFromSettings((key) => ocrSettings[key], { defaultDatabaseUri: '/s' }).processing.ocr, { enabled: false, languages: ['eng', 'deu'] });
    settings['processing.pictureDescription.baseUrl'] = 'https://vision.example.com/v1';
    assert.strictEqual(configFromSettings((key) => settings[key], { defaultDatabaseUri: '/s', apiKeys }).processing.pictureDescription.apiKey, undefined);
    settings['processing.pictures'] = 'thumbnails';
    assert.strictEqual(configFromSettings((key) => settings[key], { defaultDatabaseUri: '/s' }).processing.pictures, 'image');
  });

  it('reads model names from a list (and from the older comma-separated text)', () => {
    assert.deepStrictEqual(configuredModelNames((key) => (key === 'model.name' ? ['qwen3:8b', ' llama3.1 ', ''] : undefined)), ['qwen3:8b', 'llama3.1']);
    assert.deepStrictEqual(configuredModelNames((key) => (key === 'model.name' ? 'a, b' : undefined)), ['a', 'b']);
  });
});

describe('API keys bound to the base URL they were set for', () => {
  it('hands a key out only for its own URL; other URLs and unbound keys are a mismatch to ask about', () => {
    const stored = parseStoredApiKey(serializeApiKey('secret', 'HTTP://Models.Example:8080/v1/'));
    assert.deepStrictEqual(stored, { key: 'secret', baseUrl: 'http://models.example:8080/v1' });
    assert.deepStrictEqual(apiKeyFor(stored, 'http://models.example:8080/v1'), { key: 'secret' });
    assert.deepStrictEqual(apiKeyFor(stored, ' http://models.example:8080/v1/ '), { key: 'secret' });
    assert.deepStrictEqual(apiKeyFor(stored, 'https://attacker.example/v1'), { mismatch: { storedFor: 'http://models.example:8080/v1' } });
    assert.deepStrictEqual(apiKeyFor(stored, 'http://models.example:8080/v1/other'), { mismatch: { storedFor: 'http://models.example:8080/v1' } });
    // A key stored as plain text before keys were bound is sent nowhere unasked.
    assert.deepStrictEqual(apiKeyFor(parseStoredApiKey('old-plain-key'), 'http://models.example:8080/v1'), { mismatch: { storedFor: undefined } });
    assert.strictEqual(apiKeyFor(parseStoredApiKey(undefined), 'http://x'), undefined);
  });

});

describe('status bar text', () => {
  it('shows counts, progress and what a click does for every state', () => {
    // The count says what it counts (a bare "5" did not).
    assert.deepStrictEqual(statusBarText({ state: 'ready', documents: 5, chunks: 146 }), { text: '$(book) Haiku: 5 documents', tooltip: 'Haiku index ready: 5 documents, 146 chunks.' });
    assert.strictEqual(statusBarText({ state: 'ready', documents: 1, chunks: 3, notIndexed: 0 }).text, '$(book) Haiku: 1 document');
    // Files not indexed: a warning, their count, and where to see why.
    const warning = statusBarText({ state: 'ready', documents: 120, chunks: 900, notIndexed: 2 });
    assert.strictEqual(warning.text, '$(warning) Haiku: 120 documents · 2 not indexed');
    assert.strictEqual(warning.warning, true);
    assert.match(warning.tooltip, /2 file\(s\) could not be indexed.*Problems panel/);
    assert.strictEqual(statusBarText({ state: 'ready', documents: 3, chunks: 9, notIndexed: 1 }).text, '$(warning) Haiku: 3 documents · 1 not indexed');
    assert.strictEqual(statusBarText({ state: 'indexing', documents: 0, chunks: 0, progress: { done: 2, total: 5 } }).text, '$(sync~spin) Haiku 2/5');
    assert.match(statusBarText({ state: 'paused', documents: 1, chunks: 2 }).tooltip, /Click to resume/);
    assert.match(statusBarText({ state: 'error', documents: 0, chunks: 0, message: 'disk full' }).tooltip, /disk full/);
    assert.match(statusBarText({ state: 'waiting-for-trust', documents: 0, chunks: 0 }).tooltip, /trust/);
    assert.match(statusBarText({ state: 'idle', documents: 0, chunks: 0 }).tooltip, /nothing to index/);
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
