import * as assert from 'node:assert/strict';
import { SETTINGS_TABLE } from '../../../src/core/settingsTable';
import { cliCommands } from '../../../src/node/cli/cliCommands';
import { commandTable } from '../../../src/node/cli/commandTable';
import { settingFlagOption } from '../../../src/node/cli/settingFlags';
import { FLAG_SETTINGS } from '../../../src/node/config/cliConfig';

/** The long name of an option (`--db <folder or uri>` → `db`), without dashes. */
function longName(flags: string): string | undefined {
  return /(?:^|\s|,)--([\w-]+)/.exec(flags)?.[1];
}

// Issue 25: a flag that sets a configuration path takes its syntax and help from its SETTINGS_TABLE row only.
describe('CLI flag docs come from the settings table', () => {
  it('every flag of every command that sets a configuration path is the option settingFlagOption builds from its row', () => {
    let checked = 0;
    for (const command of cliCommands) {
      for (const option of command.options) {
        const name = longName(option.flags);
        if (name === undefined || !(name in FLAG_SETTINGS)) {
          continue;
        }
        // The same object, not an equal one: a hand-written copy of the text would drift from the table.
        assert.equal(option, settingFlagOption(name), `haiku ${command.name} --${name}: build it with settingFlagOption('${name}') instead of writing it by hand`);
        checked += 1;
      }
    }
    assert.ok(checked >= 40, `only ${checked} setting flags found across the commands`);
  });

  it("the option is the row's syntax, description and value check", () => {
    for (const row of SETTINGS_TABLE) {
      const flag = row.flag;
      if (!flag) {
        continue;
      }
      assert.ok(flag.description.trim().length > 0, `--${flag.name} has a description`);
      assert.equal(FLAG_SETTINGS[flag.name], row.path);
      assert.deepEqual(settingFlagOption(flag.name), {
        flags: flag.value ? `--${flag.name} ${flag.value}` : `--${flag.name}`,
        description: flag.description,
        ...(flag.check ? { value: flag.check } : {}),
      });
    }
    assert.deepEqual(settingFlagOption('db'), { flags: '--db <folder or uri>', description: settingFlagOption('db').description, value: 'repeatable' });
    assert.equal(settingFlagOption('limit').value, 'positive integer');
    assert.equal(settingFlagOption('thinking').flags, '--thinking');
  });

  it('the help-only command table of the small CLI entry carries the same text', () => {
    for (const command of commandTable(cliCommands)) {
      for (const option of command.options) {
        const name = longName(option.flags);
        if (name !== undefined && name in FLAG_SETTINGS) {
          assert.deepEqual(option, { ...settingFlagOption(name) }, `haiku ${command.name} --${name}`);
        }
      }
    }
  });

  it('every flag the table declares is taken by at least one command', () => {
    const taken = new Set(cliCommands.flatMap((command) => command.options.map((option) => longName(option.flags))));
    for (const name of Object.keys(FLAG_SETTINGS)) {
      assert.ok(taken.has(name), `--${name} is declared in SETTINGS_TABLE but no command takes it`);
    }
  });

  it('a flag no row declares is refused with the fix in the message', () => {
    assert.throws(() => settingFlagOption('no-such-flag'), /No row of SETTINGS_TABLE declares the flag --no-such-flag/);
  });
});
