import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { noModelView } from '../../../src/vscode/chat/chatErrors';
import { COMMANDS } from '../../../src/vscode/contributionIds';
import { untranslated, type Translate } from '../../../src/vscode/statusText';
import { repositoryRoot } from '../../support/paths';

const marked: Translate = (message, ...args) => `«${untranslated(message, ...args)}»`;

describe("Haiku's own guidance when no model can answer", () => {
  it('says to pick a model or set the endpoint settings, linking each setting', () => {
    const view = noModelView('How does Vite pre-bundle dependencies?');
    assert.equal(view.code, 'no_model');
    assert.match(view.markdown, /model picker/);
    for (const setting of ['haiku.model.baseUrl', 'haiku.model.name']) {
      const link = `command:workbench.action.openSettings?${encodeURIComponent(JSON.stringify([setting]))}`;
      assert.ok(view.markdown.includes(`(${link})`), `a link opens ${setting}`);
    }
    // The trusted Markdown may run only the settings command.
    assert.deepEqual(view.commands, ['workbench.action.openSettings']);
  });

  it('offers Haiku: Search with the question, and names /search', () => {
    const view = noModelView('  How does Vite pre-bundle dependencies? ');
    assert.deepEqual(view.buttons[0], { command: COMMANDS.search, title: 'Search the documents', arguments: ['How does Vite pre-bundle dependencies?'] });
    assert.equal(view.buttons[1]!.command, 'workbench.action.openSettings');
    assert.match(view.markdown, /Haiku: Search/);
    assert.match(view.markdown, /`@haiku \/search How does Vite pre-bundle dependencies\?`/);
    assert.deepEqual(noModelView('').buttons[0]!.arguments, []);
    assert.doesNotMatch(noModelView('a `b` c').markdown, /`b`/, 'a backtick in the question cannot break the code span');
  });

  it('every sentence and button title goes through l10n', () => {
    const view = noModelView('q', marked);
    assert.match(view.markdown, /^«.*»\n\n«.*»\n$/s);
    for (const button of view.buttons) {
      assert.match(button.title, /^«.*»$/);
    }
  });

  it('package.json contributes Haiku: Search to the palette, a keybinding and the Sections view title', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as {
      contributes: { commands: Array<{ command: string; title: string }>; keybindings?: Array<{ command: string; key: string }>; menus: Record<string, Array<{ command: string; when?: string }>> };
    };
    const strings = JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'package.nls.json'), 'utf8')) as Record<string, string>;
    const command = manifest.contributes.commands.find((entry) => entry.command === COMMANDS.search);
    assert.equal(command && strings[command.title.replace(/%/g, '')], 'Search');
    assert.ok(manifest.contributes.keybindings?.some((binding) => binding.command === COMMANDS.search && binding.key));
    assert.ok(manifest.contributes.menus['view/title']!.some((entry) => entry.command === COMMANDS.search && entry.when === 'view == haiku.sections'));
    assert.ok(!manifest.contributes.menus.commandPalette!.some((entry) => entry.command === COMMANDS.search), 'not hidden from the palette');
  });
});
