// The files Haiku could not index, as a person sees them: a copy of samples/ with a corrupt PDF and an oversized
// Markdown file, the extension loaded from this checkout's dist/ (run `npm run build` first) into code-server, driven
// by headless Chromium (playwright-core). Reads the status item, the Problems panel's rows and the Sections view's
// "Not indexed (2)" node from the screen, and the one-time MCP server offer from the notifications; a screenshot of each.
// Usage: node e2e/ui-problems-e2e.js [--out DIR]. Prints `N passed, N failed`; exit code 0 when every step passed.
const { spawn, execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const os = require('os');
const here = __dirname;
const { chromium } = require(require.resolve('playwright-core', { paths: [path.join(here, 'harness')] }));

const option = (name) => { const index = process.argv.indexOf('--' + name); return index > 0 ? process.argv[index + 1] : undefined; };
const csEntry = process.env.CODE_SERVER_ENTRY || path.join(here, 'harness/node_modules/code-server/out/node/entry.js');
const nodeBin = process.env.CODE_SERVER_NODE || path.join(here, 'node24/node_modules/.bin/node');
const repository = path.resolve(here, '..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'haiku-ui-problems-'));
const userData = path.join(tmp, 'user-data');
const outDir = path.resolve(option('out') || path.join(repository, 'test-results', 'screenshots-problems'));
// A copy of the samples, so the broken files never touch the repository's fixture.
const workspace = path.join(tmp, 'workspace');
fs.cpSync(path.join(repository, 'samples'), workspace, { recursive: true });
fs.mkdirSync(path.join(workspace, 'problems'));
fs.writeFileSync(path.join(workspace, 'problems', 'broken.pdf'), `%PDF-1.7\n${'garbage '.repeat(200)}`);
// Over the default 50 MiB file size limit (big Markdown converts in segments, so text has no smaller share).
const line = 'An oversized note that is all text.\n';
fs.writeFileSync(path.join(workspace, 'problems', 'huge.md'), `# Huge\n\n${line.repeat(Math.ceil((51 * 1024 * 1024) / line.length))}`);
fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify({ 'workbench.startupEditor': 'none',
  'telemetry.telemetryLevel': 'off', 'extensions.autoUpdate': false, 'extensions.autoCheckUpdates': false,
  'security.workspace.trust.enabled': false }));
const env = { ...process.env, EXTENSIONS_GALLERY: '{}', XDG_CONFIG_HOME: path.join(tmp, 'config'), XDG_DATA_HOME: path.join(tmp, 'data'), TMPDIR: tmp };
const port = Number(execFileSync(process.execPath, ['-e', "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"]).toString().trim());
const serverLog = path.join(outDir, 'server.log');
// enable-smoke-test-driver: the built workbench reads extensionDevelopmentPath from the URL payload only with it.
const server = spawn(nodeBin, [csEntry, '--user-data-dir', userData, '--extensions-dir', path.join(tmp, 'extensions'), '--bind-addr', `127.0.0.1:${port}`,
  '--auth', 'none', '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override',
  '--ignore-last-opened', '--vscode-option', 'enable-smoke-test-driver'],
{ env, detached: true, stdio: ['ignore', fs.openSync(serverLog, 'w'), fs.openSync(serverLog, 'a')] });
const started = Date.now();
const elapsed = () => ((Date.now() - started) / 1000).toFixed(1) + 's';
const results = [];

async function step(page, name, action) {
  try {
    await action();
    results.push({ name, ok: true });
    console.log(`[${elapsed()}] PASS ${name}`);
  } catch (error) {
    results.push({ name, ok: false });
    console.log(`[${elapsed()}] FAIL ${name}: ${error.message.split('\n')[0]}`);
  }
  await page.screenshot({ path: path.join(outDir, name.replace(/\W+/g, '-') + '.png') }).catch(() => {});
}

(async () => {
  let browser;
  try {
    for (const end = Date.now() + 60000; ;) {
      try { if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) { break; } } catch { /* not up yet */ }
      if (Date.now() > end) { throw new Error('code-server did not start; see ' + serverLog); }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
    const page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
    const auth = `127.0.0.1:${port}`;
    const payload = [['extensionDevelopmentPath', `vscode-remote://${auth}${encodeURI(repository)}`], ['skipWelcome', 'true']];
    await page.goto(`http://${auth}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`, { timeout: 120000 });
    const runCommand = async (label) => {
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible', timeout: 10000 });
      await input.fill('>' + label);
      await page.waitForTimeout(600);
      await page.keyboard.press('Enter');
    };

    await step(page, 'status item warns of 2 files not indexed', async () => {
      const item = page.locator('.statusbar-item', { hasText: /not indexed/ }).first();
      await item.waitFor({ timeout: 360000 });
      const text = (await item.innerText()).trim();
      if (!/Haiku: \d+ documents · 2 not indexed/.test(text)) { throw new Error(`status item says "${text}"`); }
      console.log(`  status item: ${text}`);
    });
    await step(page, 'Problems panel lists the corrupt PDF and the oversized file', async () => {
      await runCommand('View: Focus Problems');
      const rows = page.locator('.markers-panel .monaco-list-row');
      await rows.filter({ hasText: 'maxFileSizeMB' }).first().waitFor({ timeout: 30000 });
      const texts = (await rows.allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim());
      console.log(`  Problems rows:\n    ${texts.join('\n    ')}`);
      for (const expected of [/broken\.pdf/, /huge\.md/, /Not indexed: .*broken\.pdf/, /Not indexed: .*huge\.md.*above the 50\.0 MB limit.*Setting: haiku\.index\.maxFileSizeMB/]) {
        if (!texts.some((text) => expected.test(text))) { throw new Error(`no row matches ${expected}`); }
      }
    });
    await step(page, 'Sections view shows Not indexed (2) with both files', async () => {
      await page.locator('.activitybar [aria-label^="Haiku"]').first().click({ timeout: 15000 });
      await page.locator('.monaco-list-row', { hasText: 'Not indexed (2)' }).first().waitFor({ timeout: 30000 });
      await page.locator('.monaco-list-row', { hasText: 'problems/broken.pdf' }).first().waitFor({ timeout: 10000 });
      const huge = page.locator('.monaco-list-row', { hasText: 'problems/huge.md' }).first();
      await huge.waitFor({ timeout: 10000 });
      await huge.locator('.monaco-tl-twistie').click();
      for (const action of ['Open File', 'Open Setting haiku.index.maxFileSizeMB', 'Retry', 'Show Log']) {
        await page.locator('.monaco-list-row', { hasText: action }).first().waitFor({ timeout: 10000 });
      }
    });
    await step(page, 'the MCP server is offered in a notification, not in a chat answer', async () => {
      await runCommand('Notifications: Show Notifications');
      await page.locator('.notifications-center .notification-list-item', { hasText: /serve them to MCP clients/ }).first().waitFor({ timeout: 20000 });
      await page.locator('.notifications-center .monaco-button', { hasText: 'Enable MCP Server' }).first().waitFor({ timeout: 5000 });
    });
  } catch (error) {
    console.log(`[${elapsed()}] FAIL setup: ${error.message}`);
    results.push({ name: 'setup', ok: false });
  } finally {
    await browser?.close().catch(() => {});
    try { process.kill(-server.pid, 'SIGTERM'); } catch { /* already gone */ }
    await new Promise((resolve) => setTimeout(resolve, 1500));
    try { process.kill(-server.pid, 'SIGKILL'); } catch { /* already gone */ }
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const failed = results.filter((result) => !result.ok).length;
  console.log(`screenshots in ${outDir}`);
  console.log(`${results.length - failed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
})();
