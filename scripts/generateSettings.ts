/**
 * Writes what `src/core/settingsTable.ts` generates (`npm run generate:settings`): package.json's
 * `contributes.configuration` (the rest of the file is left byte for byte), package.nls.json's `config.*` texts
 * schemas/haiku.config.schema.json and src/core/configShape.generated.ts (the settings' part of `HaikuConfig`).
 * `--dry-run` prints the diff instead of writing.
 * `test/unit/core/settingsTable.test.ts` fails when a checked-in file differs from what this writes.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SETTINGS_TABLE, VSCODE_SETTING_CATEGORIES, type VscodeSetting } from '../src/core/settingsTable';
import { CONFIG_SCHEMA_FILE, configSchemaText } from './writeConfigSchema';
import { CONFIG_SHAPE_FILE, configShapeText } from './writeConfigShape';

const ROOT = path.resolve(__dirname, '..');
export const PACKAGE_JSON_FILE = path.join(ROOT, 'package.json');
export const PACKAGE_NLS_FILE = path.join(ROOT, 'package.nls.json');

/** The VS Code settings of the table, by category and order. */
function vscodeSettings(): VscodeSetting[] {
  return SETTINGS_TABLE.flatMap((row) => (row.vscode ? [row.vscode] : []));
}

const descriptionKey = (setting: VscodeSetting) => `config.${setting.key}.description`;
const enumKey = (setting: VscodeSetting, value: string) => `config.${setting.key}.enum.${value}`;
const categoryKey = (id: string) => `config.category.${id}`;

function settingsOf(category: string): VscodeSetting[] {
  return vscodeSettings().filter((setting) => setting.category === category).sort((left, right) => left.order - right.order);
}

/** One setting as package.json declares it; the fields always in this order, so the output is stable. */
function manifestProperty(setting: VscodeSetting): Record<string, unknown> {
  const property: Record<string, unknown> = { type: setting.type };
  if (setting.enum) {
    property.enum = setting.enum;
    property.enumDescriptions = setting.enum.map((value) => `%${enumKey(setting, value)}%`);
  }
  property.default = setting.default;
  if (setting.items) {
    property.items = setting.items;
  }
  if (setting.additionalProperties) {
    property.additionalProperties = setting.additionalProperties;
  }
  property.markdownDescription = `%${descriptionKey(setting)}%`;
  for (const field of ['minimum', 'maximum', 'editPresentation', 'scope'] as const) {
    if (setting[field] !== undefined) {
      property[field] = setting[field];
    }
  }
  property.order = setting.order;
  return property;
}

/** package.json's `contributes.configuration`: one section per category. */
export function manifestConfiguration(): unknown[] {
  return VSCODE_SETTING_CATEGORIES.map((category, index) => ({
    id: `haiku.${category.id}`,
    title: `%${categoryKey(category.id)}%`,
    order: index + 1,
    properties: Object.fromEntries(settingsOf(category.id).map((setting) => [`haiku.${setting.key}`, manifestProperty(setting)])),
  }));
}

/** The English texts package.json's `%config.*%` placeholders stand for. */
export function settingTexts(): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const category of VSCODE_SETTING_CATEGORIES) {
    texts[categoryKey(category.id)] = category.title;
    for (const setting of settingsOf(category.id)) {
      texts[descriptionKey(setting)] = setting.description;
      setting.enum?.forEach((value, index) => {
        const text = setting.enumDescriptions?.[index];
        if (text === undefined) {
          throw new Error(`haiku.${setting.key}: enum value '${value}' has no description in settingsTable.ts`);
        }
        texts[enumKey(setting, value)] = text;
      });
    }
  }
  return texts;
}

/** `text` (package.json) with only the value of `"configuration"` replaced, at its indentation. */
export function packageJsonText(text: string): string {
  const match = /^([ \t]*)"configuration":[ \t]*\[/m.exec(text);
  if (!match) {
    throw new Error('package.json has no "configuration": [ … ] in contributes');
  }
  const start = match.index + match[0].length - 1;
  const end = matchingBracket(text, start);
  const generated = JSON.stringify(manifestConfiguration(), null, 2).replace(/\n/g, `\n${match[1]}`);
  return `${text.slice(0, start)}${generated}${text.slice(end + 1)}`;
}

/** The index of the `]` closing the `[` at `start`, skipping strings. */
function matchingBracket(text: string, start: number): number {
  let depth = 0;
  for (let index = start; index < text.length; index++) {
    const character = text[index];
    if (character === '"') {
      for (index++; text[index] !== '"'; index++) {
        if (text[index] === '\\') {
          index++;
        }
      }
    } else if (character === '[' || character === '{') {
      depth++;
    } else if (character === ']' || character === '}') {
      depth--;
      if (depth === 0) {
        return index;
      }
    }
  }
  throw new Error('package.json: unbalanced brackets after "configuration"');
}

/** `text` (package.nls.json) with its `config.*` entries replaced by the table's, where the first one was. */
export function packageNlsText(text: string): string {
  const current = JSON.parse(text) as Record<string, string>;
  const keys = Object.keys(current);
  const first = keys.findIndex((key) => key.startsWith('config.'));
  const others = keys.filter((key) => !key.startsWith('config.'));
  const at = first === -1 ? others.length : keys.slice(0, first).filter((key) => !key.startsWith('config.')).length;
  const ordered: Record<string, string> = {};
  for (const key of others.slice(0, at)) {
    ordered[key] = current[key];
  }
  Object.assign(ordered, settingTexts());
  for (const key of others.slice(at)) {
    ordered[key] = current[key];
  }
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

/** Each generated file with what it should hold, read from disk just now. */
export function generatedFiles(): Array<{ file: string; current: string; expected: string }> {
  const packageJson = fs.readFileSync(PACKAGE_JSON_FILE, 'utf8');
  const nls = fs.readFileSync(PACKAGE_NLS_FILE, 'utf8');
  return [
    { file: PACKAGE_JSON_FILE, current: packageJson, expected: packageJsonText(packageJson) },
    { file: PACKAGE_NLS_FILE, current: nls, expected: packageNlsText(nls) },
    { file: CONFIG_SCHEMA_FILE, current: fs.existsSync(CONFIG_SCHEMA_FILE) ? fs.readFileSync(CONFIG_SCHEMA_FILE, 'utf8') : '', expected: configSchemaText() },
    { file: CONFIG_SHAPE_FILE, current: fs.existsSync(CONFIG_SHAPE_FILE) ? fs.readFileSync(CONFIG_SHAPE_FILE, 'utf8') : '', expected: configShapeText() },
  ];
}

if (require.main === module) {
  const dryRun = process.argv.includes('--dry-run');
  for (const { file, current, expected } of generatedFiles()) {
    if (current === expected) {
      continue;
    }
    if (dryRun) {
      const candidate = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-settings-')), path.basename(file));
      fs.writeFileSync(candidate, expected);
      const diff = spawnSync('diff', ['-u', '--label', path.relative(ROOT, file), '--label', `${path.relative(ROOT, file)} (generated)`, file, candidate], { encoding: 'utf8' });
      process.stdout.write(diff.stdout);
      continue;
    }
    // package.json is read again just before writing: only its `configuration` value is ours to replace.
    if (file === PACKAGE_JSON_FILE || file === PACKAGE_NLS_FILE) {
      const fresh = fs.readFileSync(file, 'utf8');
      fs.writeFileSync(file, file === PACKAGE_JSON_FILE ? packageJsonText(fresh) : packageNlsText(fresh));
    } else {
      fs.writeFileSync(file, expected);
    }
    process.stdout.write(`Wrote ${path.relative(ROOT, file)}\n`);
  }
}
