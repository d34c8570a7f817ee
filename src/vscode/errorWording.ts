/**
 * How VS Code words an error's remedy: the real `haiku.*` setting, or the command to run (Set API Key for the
 * keys, which live in SecretStorage; Build or Rebuild Index). Pure (no `vscode` import), unit-tested.
 */
import type { ConfigPath } from '../core/config';
import { errorMessage, errorRemedy, type ErrorRemedy, type RemedyAction } from '../core/errors';
import { COMMANDS } from './contributionIds';
import { SECRET_PATHS, settingKeyOf } from './settingsMapping';
import { untranslated, type Translate } from './statusText';

/** A command a remedy runs, with the title the Command Palette shows (`Haiku: …`). */
export interface RemedyCommand {
  command: string;
  /** The command's title without the category, as in package.nls.json. */
  title: string;
}

export const SET_API_KEY_COMMAND: RemedyCommand = { command: COMMANDS.setApiKey, title: 'Set API Key' };

export const VSCODE_REMEDY_COMMANDS: Record<RemedyAction, RemedyCommand> = {
  build_index: { command: COMMANDS.buildIndex, title: 'Build Index' },
  rebuild_index: { command: COMMANDS.rebuildIndex, title: 'Rebuild Index' },
};

/** What fixes a configuration path in VS Code: its `haiku.*` setting, or a command for the secrets. */
export function vscodeSettingTarget(path: ConfigPath): { setting: string } | { command: RemedyCommand } | undefined {
  if (SECRET_PATHS.includes(path)) {
    return { command: SET_API_KEY_COMMAND };
  }
  const key = settingKeyOf(path);
  return key === undefined ? undefined : { setting: `haiku.${key}` };
}

export interface VscodeRemedy {
  /** One or two sentences naming the settings and the command. */
  text: string;
  /** The button that does it: the Settings editor at the first setting, or the command. */
  button: { command: string; title: string; arguments?: unknown[] };
}

/** The remedy in VS Code's terms, or undefined when there is none. */
export function vscodeRemedy(remedy: ErrorRemedy | undefined, t: Translate = untranslated): VscodeRemedy | undefined {
  if (!remedy) {
    return undefined;
  }
  const targets = (remedy.settings ?? []).map(vscodeSettingTarget).filter((target) => target !== undefined);
  const settings = [...new Set(targets.flatMap((target) => ('setting' in target ? [target.setting] : [])))];
  const commands = [...targets.flatMap((target) => ('command' in target ? [target.command] : [])), ...(remedy.action ? [VSCODE_REMEDY_COMMANDS[remedy.action]] : [])];
  const uniqueCommands = commands.filter((command, index) => commands.findIndex((other) => other.command === command.command) === index);
  const sentences: string[] = [];
  if (settings.length > 0) {
    sentences.push(settings.length === 1 ? t('Setting: {0}.', settings[0]) : t('Settings: {0}.', settings.join(', ')));
  }
  for (const command of uniqueCommands) {
    sentences.push(t('Run “Haiku: {0}”.', t(command.title)));
  }
  if (sentences.length === 0) {
    return undefined;
  }
  const button = settings.length > 0
    ? { command: 'workbench.action.openSettings', title: t('Open Setting'), arguments: [settings[0]] }
    : { command: uniqueCommands[0].command, title: t(uniqueCommands[0].title) };
  return { text: sentences.join(' '), button };
}

/** An error's message for VS Code: what happened, then the setting or command that fixes it. */
export function vscodeErrorText(error: unknown, t: Translate = untranslated): string {
  const remedy = vscodeRemedy(errorRemedy(error), t);
  return remedy ? `${errorMessage(error)} ${remedy.text}` : errorMessage(error);
}
