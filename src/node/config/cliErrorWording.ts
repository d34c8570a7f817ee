/**
 * How the command line words an error's remedy: the flags of the running command, the `HAIKU_*` variables and
 * the `haiku.config.json` keys that set what the error asks for, or the command to run.
 */
import { errorMessage, errorRemedy, type ErrorRemedy, type RemedyAction } from '../../core/errors';
import type { ConfigPath } from '../../core/config';
import { CONFIG_FILE_NAME, configFileKeyOf } from '../../core/configFile';
import type { CliOption } from '../cli/command';
import { ENVIRONMENT_SETTINGS, FLAG_SETTINGS } from './cliConfig';

/** The long names (without dashes) of a command's flags: `--db <folder>` gives `db`. */
export function flagNames(options: readonly CliOption[]): Set<string> {
  return new Set(options.map((option) => /--([a-z0-9-]+)/.exec(option.flags)?.[1]).filter((name): name is string => name !== undefined));
}

/** The CLI command each remedy action runs. */
export const CLI_REMEDY_COMMANDS: Record<RemedyAction, { command: string; text: string }> = {
  build_index: { command: 'index', text: 'Run `haiku index <folder>` to build it.' },
  rebuild_index: { command: 'rebuild', text: 'Run `haiku rebuild` to re-index everything.' },
};

/** Where a configuration path can be set on the command line: the command's flags, variables, the file key. */
export function cliSettingNames(path: ConfigPath, commandFlags: ReadonlySet<string>): { flags: string[]; environment: string[]; fileKey?: string } {
  const flags = Object.entries(FLAG_SETTINGS).filter(([name, target]) => target === path && commandFlags.has(name)).map(([name]) => `--${name}`);
  const environment = Object.entries(ENVIRONMENT_SETTINGS).filter(([, target]) => target === path).map(([name]) => name);
  return { flags, environment, fileKey: configFileKeyOf(path) };
}

/** The remedy as one sentence for the terminal, or undefined when there is none. */
export function cliRemedyText(remedy: ErrorRemedy | undefined, commandFlags: ReadonlySet<string>): string | undefined {
  if (!remedy) {
    return undefined;
  }
  const parts: string[] = [];
  const settings = (remedy.settings ?? []).map((path) => {
    const names = cliSettingNames(path, commandFlags);
    const places = [...names.flags, ...names.environment, ...(names.fileKey ? [`"${names.fileKey}" in ${CONFIG_FILE_NAME}`] : [])];
    return places.length > 1 ? `${places.slice(0, -1).join(', ')} or ${places[places.length - 1]}` : places[0];
  }).filter((text): text is string => text !== undefined);
  if (settings.length > 0) {
    parts.push(`Set it with ${settings.join('; and ')}.`);
  }
  if (remedy.action) {
    parts.push(CLI_REMEDY_COMMANDS[remedy.action].text);
  }
  return parts.length > 0 ? parts.join(' ') : undefined;
}

/** An error's message for the terminal: what happened, then how to fix it in CLI terms. */
export function cliErrorText(error: unknown, commandFlags: ReadonlySet<string>): string {
  const remedy = cliRemedyText(errorRemedy(error), commandFlags);
  return remedy ? `${errorMessage(error)} ${remedy}` : errorMessage(error);
}
