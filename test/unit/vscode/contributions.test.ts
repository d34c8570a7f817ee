import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { routeFor } from '../../../src/vscode/chat/chatText';
import { COMMANDS, PARTICIPANT_COMMANDS, PARTICIPANT_ID, SECTIONS_VIEW_ID, TOOL_NAMES, MODEL_VENDOR } from '../../../src/vscode/contributionIds';
import { autoIndexEnabled, configFromSettings, SETTING_KEYS } from '../../../src/vscode/settingsMapping';
import { repositoryRoot } from '../../support/paths';

/**
 * package.json's declarations against the ids, settings and strings the code uses. That each declared command and
 * tool is registered is checked where registration happens, in the real editor (test/e2e, suite 5); here: the
 * manifest's consistency, the settings mapping's behaviour on the declared defaults, and the built bundle.
 */
interface SettingDeclaration { type: string | string[]; default?: unknown; order?: number; markdownDescription?: string; enum?: string[]; enumDescriptions?: string[]; scope?: string }
interface Manifest {
  main: string;
  activationEvents: string[];
  capabilities: { untrustedWorkspaces: { supported: string; restrictedConfigurations: string[] } };
  contributes: {
    commands: Array<{ command: string; title: string }>;
    menus: Record<string, Array<{ command: string }>>;
    configuration: Array<{ id: string; title: string; order: number; properties: Record<string, SettingDeclaration> }>;
    views: Record<string, Array<{ id: string }>>;
    viewsWelcome: Array<{ view: string; contents: string; when: string }>;
    walkthroughs: Array<{ id: string; steps: Array<{ id: string; description: string; when?: string; media: { markdown?: string }; completionEvents: string[] }> }>;
    chatParticipants: Array<{ id: string; name: string; commands: Array<{ name: string }> }>;
    languageModelTools: Array<{ name: string; when?: string; tags?: string[]; inputSchema: { type: string; properties: Record<string, { type: string }>; required?: string[] } }>;
    languageModelChatProviders: Array<{ vendor: string }>;
  };
}

const manifestText = fs.readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8');
const manifest = JSON.parse(manifestText) as Manifest;
const strings = JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'package.nls.json'), 'utf8')) as Record<string, string>;
const settings = Object.assign({}, ...manifest.contributes.configuration.map((category) => category.properties)) as Record<string, SettingDeclaration>;
const declaredCommands = new Set(manifest.contributes.commands.map((command) => command.command));

/** Every `command:haiku.x` link in a Markdown text of the manifest. */
function linkedCommands(text: string): string[] {
  return [...text.matchAll(/command:(haiku\.[A-Za-z.]+)/g)].map((match) => match[1]);
}

describe('package.json contributions', () => {
  it('declares exactly the command ids the code registers by, and every menu, welcome and walkthrough link names one', () => {
    assert.deepStrictEqual([...declaredCommands].sort(), Object.values(COMMANDS).sort());
    for (const [menu, entries] of Object.entries(manifest.contributes.menus)) {
      for (const entry of entries) {
        assert.ok(declaredCommands.has(entry.command), `${menu} names ${entry.command}`);
      }
    }
    const texts = [...manifest.contributes.viewsWelcome.map((welcome) => strings[welcome.contents.slice(1, -1)] ?? welcome.contents),
      ...manifest.contributes.walkthroughs.flatMap((walkthrough) => walkthrough.steps.map((step) => strings[step.description.slice(1, -1)] ?? step.description))];
    // `haiku.sections.focus` is the command VS Code creates for the view.
    for (const command of texts.flatMap(linkedCommands).filter((command) => command !== `${SECTIONS_VIEW_ID}.focus`)) {
      assert.ok(declaredCommands.has(command), `a link names ${command}`);
    }
  });

  it('shows a loading state, not a Rebuild button, while the first build runs', () => {
    const building = manifest.contributes.viewsWelcome.filter((welcome) => /haiku\.indexState == indexing/.test(welcome.when));
    assert.strictEqual(building.length, 1);
    assert.deepStrictEqual(linkedCommands(strings[building[0].contents.slice(1, -1)]), []);
    const empty = manifest.contributes.viewsWelcome.find((welcome) => linkedCommands(strings[welcome.contents.slice(1, -1)] ?? '').includes(COMMANDS.buildIndex));
    assert.ok(empty && /haiku\.indexState != indexing/.test(empty.when), 'the Build Index button hides while indexing');
    assert.ok(!manifest.contributes.viewsWelcome.some((welcome) => linkedCommands(strings[welcome.contents.slice(1, -1)] ?? '').includes(COMMANDS.rebuildIndex)), 'no welcome view drops the index');
  });

  it('has a walkthrough whose steps each complete on an event and show Markdown that exists', () => {
    const [walkthrough] = manifest.contributes.walkthroughs;
    assert.deepStrictEqual(walkthrough.steps.map((step) => step.id), ['buildIndex', 'browseSections', 'askHaiku', 'configureModel', 'configureModelRemote', 'insertCitation']);
    for (const step of walkthrough.steps) {
      assert.ok(step.completionEvents.length > 0, step.id);
      assert.ok(step.media.markdown && fs.existsSync(path.join(repositoryRoot, step.media.markdown)), `${step.id}: ${step.media.markdown}`);
    }
    // Checked off when it is true (src/vscode/walkthrough.ts sets these keys), not when a button was merely clicked.
    assert.deepStrictEqual(walkthrough.steps[0].completionEvents, ['onContext:haiku.indexReady']);
    assert.deepStrictEqual(walkthrough.steps[1].completionEvents, [`onView:${SECTIONS_VIEW_ID}`, 'onContext:haiku.sectionsVisible']);
  });

  it('the walkthrough says nothing in codicon syntax, which its Markdown and titles show literally', () => {
    const [walkthrough] = manifest.contributes.walkthroughs;
    for (const step of walkthrough.steps) {
      const texts = [strings[step.description.slice(1, -1)] ?? step.description, fs.readFileSync(path.join(repositoryRoot, step.media.markdown!), 'utf8')];
      for (const text of texts) {
        assert.doesNotMatch(text, /\$\([a-z-]+(~[a-z]+)?\)/, `${step.id}: ${text}`);
      }
    }
    const browse = fs.readFileSync(path.join(repositoryRoot, 'media/walkthrough/browseSections.md'), 'utf8');
    assert.match(browse, /PDFs open on the section's page in Haiku's PDF viewer/);
  });

  it("the model step opens the settings where the endpoint settings apply: user settings locally, the remote machine's in a remote window", () => {
    const [walkthrough] = manifest.contributes.walkthroughs;
    const step = (id: string) => walkthrough.steps.find((candidate) => candidate.id === id)!;
    const settingsLinks = (id: string) => [...(strings[step(id).description.slice(1, -1)] ?? '').matchAll(/\(command:(workbench\.action\.[A-Za-z]+)\?([^)]*)\)/g)]
      .map((match) => ({ command: match[1], argument: JSON.parse(decodeURIComponent(match[2])) as unknown }));
    assert.strictEqual(step('configureModel').when, '!remoteName');
    assert.deepStrictEqual(settingsLinks('configureModel'), [{ command: 'workbench.action.openGlobalSettings', argument: { query: 'haiku.model' } }]);
    assert.strictEqual(step('configureModelRemote').when, 'remoteName');
    assert.deepStrictEqual(settingsLinks('configureModelRemote'), [{ command: 'workbench.action.openRemoteSettings', argument: { query: 'haiku.model' } }]);
    // The endpoint's base URL is one the remote machine may override: the scope the remote link opens.
    assert.strictEqual(settings['haiku.model.baseUrl'].scope, 'machine-overridable');
  });

  it('declares the tools by their constants, each with a when clause, tags and a well-formed schema', () => {
    assert.deepStrictEqual(manifest.contributes.languageModelTools.map((tool) => tool.name).sort(), Object.values(TOOL_NAMES).sort());
    for (const tool of manifest.contributes.languageModelTools) {
      assert.ok(tool.when && tool.tags && tool.tags.length > 0, tool.name);
      assert.strictEqual(tool.inputSchema.type, 'object');
      for (const required of tool.inputSchema.required ?? []) {
        assert.ok(required in tool.inputSchema.properties, `${tool.name} requires a declared property ${required}`);
      }
    }
    assert.strictEqual(manifest.contributes.languageModelTools.find((tool) => tool.name === TOOL_NAMES.search)?.inputSchema.properties.limit.type, 'integer');
  });

  it('declares the participant with commands the handler routes to distinct routes', () => {
    const [participant] = manifest.contributes.chatParticipants;
    assert.strictEqual(participant.id, PARTICIPANT_ID);
    assert.deepStrictEqual(participant.commands.map((command) => command.name).sort(), [...PARTICIPANT_COMMANDS].sort());
    assert.deepStrictEqual(participant.commands.map((command) => routeFor(command.name)), participant.commands.map((command) => command.name));
    assert.deepStrictEqual(manifest.contributes.languageModelChatProviders.map((provider) => provider.vendor), [MODEL_VENDOR]);
  });

  it('declares exactly the settings the mapping reads, grouped and ordered, and the declared defaults map to the core defaults', () => {
    const read = new Set<string>();
    configFromSettings((key) => {
      read.add(key);
      return undefined;
    }, { defaultDatabaseUri: '/storage/index' });
    autoIndexEnabled((key) => read.add(key));
    const declared = Object.keys(settings).map((key) => key.replace(/^haiku\./, '')).sort();
    assert.deepStrictEqual(declared, [...SETTING_KEYS].sort());
    assert.deepStrictEqual([...read].sort(), declared, 'every declared setting is read by the mapping');
    const withDeclaredDefaults = configFromSettings((key) => settings[`haiku.${key}`].default, { defaultDatabaseUri: '/storage/index' });
    const withNothing = configFromSettings(() => undefined, { defaultDatabaseUri: '/storage/index' });
    assert.deepStrictEqual(withDeclaredDefaults, withNothing);
    const categories = manifest.contributes.configuration;
    assert.deepStrictEqual(categories.map((category) => category.order), categories.map((_, index) => index + 1));
    for (const category of categories) {
      assert.deepStrictEqual(Object.values(category.properties).map((setting) => setting.order), Object.keys(category.properties).map((_, index) => index + 1), category.id);
    }
    for (const [key, setting] of Object.entries(settings)) {
      if (setting.enum) {
        assert.strictEqual(setting.enumDescriptions?.length, setting.enum.length, `${key} describes each value`);
      }
    }
  });

  it('keeps endpoint URLs away from untrusted workspaces and machine-overridable', () => {
    for (const key of ['haiku.model.baseUrl', 'haiku.embeddings.baseUrl', 'haiku.reranker.baseUrl']) {
      assert.strictEqual(settings[key].scope, 'machine-overridable', key);
      assert.ok(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.includes(key), key);
    }
  });

  it('localizes every manifest string through package.nls.json, with no key missing or unused', () => {
    const used = new Set([...manifestText.matchAll(/"%([^"%]+)%"/g)].map((match) => match[1]));
    assert.deepStrictEqual([...used].filter((key) => !(key in strings)), []);
    assert.deepStrictEqual(Object.keys(strings).filter((key) => !used.has(key)), []);
    for (const command of manifest.contributes.commands) {
      assert.match(command.title, /^%.+%$/, command.command);
    }
  });

  it('bundles no src/node module and no heavy package into dist/extension.js (they load from dist/backend.js on first use)', async function () {
    this.timeout(120_000);
    const result = await esbuild.build({
      entryPoints: [path.join(repositoryRoot, 'src/vscode/extension.ts')],
      bundle: true, platform: 'node', format: 'cjs', target: 'node20', write: false, metafile: true, logLevel: 'silent',
      external: ['vscode', '@lancedb/lancedb', 'apache-arrow'],
      absWorkingDir: repositoryRoot,
    });
    const inputs = Object.keys(result.metafile.inputs);
    assert.ok(inputs.includes('src/vscode/extension.ts') && inputs.length > 20, `${inputs.length} inputs`);
    assert.deepStrictEqual(inputs.filter((input) => input.startsWith('src/node/') || input === 'src/vscode/nodeBackend.ts'), []);
    assert.deepStrictEqual(inputs.filter((input) => /node_modules\/(ai|@ai-sdk\/openai|mammoth|unpdf|htmlparser2|quickjs-emscripten-core|micromark[^/]*)\//.test(input)), []);
  });

  it('has a main, a trust mode and an activation event', () => {
    assert.strictEqual(manifest.main, './dist/extension.js');
    assert.strictEqual(manifest.capabilities.untrustedWorkspaces.supported, 'limited');
    assert.ok(manifest.activationEvents.some((event) => event.startsWith('workspaceContains:')));
  });
});
