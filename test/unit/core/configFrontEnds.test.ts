import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { allConfigPaths, configValue, defaultConfig, type ConfigPath } from '../../../src/core/config';
import { applyConfigValues, CONFIG_FILE_KEYS, configFileKeyOf, parseConfigFile } from '../../../src/core/configFile';
import { HAIKU_ERROR_CODES, HaikuError, REMEDY_ACTIONS, type ErrorRemedy } from '../../../src/core/errors';
import { ENVIRONMENT_SETTINGS, resolveCliConfig } from '../../../src/node/config/cliConfig';
import { KEYED_ENDPOINTS } from '../../../src/node/config/endpointTrust';
import { CLI_REMEDY_COMMANDS, cliErrorText, cliRemedyText } from '../../../src/node/config/cliErrorWording';
import { vscodeErrorText, vscodeRemedy } from '../../../src/vscode/errorWording';
import { configFromSettings, layeredSettingReader, SETTING_KEYS, SETTING_PATHS, settingKeyOf, workspaceConfigFileValues } from '../../../src/vscode/settingsMapping';
import { runInProcess } from '../cli/cliHarness';
import { repositoryRoot } from '../../support/paths';

interface Manifest {
  contributes: { configuration: Array<{ properties: Record<string, unknown> }>; commands: Array<{ command: string; title: string }>; jsonValidation: Array<{ fileMatch: string; url: string }> };
}
const manifest = JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as Manifest;
const localized = JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'package.nls.json'), 'utf8')) as Record<string, string>;
const declaredSettings = new Set(manifest.contributes.configuration.flatMap((category) => Object.keys(category.properties)));
const commandTitles = new Map(manifest.contributes.commands.map((command) => [command.command, localized[command.title.replace(/^%|%$/g, '')] ?? command.title]));

/** Every `--flag` each CLI command lists in its own `--help` (commander's view of the program). */
async function cliFlags(): Promise<{ commands: Set<string>; flags: Set<string> }> {
  const general = await runInProcess(['--help'], { cwd: os.tmpdir() });
  const commands = new Set([...general.stdout.matchAll(/^ {2}([a-z]+)\b/gm)].map((match) => match[1]).filter((name) => name !== 'help'));
  const flags = new Set<string>();
  for (const command of commands) {
    const help = await runInProcess([command, '--help'], { cwd: os.tmpdir() });
    for (const match of help.stdout.matchAll(/(?:^|\s)(--[a-z][a-z0-9-]*)/gm)) {
      flags.add(match[1]);
    }
  }
  return { commands, flags };
}

/** Every name a CLI text gives exists: flags in some command's help, variables the CLI reads, keys the file accepts, commands. */
function checkCliNames(text: string, program: { commands: Set<string>; flags: Set<string> }, where: string): void {
  for (const [flag] of text.matchAll(/--[a-z][a-z0-9-]*/g)) {
    assert.ok(program.flags.has(flag), `${where}: ${flag} is a flag of a command`);
  }
  for (const [variable] of text.matchAll(/HAIKU_[A-Z_]+/g)) {
    assert.ok(variable in ENVIRONMENT_SETTINGS, `${where}: ${variable} is read`);
  }
  for (const [, key] of text.matchAll(/"([a-z_.]+)" in haiku\.config\.json/g)) {
    // Keys without a default (optional ones) get a sample value of either type.
    const fallback = configValue(defaultConfig(), CONFIG_FILE_KEYS[key as keyof typeof CONFIG_FILE_KEYS].path);
    const parses = (fallback === undefined ? [1, 'sample', true] : [fallback]).some((value) => {
      const file = key.split('.').reduceRight<unknown>((inner, part) => ({ [part]: inner }), value);
      try {
        parseConfigFile(JSON.stringify(file), 'haiku.config.json', (relative) => relative);
        return true;
      } catch {
        return false;
      }
    });
    assert.ok(parses, `${where}: "${key}" is a key of the file`);
  }
  for (const [, command] of text.matchAll(/`haiku ([a-z]+)/g)) {
    assert.ok(program.commands.has(command), `${where}: haiku ${command} is a command`);
  }
}

/** Every name a VS Code text gives exists: `haiku.*` settings in package.json, commands by their palette title. */
function checkVscodeNames(text: string, where: string): void {
  for (const [setting] of text.matchAll(/haiku\.[a-zA-Z]+\.[a-zA-Z.]*[a-zA-Z]/g)) {
    assert.ok(declaredSettings.has(setting), `${where}: ${setting} is a declared setting`);
  }
  for (const [, title] of text.matchAll(/“Haiku: ([^”]+)”/g)) {
    assert.ok([...commandTitles.values()].includes(title), `${where}: "Haiku: ${title}" is a command`);
  }
}

describe('one configuration, worded by each front end', function () {
  this.timeout(120_000);
  let program: { commands: Set<string>; flags: Set<string> };

  before(async () => {
    program = await cliFlags();
    assert.ok(program.commands.has('rebuild') && program.flags.has('--base-url') && program.flags.has('--config'), [...program.commands, ...program.flags].join(' '));
  });

  it('every haiku.* setting in package.json maps to a configuration path, and every path back to at most one setting', () => {
    assert.deepEqual([...declaredSettings].sort(), SETTING_KEYS.map((key) => `haiku.${key}`).sort());
    const paths = new Set<string>(allConfigPaths());
    for (const key of SETTING_KEYS) {
      assert.ok(paths.has(SETTING_PATHS[key]), `haiku.${key} → ${SETTING_PATHS[key]}`);
      assert.equal(settingKeyOf(SETTING_PATHS[key]), key);
    }
    assert.deepEqual(manifest.contributes.jsonValidation, [{ fileMatch: 'haiku.config.json', url: './schemas/haiku.config.schema.json' }]);
  });

  it('VS Code reads haiku.config.json under the settings: the file beats a default, an explicitly set setting beats the file', () => {
    // A value other than the default for every key both the file and a setting can set.
    const fileValues = parseConfigFile(JSON.stringify({
      index: { include: ['**/*.md'], max_file_bytes: 3 * 1024 * 1024, auto_index: false },
      search: { limit: 9, vector_weight: 2 },
      embeddings: { provider: 'openai', model: 'nomic-embed-text', dimensions: 256 },
      reranker: { provider: 'http', base_url: 'http://127.0.0.1:8/v1' },
      qa: { model: { name: 'qwen3:8b', base_url: 'http://127.0.0.1:9/v1', vision: true }, request_limit: null, max_searches: 2 },
      sandbox: { code_timeout: 7 },
      processing: { pictures: 'none' },
      prompts: { domain_preamble: 'Guides.' },
    }), 'haiku.config.json', (relative) => `/workspace/${relative}`);
    const unset = () => undefined;
    const fromFile = configFromSettings(layeredSettingReader(unset, () => false, fileValues), { defaultDatabaseUri: '/storage/index' });
    const expected = applyConfigValues(defaultConfig(), fileValues);
    expected.index.databaseUri = '/storage/index';
    assert.deepEqual(JSON.parse(JSON.stringify(fromFile)), JSON.parse(JSON.stringify(expected)), 'one mapping: the file means the same through the settings as in the CLI');
    const userSettings: Record<string, unknown> = { 'search.limit': 4, 'model.name': ['llama3.1'] };
    const explicit = configFromSettings(layeredSettingReader((key) => userSettings[key], (key) => key in userSettings, fileValues), { defaultDatabaseUri: '/storage/index' });
    assert.equal(explicit.search.limit, 4);
    assert.equal(explicit.qa.model.name, 'llama3.1');
    assert.equal(explicit.search.vectorWeight, 2, 'the file still fills what the user did not set');
  });

  it('VS Code rereads the workspace file when it changes and reports a broken one once', () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-config-'));
    try {
      const problems: string[] = [];
      const values = workspaceConfigFileValues(() => [folder], (problem) => problems.push(problem));
      assert.deepEqual(values(), {});
      fs.writeFileSync(path.join(folder, 'haiku.config.json'), '{ "search": { "limit": 3 }, "index": { "database": "idx" } }');
      assert.deepEqual(values(), { 'search.limit': 3, 'index.databaseUri': path.join(folder, 'idx') });
      fs.writeFileSync(path.join(folder, 'haiku.config.json'), '{ "search": { "limitt": 3 } }');
      fs.utimesSync(path.join(folder, 'haiku.config.json'), new Date(), new Date(Date.now() + 5000));
      assert.deepEqual(values(), {});
      assert.deepEqual(values(), {});
      assert.equal(problems.length, 1);
      assert.match(problems[0], /unknown key "search\.limitt"/);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('every configuration path and every action is worded by both front ends with names that exist', () => {
    for (const settingPath of allConfigPaths()) {
      const remedy: ErrorRemedy = { settings: [settingPath] };
      const cli = cliRemedyText(remedy, new Set([...program.flags].map((flag) => flag.slice(2))));
      assert.ok(cli, `the CLI can name ${settingPath}`);
      checkCliNames(cli, program, settingPath);
      const vscode = vscodeRemedy(remedy);
      // Settings VS Code has no use for (none today) would be the only ones allowed to have no wording.
      assert.ok(vscode, `VS Code can name ${settingPath}`);
      checkVscodeNames(vscode.text, settingPath);
      const button = vscode.button;
      if (button.command === 'workbench.action.openSettings') {
        assert.ok(declaredSettings.has(String(button.arguments?.[0])), `${settingPath}: the button opens a declared setting`);
      } else {
        assert.ok(commandTitles.has(button.command), `${settingPath}: the button runs a declared command`);
      }
    }
    for (const action of REMEDY_ACTIONS) {
      const cli = cliRemedyText({ action }, new Set());
      checkCliNames(cli!, program, action);
      assert.ok(program.commands.has(CLI_REMEDY_COMMANDS[action].command), action);
      const vscode = vscodeRemedy({ action })!;
      checkVscodeNames(vscode.text, action);
      assert.ok(commandTitles.has(vscode.button.command), action);
    }
  });

  it('every typed error code goes through both front ends: the message first, then the remedy in each one’s terms', () => {
    const remedies: Array<ErrorRemedy | undefined> = [undefined, { settings: ['qa.model.baseUrl'] }, { settings: ['qa.model.apiKey'] }, { settings: ['embeddings.model'], action: 'rebuild_index' }];
    for (const code of HAIKU_ERROR_CODES) {
      for (const remedy of remedies) {
        const error = new HaikuError(code, 'Something happened.', { remedy });
        const where = `${code} ${JSON.stringify(remedy)}`;
        const cli = cliErrorText(error, new Set(['base-url', 'api-key', 'embeddings-model']));
        const vscode = vscodeErrorText(error);
        assert.ok(cli.startsWith('Something happened.') && vscode.startsWith('Something happened.'), where);
        checkCliNames(cli, program, where);
        checkVscodeNames(vscode, where);
        assert.doesNotMatch(cli, /haiku\.(?!config\.json)[a-z]+\.[a-zA-Z]/, `${where}: the CLI never names a VS Code setting`);
        assert.doesNotMatch(vscode, /--[a-z]|HAIKU_/, `${where}: VS Code never names a flag or variable`);
        if (remedy === undefined && code !== 'rebuild_needed') {
          assert.equal(cli, 'Something happened.', where);
        }
      }
    }
    assert.match(cliErrorText(new HaikuError('model_unreachable', 'Cannot reach the model server.', { remedy: { settings: ['qa.model.baseUrl'] } }), new Set(['base-url'])), /Set it with --base-url, HAIKU_BASE_URL or "qa\.model\.base_url" in haiku\.config\.json\.$/);
    assert.match(vscodeErrorText(new HaikuError('model_failed', 'Rejected.', { remedy: { settings: ['qa.model.apiKey'] } })), /Rejected\. Run “Haiku: Set API Key”\.$/);
    assert.match(vscodeErrorText(new HaikuError('model_unreachable', 'Cannot reach.', { remedy: { settings: ['qa.model.baseUrl'] } })), /Setting: haiku\.model\.baseUrl\.$/);
    assert.match(cliErrorText(new HaikuError('rebuild_needed', 'The embedder changed.'), new Set()), /Run `haiku rebuild`/);
    assert.match(vscodeErrorText(new HaikuError('rebuild_needed', 'The embedder changed.')), /Run “Haiku: Rebuild Index”/);
  });

  it('the refusal to send a key to a project file\'s base URL names flags, variables and commands that exist', () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-trust-names-'));
    try {
      const url = 'http://127.0.0.1:9/v1';
      fs.writeFileSync(path.join(folder, 'haiku.config.json'), JSON.stringify({
        qa: { model: { base_url: url } }, analysis: { model: { base_url: 'http://127.0.0.1:8/v1' } }, embeddings: { base_url: url }, reranker: { base_url: url }, processing: { picture_description: { base_url: url } },
      }));
      const keys = Object.fromEntries(Object.entries(ENVIRONMENT_SETTINGS).filter(([name]) => name.endsWith('_API_KEY')).map(([name]) => [name, 'sk-user']));
      const config = resolveCliConfig({ cwd: folder, env: { ...keys, XDG_CONFIG_HOME: folder }, flags: {} }).config;
      for (const endpoint of KEYED_ENDPOINTS) {
        const refusal = endpoint.group(config)?.apiKeyWithheld;
        assert.ok(refusal, `${endpoint.name}: the key is withheld`);
        assert.match(refusal, /`haiku trust http:\/\/127\.0\.0\.1:\d\/v1`/);
        checkCliNames(refusal, program, endpoint.name);
      }
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('a remedy the running command has no flag for names the variable and the config key only', () => {
    const text = cliRemedyText({ settings: ['qa.model.name'] }, new Set(['db']));
    assert.equal(text, 'Set it with HAIKU_MODEL or "qa.model.name" in haiku.config.json.');
    assert.equal(configFileKeyOf('qa.domainPreamble' as ConfigPath), 'prompts.domain_preamble');
  });
});
