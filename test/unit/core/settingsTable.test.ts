import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { allConfigPaths, configValue } from '../../../src/core/config';
import { CONFIG_FILE_KEYS } from '../../../src/core/configFile';
import { SETTINGS_TABLE, VSCODE_SETTING_CATEGORIES } from '../../../src/core/settingsTable';
import { ENVIRONMENT_SETTINGS, FLAG_SETTINGS } from '../../../src/node/config/cliConfig';
import { configFromSettings, SETTING_PATHS } from '../../../src/vscode/settingsMapping';
import { generatedFiles, manifestConfiguration, packageJsonText, packageNlsText } from '../../../scripts/generateSettings';

/** Issue 25: one table (src/core/settingsTable.ts) gives every front end's names; the hand-written copies are generated from it. */
describe('the settings table', () => {
  it('package.json contributes.configuration, package.nls.json config.* and the JSON schema are what `npm run generate:settings` writes', () => {
    for (const { file, current, expected } of generatedFiles()) {
      assert.ok(current === expected, `${path.basename(file)} is stale: run \`npm run generate:settings\` (\`npx tsx scripts/generateSettings.ts --dry-run\` shows the difference)`);
    }
  });

  it('the generator replaces only contributes.configuration in package.json and only config.* texts in package.nls.json', () => {
    const manifest = `{\n  "name": "x",\n  "contributes": {\n    "commands": [ {"command": "a"} ],\n    "configuration": [ { "old": "]}\\"" } ],\n    "menus": {}\n  },\n  "scripts": {  "odd":   "spacing" }\n}\n`;
    const written = packageJsonText(manifest);
    assert.ok(written.startsWith('{\n  "name": "x",\n  "contributes": {\n    "commands": [ {"command": "a"} ],\n    "configuration": [\n      {\n'));
    assert.ok(written.endsWith('\n    ],\n    "menus": {}\n  },\n  "scripts": {  "odd":   "spacing" }\n}\n'));
    assert.deepEqual((JSON.parse(written) as { contributes: { configuration: unknown } }).contributes.configuration, manifestConfiguration());
    const nls = JSON.parse(packageNlsText('{\n  "a": "1",\n  "config.old": "gone",\n  "b": "2"\n}\n')) as Record<string, string>;
    const keys = Object.keys(nls);
    assert.deepEqual([keys[0], keys[keys.length - 1]], ['a', 'b']);
    assert.ok(!('config.old' in nls));
    assert.equal(nls['config.model.baseUrl.description'], SETTINGS_TABLE.find((row) => row.vscode?.key === 'model.baseUrl')?.vscode?.description);
  });

  it('every row sets a real configuration path, and each name (file key, setting, variable, flag) appears once', () => {
    const paths = new Set<string>(allConfigPaths());
    const seen = { file: new Set<string>(), vscode: new Set<string>(), env: new Set<string>(), flag: new Set<string>() };
    const named = new Set<string>();
    for (const row of SETTINGS_TABLE) {
      assert.ok(paths.has(row.path), `${row.path} is a configuration path`);
      for (const [front, name] of [['file', row.file?.key], ['vscode', row.vscode?.key], ['env', row.env], ['flag', row.flag?.name]] as const) {
        if (name !== undefined) {
          assert.ok(!seen[front].has(name), `${front} name ${name} is given once`);
          seen[front].add(name);
        }
      }
      if (row.vscode || row.env || row.flag) {
        assert.ok(!named.has(row.path), `only one row of ${row.path} names its VS Code setting, variable or flag`);
        named.add(row.path);
      }
      const setting = row.vscode;
      if (setting) {
        assert.ok(VSCODE_SETTING_CATEGORIES.some((category) => category.id === setting.category));
        assert.equal(setting.enumDescriptions?.length, setting.enum?.length, `haiku.${setting.key}: one description per enum value`);
      }
    }
  });

  it('VS Code reads every setting of the table: its default gives the configuration default, another value changes its path', () => {
    const defaults = configFromSettings(() => undefined, { defaultDatabaseUri: '/index' });
    const atDeclaredDefaults = configFromSettings((key) => SETTINGS_TABLE.find((row) => row.vscode?.key === key)?.vscode?.default, { defaultDatabaseUri: '/index' });
    assert.deepEqual(atDeclaredDefaults, defaults, "package.json's defaults mean the configuration's defaults");
    for (const row of SETTINGS_TABLE) {
      const setting = row.vscode;
      if (!setting) {
        continue;
      }
      const other = setting.enum?.find((value) => value !== setting.default)
        ?? (setting.default === null ? (setting.type.includes('integer') ? 7 : true) : typeof setting.default === 'boolean' ? !setting.default : typeof setting.default === 'number' ? setting.default + 1 : Array.isArray(setting.default) ? ['sample'] : setting.type === 'object' ? { sample: '/sample' } : 'sample');
      const changed = configFromSettings((key) => (key === setting.key ? other : undefined), { defaultDatabaseUri: '/index' });
      assert.notDeepEqual(configValue(changed, row.path), configValue(defaults, row.path), `configFromSettings reads haiku.${setting.key} into ${row.path}`);
    }
  });

  it('the maps the code reads are the table', () => {
    assert.deepEqual(Object.keys(CONFIG_FILE_KEYS), SETTINGS_TABLE.flatMap((row) => (row.file ? [row.file.key] : [])));
    assert.equal(SETTING_PATHS['model.baseUrl'], 'qa.model.baseUrl');
    assert.equal(ENVIRONMENT_SETTINGS.HAIKU_API_KEY, 'qa.model.apiKey');
    assert.equal(FLAG_SETTINGS['picture-base-url'], 'processing.pictureDescription.baseUrl');
    assert.equal(CONFIG_FILE_KEYS['analysis.max_executions'].path, 'qa.maxExecutions');
  });
});
