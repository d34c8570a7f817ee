/**
 * The options of flags that set a configuration path, built from their `SETTINGS_TABLE` row: a flag's syntax and
 * help are written once, in the table, and every command that takes it shows the same.
 */
import { SETTINGS_TABLE, type SettingFlag } from '../../core/settingsTable';
import type { CliOption } from './command';

/** The table's flag of that name (long name without dashes); a name no row declares is a programming error. */
export function settingFlag(name: string): SettingFlag {
  const flag = SETTINGS_TABLE.find((row) => row.flag?.name === name)?.flag;
  if (!flag) {
    // A programming error caught at load time by every CLI test, not a user's mistake: no HaikuError code.
    throw new Error(`No row of SETTINGS_TABLE declares the flag --${name}; add it to the row of the setting it sets.`);
  }
  return flag;
}

/** One option object per flag, so a test can tell the table's option from a hand-written copy of it. */
const SETTING_FLAG_OPTIONS = new Map<string, CliOption>();

/** The command option of a setting's flag (`--embeddings-model <name>` with the row's description and value check). */
export function settingFlagOption(name: string): CliOption {
  const known = SETTING_FLAG_OPTIONS.get(name);
  if (known) {
    return known;
  }
  const flag = settingFlag(name);
  const option: CliOption = Object.freeze({
    flags: flag.value ? `--${flag.name} ${flag.value}` : `--${flag.name}`,
    description: flag.description,
    ...(flag.check ? { value: flag.check } : {}),
  });
  SETTING_FLAG_OPTIONS.set(name, option);
  return option;
}
