import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { COMMANDS, DOCUMENT_SCHEME, MODEL_VENDOR, PARTICIPANT_COMMANDS, PARTICIPANT_ID, SECTIONS_VIEW_ID, TOOL_NAMES } from '../../../src/vscode/contributionIds';
import { SETTING_KEYS } from '../../../src/vscode/settingsMapping';
import { defaultConfig } from '../../../src/core/config';
import { repositoryRoot } from '../../support/paths';

/**
 * package.json's declarations against what the code registers, read statically (the registering files import
 * `vscode`, which only exists inside the editor).
 */
interface Manifest {
  main: string;
  activationEvents: string[];
  capabilities: { untrustedWorkspaces: { supported: string } };
  contributes: {
    commands: Array<{ command: string; title: string }>;
    menus: Record<string, Array<{ command: string }>>;
    configuration: { properties: Record<string, { default?: unknown }> };
    views: Record<string, Array<{ id: string }>>;
    viewsWelcome: Array<{ view: string; contents: string }>;
    chatParticipants: Array<{ id: string; name: string; commands: Array<{ name: string }> }>;
    languageModelTools: Array<{ name: string; toolReferenceName: string; canBeReferencedInPrompt: boolean; modelDescription: string; inputSchema: { type: string; properties: object; required?: string[] } }>;
    languageModelChatProviders: Array<{ vendor: string }>;
  };
}

const manifest = JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as Manifest;
const vscodeSource = path.join(repositoryRoot, 'src', 'vscode');

function read(relative: string): string {
  return fs.readFileSync(path.join(vscodeSource, relative), 'utf8');
}

function allSource(folder = vscodeSource): string {
  return fs.readdirSync(folder, { withFileTypes: true }).map((entry) => {
    const full = path.join(folder, entry.name);
    return entry.isDirectory() ? allSource(full) : entry.name.endsWith('.ts') ? fs.readFileSync(full, 'utf8') : '';
  }).join('\n');
}

describe('package.json contributions match the registrations', () => {
  it('declares exactly the commands the code registers', () => {
    const declared = manifest.contributes.commands.map((command) => command.command).sort();
    assert.deepStrictEqual(declared, Object.values(COMMANDS).sort());
    const registrations = read('commands.ts');
    const registered = [...registrations.matchAll(/register\(COMMANDS\.(\w+)/g)].map((match) => COMMANDS[match[1] as keyof typeof COMMANDS]).sort();
    assert.deepStrictEqual(registered, Object.values(COMMANDS).sort());
    // No command id is spelled out anywhere else in the glue (they all go through COMMANDS).
    const literalIds = [...allSource().matchAll(/['"](haiku\.[a-zA-Z]+)['"]/g)].map((match) => match[1]).filter((id) => Object.values(COMMANDS).includes(id as never));
    assert.deepStrictEqual(literalIds.filter((id) => !read('contributionIds.ts').includes(`'${id}'`)), []);
  });

  it('menus and the welcome view only name declared commands', () => {
    const declared = new Set(manifest.contributes.commands.map((command) => command.command));
    for (const [menu, entries] of Object.entries(manifest.contributes.menus)) {
      for (const entry of entries) {
        assert.ok(declared.has(entry.command), `${menu} names ${entry.command}`);
      }
    }
    for (const welcome of manifest.contributes.viewsWelcome) {
      for (const match of welcome.contents.matchAll(/command:(haiku\.[A-Za-z]+)/g)) {
        assert.ok(declared.has(match[1]), `welcome view names ${match[1]}`);
      }
    }
    assert.ok(manifest.contributes.menus['editor/context'].some((entry) => entry.command === COMMANDS.insertCitation));
  });

  it('declares one tool per file under src/vscode/tools, each registered by its constant', () => {
    const declared = manifest.contributes.languageModelTools.map((tool) => tool.name).sort();
    assert.deepStrictEqual(declared, Object.values(TOOL_NAMES).sort());
    const toolFiles = fs.readdirSync(path.join(vscodeSource, 'tools')).filter((file) => /registerTool/.test(read(path.join('tools', file))));
    const registered = toolFiles.flatMap((file) => [...read(path.join('tools', file)).matchAll(/registerTool<\w+>\(TOOL_NAMES\.(\w+)/g)].map((match) => TOOL_NAMES[match[1] as keyof typeof TOOL_NAMES]));
    assert.strictEqual(toolFiles.length, registered.length, 'one registration per tool file');
    assert.deepStrictEqual(registered.sort(), declared);
    const extension = read('extension.ts');
    for (const file of toolFiles) {
      const registerFunction = /export function (register\w+Tool)/.exec(read(path.join('tools', file)))?.[1];
      assert.ok(registerFunction && extension.includes(`${registerFunction}(`), `${file} is registered on activation`);
    }
    for (const tool of manifest.contributes.languageModelTools) {
      assert.strictEqual(tool.canBeReferencedInPrompt, true);
      assert.ok(tool.toolReferenceName && tool.modelDescription.length > 40, tool.name);
      assert.strictEqual(tool.inputSchema.type, 'object');
      for (const required of tool.inputSchema.required ?? []) {
        assert.ok(required in tool.inputSchema.properties, `${tool.name} requires a declared property ${required}`);
      }
    }
  });

  it('declares the participant with the commands the handler routes', () => {
    const [participant] = manifest.contributes.chatParticipants;
    assert.strictEqual(manifest.contributes.chatParticipants.length, 1);
    assert.strictEqual(participant.id, PARTICIPANT_ID);
    assert.strictEqual(participant.name, 'haiku');
    assert.deepStrictEqual(participant.commands.map((command) => command.name).sort(), [...PARTICIPANT_COMMANDS].sort());
    assert.match(read(path.join('chat', 'participant.ts')), /createChatParticipant\(PARTICIPANT_ID,/);
    const routing = read(path.join('chat', 'chatText.ts'));
    for (const command of PARTICIPANT_COMMANDS) {
      assert.ok(routing.includes(`command === '${command}'`), `routeFor handles /${command}`);
    }
  });

  it('declares every setting the mapping reads, with the core defaults', () => {
    const declared = Object.keys(manifest.contributes.configuration.properties).map((key) => key.replace(/^haiku\./, '')).sort();
    assert.deepStrictEqual(declared, [...SETTING_KEYS].sort());
    const defaults = defaultConfig();
    const properties = manifest.contributes.configuration.properties;
    assert.deepStrictEqual(properties['haiku.index.include'].default, defaults.index.include);
    assert.deepStrictEqual(properties['haiku.index.exclude'].default, defaults.index.exclude);
    assert.strictEqual(properties['haiku.search.limit'].default, defaults.search.limit);
    assert.strictEqual(properties['haiku.search.maxContextChars'].default, defaults.search.maxContextChars);
    assert.strictEqual(properties['haiku.qa.maxSearches'].default, defaults.qa.maxSearches);
    assert.strictEqual(properties['haiku.qa.maxExecutions'].default, defaults.qa.maxExecutions);
    assert.strictEqual(properties['haiku.qa.requestLimit'].default, defaults.qa.requestLimit);
    assert.strictEqual(properties['haiku.model.temperature'].default, defaults.qa.model.temperature);
    assert.strictEqual(properties['haiku.sandbox.codeTimeoutSeconds'].default, defaults.sandbox.codeTimeoutSeconds);
    assert.strictEqual(properties['haiku.sandbox.maxOutputChars'].default, defaults.sandbox.maxOutputChars);
    assert.strictEqual(properties['haiku.sandbox.memoryLimitBytes'].default, defaults.sandbox.memoryLimitBytes);
    assert.strictEqual(properties['haiku.index.maxFileBytes'].default, defaults.index.maxFileBytes);
    assert.strictEqual(properties['haiku.embeddings.batchSize'].default, defaults.embeddings.batchSize);
  });

  it('declares the view, the model vendor, the document scheme and the trust mode', () => {
    assert.ok(Object.values(manifest.contributes.views).flat().some((view) => view.id === SECTIONS_VIEW_ID));
    assert.ok(manifest.contributes.viewsWelcome.some((welcome) => welcome.view === SECTIONS_VIEW_ID));
    assert.deepStrictEqual(manifest.contributes.languageModelChatProviders.map((provider) => provider.vendor), [MODEL_VENDOR]);
    assert.match(read('modelProvider.ts'), /registerLanguageModelChatProvider\(MODEL_VENDOR,/);
    assert.match(read('extension.ts'), /registerTextDocumentContentProvider\(DOCUMENT_SCHEME,/);
    assert.strictEqual(DOCUMENT_SCHEME, 'haiku-doc');
    assert.strictEqual(manifest.capabilities.untrustedWorkspaces.supported, 'limited');
    assert.strictEqual(manifest.main, './dist/extension.js');
    assert.ok(manifest.activationEvents.includes('onStartupFinished'));
  });

  it('loads the heavy modules only lazily from activation', () => {
    const extension = read('extension.ts');
    assert.doesNotMatch(extension, /from '\.\.\/node\//, 'extension.ts must not import src/node statically');
    assert.doesNotMatch(extension, /from '\.\/nodeBackend'/);
    for (const file of ['indexService.ts', 'chat/participant.ts', 'sectionsTree.ts', 'commands.ts']) {
      assert.doesNotMatch(read(file), /^import (?!type)[^;]*from '(\.\.\/)+node\//m, `${file} imports src/node statically`);
      assert.doesNotMatch(read(file), /^import (?!type)[^;]*from '(ai|@lancedb\/lancedb)'/m, `${file} imports a heavy package statically`);
    }
  });
});
