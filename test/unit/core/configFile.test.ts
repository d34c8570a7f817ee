import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { allConfigPaths, configValue, defaultConfig } from '../../../src/core/config';
import { applyConfigValues, CONFIG_FILE_KEYS, parseConfigFile } from '../../../src/core/configFile';
import { isHaikuError } from '../../../src/core/errors';
import { CONFIG_SCHEMA_FILE, configSchemaText } from '../../../scripts/writeConfigSchema';

function problemOf(text: string): string {
  try {
    parseConfigFile(text, '/project/haiku.config.json');
  } catch (error) {
    assert.ok(isHaikuError(error, 'invalid_settings'), String(error));
    return error.message;
  }
  assert.fail(`accepted ${text}`);
}

describe('haiku.config.json', () => {
  it("maps the specification's key names onto the configuration", () => {
    const values = parseConfigFile(
      JSON.stringify({
        $schema: './schemas/haiku.config.schema.json',
        search: { limit: 8, max_context_chars: 3000 },
        qa: { model: { name: 'qwen3:8b', base_url: 'http://127.0.0.1:9/v1', thinking: true }, max_searches: 3, request_limit: null },
        sandbox: { code_timeout: 5 },
        reranker: { provider: 'http', base_url: 'http://127.0.0.1:8/v1' },
        processing: { pictures: 'none' },
        prompts: { domain_preamble: 'Vite guides.' },
      }),
      'haiku.config.json',
    );
    const config = applyConfigValues(defaultConfig(), values);
    assert.equal(config.search.limit, 8);
    assert.equal(config.search.maxContextChars, 3000);
    assert.equal(config.qa.model.name, 'qwen3:8b');
    assert.equal(config.qa.model.baseUrl, 'http://127.0.0.1:9/v1');
    assert.equal(config.qa.model.thinking, true);
    assert.equal(config.qa.maxSearches, 3);
    assert.equal(config.qa.requestLimit, null);
    assert.equal(config.sandbox.codeTimeoutSeconds, 5);
    assert.equal(config.reranker.provider, 'http');
    assert.equal(config.processing.pictures, 'none');
    assert.equal(config.qa.domainPreamble, 'Vite guides.');
    // What the file does not name keeps its default.
    assert.equal(config.qa.maxExecutions, defaultConfig().qa.maxExecutions);
  });

  it('rejects an unknown key naming it with its path and the keys known there', () => {
    const nested = problemOf('{ "qa": { "max_serches": 3 } }');
    assert.match(nested, /^\/project\/haiku\.config\.json: unknown key "qa\.max_serches" \(known under "qa": model, max_searches, max_executions, request_limit, citation_policy\)/);
    assert.match(problemOf('{ "serch": { "limit": 3 } }'), /unknown key "serch" \(known: index, search, embeddings, reranker, qa, analysis, sandbox, processing, prompts\)/);
    // A key of the file's own goes only to the file's own base URL (issue 24; test/unit/config/keyTrust.test.ts).
    assert.match(problemOf('{ "qa": { "model": { "apikey": "sk-1" } } }'), /unknown key "qa\.model\.apikey"/);
  });

  it('rejects wrong types and values naming the key, every problem at once', () => {
    const message = problemOf('{ "search": { "limit": "five" }, "sandbox": { "code_timeout": -1 } }');
    assert.match(message, /"search\.limit": expected number, got "five"/);
    assert.match(message, /"sandbox\.code_timeout": /);
    assert.match(problemOf('{ "embeddings": { "provider": "local" } }'), /"embeddings\.provider": expected one of "none", "openai", got "local"/);
    assert.match(problemOf('{ "qa": { "max_searches": 1.5 } }'), /"qa\.max_searches": expected a whole number, got 1\.5/);
    assert.match(problemOf('{ "search": { "limit": 3, }'), /^\/project\/haiku\.config\.json is not valid JSON/);
  });

  it("accepts the analysis specification's analysis.code_timeout, max_output_chars and max_executions as the sandbox and budget limits", () => {
    const config = applyConfigValues(defaultConfig(), parseConfigFile('{ "analysis": { "code_timeout": 7.5, "max_output_chars": 900, "max_executions": 4 } }', 'f'));
    assert.equal(config.sandbox.codeTimeoutSeconds, 7.5);
    assert.equal(config.sandbox.maxOutputChars, 900);
    assert.equal(config.qa.maxExecutions, 4);
    // Both names of one limit: the same value is fine, two values are a mistake to point at.
    assert.equal(parseConfigFile('{ "analysis": { "max_executions": 4 }, "qa": { "max_executions": 4 } }', 'f')['qa.maxExecutions'], 4);
    assert.match(problemOf('{ "sandbox": { "code_timeout": 5 }, "analysis": { "code_timeout": 9 } }'), /"sandbox\.code_timeout" and "analysis\.code_timeout" set the same limit to 5 and 9/);
    assert.match(problemOf('{ "analysis": { "max_executions": 0 } }'), /"analysis\.max_executions": must be more than 0/);
  });

  it('resolves a relative index.database against the file and leaves URIs alone', () => {
    const resolve = (relativePath: string) => `/project/${relativePath}`;
    assert.equal(parseConfigFile('{ "index": { "database": "indexes/main" } }', 'f', resolve)['index.databaseUri'], '/project/indexes/main');
    assert.equal(parseConfigFile('{ "index": { "database": "s3://bucket/haiku" } }', 'f', resolve)['index.databaseUri'], 's3://bucket/haiku');
  });

  it('every key sets a real configuration path, and a file holding every default reads back as the defaults', () => {
    const paths = new Set<string>(allConfigPaths());
    const file: Record<string, Record<string, unknown>> = {};
    const defaults = defaultConfig();
    for (const [key, { path }] of Object.entries(CONFIG_FILE_KEYS)) {
      assert.ok(paths.has(path), `${key} → ${path}`);
      const value = configValue(defaults, path);
      if (value === undefined || path === 'index.databaseUri') {
        continue;
      }
      const parts = key.split('.');
      let group: Record<string, unknown> = file;
      for (const part of parts.slice(0, -1)) {
        group = (group[part] ??= {}) as Record<string, unknown>;
      }
      group[parts[parts.length - 1]] = value;
    }
    assert.deepEqual(applyConfigValues(defaultConfig(), parseConfigFile(JSON.stringify(file), 'defaults')), defaults);
  });

  it('the checked-in JSON schema for editors is the one the zod schema gives (npx tsx scripts/writeConfigSchema.ts)', () => {
    assert.equal(fs.readFileSync(CONFIG_SCHEMA_FILE, 'utf8'), configSchemaText());
    const schema = JSON.parse(configSchemaText()) as { additionalProperties: boolean; properties: Record<string, { additionalProperties?: boolean }> };
    assert.equal(schema.additionalProperties, false);
    assert.equal(schema.properties.qa.additionalProperties, false);
  });
});
