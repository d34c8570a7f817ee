import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repositoryRoot } from '../../support/paths';

interface Manifest {
  version: string;
  icon: string;
  repository?: { url: string };
  keywords?: string[];
  categories: string[];
  extensionKind?: string[];
  activationEvents: string[];
  contributes: { languageModelTools: { name: string; toolReferenceName: string }[]; menus: { commandPalette: { command: string; when: string }[] } };
}

const manifest = JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as Manifest;

/** The extension manifest's marketplace side (issue 26): what the VSIX's listing and activation rely on. */
describe('marketplace manifest', () => {
  it('has a repository, keywords, categories and a 256 px PNG icon', () => {
    assert.match(manifest.repository?.url ?? '', /^https:\/\/github\.com\//);
    assert.ok((manifest.keywords ?? []).length >= 5);
    assert.ok(manifest.categories.includes('AI'));
    const icon = fs.readFileSync(path.join(repositoryRoot, manifest.icon));
    assert.equal(icon.toString('latin1', 1, 4), 'PNG');
    assert.deepEqual([icon.readUInt32BE(16), icon.readUInt32BE(20)], [256, 256]);
  });

  it('runs in the workspace and activates only with documents or on use, never in an empty window', () => {
    assert.deepEqual(manifest.extensionKind, ['workspace']);
    assert.ok(!manifest.activationEvents.includes('onStartupFinished') && !manifest.activationEvents.includes('*'), manifest.activationEvents.join(' '));
    const workspace = manifest.activationEvents.filter((event) => event.startsWith('workspaceContains:'));
    assert.ok(workspace.some((event) => /\{[^}]*\bmd\b[^}]*\bpdf\b[^}]*\bdocx\b/.test(event)), workspace.join(' '));
  });

  it('hides Open PDF Viewer from the command palette, where it has no file to open', () => {
    assert.ok(manifest.contributes.menus.commandPalette.some((entry) => entry.command === 'haiku.openPdfViewer' && entry.when === 'false'));
  });

  it('the marketplace README lists every language-model tool; the CHANGELOG has this version', () => {
    const readme = fs.readFileSync(path.join(repositoryRoot, 'README.marketplace.md'), 'utf8');
    assert.equal(manifest.contributes.languageModelTools.length, 5);
    for (const tool of manifest.contributes.languageModelTools) {
      assert.ok(readme.includes(`\`${tool.name}\``) && readme.includes(`#${tool.toolReferenceName}`), tool.name);
    }
    // Links must resolve inside the VSIX or on the web: no relative links to files the VSIX leaves out.
    assert.deepEqual([...readme.matchAll(/\]\((?!https:\/\/|#)([^)]+)\)/g)].map((match) => match[1]), []);
    assert.match(fs.readFileSync(path.join(repositoryRoot, 'CHANGELOG.md'), 'utf8'), new RegExp(`^## ${manifest.version.replace(/\./g, '\\.')}$`, 'm'));
  });
});
