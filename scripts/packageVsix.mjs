// Builds platform-specific VSIX files: `node scripts/packageVsix.mjs` for this machine's target (what `npm run
// package` and `npm run test:ui` use), `--all` for every target in packageTargets.mjs, `--target <t>` (repeatable)
// for chosen ones. Each target is staged in .cache/vsix/<target>/ (the manifest, the marketplace README, media and a
// self-contained dist/ carrying only that target's LanceDB addon) and packed from there by vsce, so the repository's
// own dist/ (what the tests and other builds use) is never touched. Other platforms' addons come from
// `npm pack @lancedb/lancedb-<suffix>@0.31.0`, cached in .cache/natives/. @napi-rs/canvas (pdf.js renders PDF figures
// and scanned pages into it) loads its per-platform binary by package name, so it is not bundled: the target's
// @napi-rs/canvas-<suffix> and canvas's own loader are placed in dist/node_modules/@napi-rs/, where the bundles'
// `require('@napi-rs/canvas')` finds them (vsce --no-dependencies leaves out only the top-level node_modules/). Targets are packed `--jobs N` at a time
// (default: half the cores, at least 2: two at a time took 56 s for two targets on 2 cores, one at a time ~120 s).
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CANVAS_SUFFIX_BY_TARGET, CANVAS_VERSION, hostTarget, LANCEDB_SUFFIX_BY_TARGET, LANCEDB_VERSION, PACKAGE_TARGETS } from './packageTargets.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const nativesCache = path.join(root, '.cache', 'natives');
const stagingRoot = path.join(root, '.cache', 'vsix');
/** What the VSIX holds besides dist/ (.vscodeignore filters the staging folder the same way as the repository). */
const STAGED_FILES = ['package.json', 'package.nls.json', 'LICENSE', 'CHANGELOG.md', '.vscodeignore'];
const STAGED_FOLDERS = ['media', 'schemas'];

function chosenTargets(argv) {
  if (argv.includes('--all')) {
    return PACKAGE_TARGETS;
  }
  const named = argv.flatMap((argument, index) => (argv[index - 1] === '--target' ? [argument] : []));
  if (named.length > 0) {
    for (const target of named) {
      if (!PACKAGE_TARGETS.includes(target)) {
        throw new Error(`Unknown target '${target}'; Haiku packages ${PACKAGE_TARGETS.join(', ')}.`);
      }
    }
    return named;
  }
  const host = hostTarget();
  if (host === undefined) {
    throw new Error(`No VSIX target for ${process.platform}-${process.arch} (LanceDB ${LANCEDB_VERSION} has no build for it); name one with --target.`);
  }
  return [host];
}

/** The unpacked @lancedb/lancedb-<suffix> package for `target`: the installed one when it matches, else from npm. */
function lancedbNativeFolder(target) {
  return npmPackageFolder(`@lancedb/lancedb-${LANCEDB_SUFFIX_BY_TARGET[target]}`, LANCEDB_VERSION, path.join(nativesCache, target, 'lancedb'));
}

/**
 * The unpacked npm package `name@version`: the installed one when its version matches, else the one unpacked in
 * `unpacked` earlier, else `npm pack`ed into .cache/natives/ and unpacked there.
 */
function npmPackageFolder(name, version, unpacked) {
  const installed = path.join(root, 'node_modules', ...name.split('/'));
  if (packageVersion(installed) === version) {
    return installed;
  }
  if (packageVersion(unpacked) === version) {
    return unpacked;
  }
  fs.mkdirSync(nativesCache, { recursive: true });
  // npm pack names `@scope/name@1.0.0` scope-name-1.0.0.tgz.
  const tarball = path.join(nativesCache, `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`);
  if (!fs.existsSync(tarball)) {
    console.log(`package: npm pack ${name}@${version}`);
    execFileSync(npmCommand(), ['pack', `${name}@${version}`, '--silent'], { cwd: nativesCache, stdio: ['ignore', 'ignore', 'inherit'], shell: process.platform === 'win32' });
  }
  fs.rmSync(unpacked, { recursive: true, force: true });
  fs.mkdirSync(unpacked, { recursive: true });
  // npm tarballs hold everything under package/.
  execFileSync('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1'], { stdio: 'inherit' });
  return unpacked;
}

/**
 * Puts @napi-rs/canvas and `target`'s @napi-rs/canvas-<suffix> into the staged dist/node_modules/@napi-rs/: only what
 * loads (manifest, scripts, the binary, licence), no README, typings or SBOM.
 */
function stageCanvas(target, staging) {
  const binaryName = `@napi-rs/canvas-${CANVAS_SUFFIX_BY_TARGET[target]}`;
  const packages = [
    ['@napi-rs/canvas', npmPackageFolder('@napi-rs/canvas', CANVAS_VERSION, path.join(nativesCache, 'canvas'))],
    [binaryName, npmPackageFolder(binaryName, CANVAS_VERSION, path.join(nativesCache, target, 'canvas'))],
  ];
  for (const [name, folder] of packages) {
    const destination = path.join(staging, 'dist', 'node_modules', ...name.split('/'));
    fs.mkdirSync(destination, { recursive: true });
    for (const file of fs.readdirSync(folder)) {
      if (file === 'package.json' || /^licen[cs]e/i.test(file) || file.endsWith('.js') || file.endsWith('.node')) {
        fs.copyFileSync(path.join(folder, file), path.join(destination, file));
      }
    }
  }
}

function packageVersion(folder) {
  try {
    return JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

function npmCommand() {
  return process.platform === 'win32' ? 'npm.cmd' : 'npm';
}

function stage(target) {
  const staging = path.join(stagingRoot, target);
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  for (const file of STAGED_FILES) {
    fs.copyFileSync(path.join(root, file), path.join(staging, file));
  }
  for (const folder of STAGED_FOLDERS) {
    fs.cpSync(path.join(root, folder), path.join(staging, folder), { recursive: true });
  }
  // Users read the marketplace README; README.md in the repository is the contributors' guide.
  fs.copyFileSync(path.join(root, 'README.marketplace.md'), path.join(staging, 'README.md'));
  return staging;
}

/** Runs node with `args`, output passed through; rejects on a non-zero exit. */
function runNode(args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: 'inherit' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`node ${args.map((arg) => path.basename(arg)).join(' ')} exited with ${code}`))));
  });
}

async function packageTarget(target) {
  const started = Date.now();
  const natives = lancedbNativeFolder(target);
  const staging = stage(target);
  stageCanvas(target, staging);
  await runNode([
    path.join(root, 'esbuild.mjs'), '--production', '--self-contained',
    `--native-target=${target}`, `--natives=${natives}`, `--outdir=${path.join(staging, 'dist')}`,
  ], root);
  const vsix = path.join(root, `haiku-${target}.vsix`);
  await runNode([path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--no-dependencies', '--target', target, '--out', vsix], staging);
  const megabytes = fs.statSync(vsix).size / 1024 / 1024;
  console.log(`package: ${path.basename(vsix)} ${megabytes.toFixed(1)} MB in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

function jobCount(argv) {
  const given = argv.indexOf('--jobs');
  const jobs = given >= 0 ? Number(argv[given + 1]) : Math.max(2, Math.floor(os.availableParallelism() / 2));
  return Number.isInteger(jobs) && jobs >= 1 ? jobs : 1;
}

const started = Date.now();
const argv = process.argv.slice(2);
const queue = [...chosenTargets(argv)];
const total = queue.length;
// Each worker takes the next target until none is left; a failure stops the run.
await Promise.all(Array.from({ length: Math.min(jobCount(argv), total) }, async () => {
  for (let target = queue.shift(); target !== undefined; target = queue.shift()) {
    await packageTarget(target);
  }
}));
console.log(`package: ${total} VSIX in ${((Date.now() - started) / 1000).toFixed(1)} s`);
