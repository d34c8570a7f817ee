import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repositoryRoot } from '../../support/paths';

/** Where `npm run package:all` / `package:npm` left their files: the repository root, or HAIKU_PACKAGE_DIR (CI artifacts). */
export const packageFolder = process.env.HAIKU_PACKAGE_DIR ?? repositoryRoot;

export function vsixPath(target: string): string {
  return path.join(packageFolder, `haiku-${target}.vsix`);
}

/** Builds the VSIX files of `targets` that are not there yet (`npm test` builds them all before mocha). */
export function ensureVsixFiles(targets: readonly string[]): void {
  const missing = targets.filter((target) => !fs.existsSync(vsixPath(target)));
  if (missing.length > 0) {
    execFileSync(process.execPath, [path.join(repositoryRoot, 'scripts/packageVsix.mjs'), ...missing.flatMap((target) => ['--target', target])], { cwd: repositoryRoot, stdio: 'inherit' });
  }
}

/** The CLI's npm tarball, built when missing. */
export function ensureNpmTarball(): string {
  const { version } = JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as { version: string };
  const tarball = path.join(packageFolder, `haiku-rag-cli-${version}.tgz`);
  if (!fs.existsSync(tarball)) {
    execFileSync(process.execPath, [path.join(repositoryRoot, 'scripts/packageNpm.mjs')], { cwd: repositoryRoot, stdio: 'inherit' });
  }
  return tarball;
}
