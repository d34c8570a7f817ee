import * as path from 'node:path';
import { HaikuError } from '../../../core/errors';
import { findConfigFile } from '../../config/cliConfig';
import { readTrustedEndpoints, trustEndpoint, trustFilePath, trustKeyOf } from '../../config/endpointTrust';
import { booleanFlag, stringFlag, type CliCommand } from '../command';

/**
 * `haiku trust <base-url>`: lets the user's API keys (HAIKU_*_API_KEY, --api-key) go to a server the project's
 * haiku.config.json names. Recorded per config file in a user-level file the project cannot write.
 */
export const trustCommand: CliCommand = {
  name: 'trust',
  arguments: [{ syntax: '[base-url]', description: "A base URL from the project's haiku.config.json (its origin is trusted). Without one, lists what is trusted." }],
  summary: "Let your API keys go to a server the project's haiku.config.json names",
  description:
    "Your API keys (HAIKU_*_API_KEY variables, --api-key) go only to base URLs you named yourself (flags, variables, defaults). A base URL set by the project's haiku.config.json (found from the current folder upwards, or --config) gets them only after `haiku trust <base-url>`: the URL's origin is then trusted for that file, in a file under $XDG_CONFIG_HOME/haiku (default ~/.config/haiku).",
  options: [{ flags: '--remove', description: 'Stop trusting the base URL\'s origin for this config file.' }],
  examples: ['haiku trust https://models.example.com/v1', 'haiku trust', 'haiku trust --remove https://models.example.com/v1'],
  async run(context) {
    const given = stringFlag(context, 'config');
    const configFile = given !== undefined ? path.resolve(context.io.cwd, given) : findConfigFile(context.io.cwd);
    if (configFile === undefined) {
      throw new HaikuError('not_found', 'No haiku.config.json in this folder or above it, so there is nothing to trust: base URLs you give with flags or HAIKU_* variables already get your keys. Run this in the project, or name its file with --config.');
    }
    const [baseUrl] = context.positionals;
    if (baseUrl === undefined) {
      const origins = readTrustedEndpoints(context.io.env).trusted[trustKeyOf(configFile)] ?? [];
      context.io.stdout(origins.length === 0 ? `Nothing is trusted for ${configFile}.\n` : `Trusted for ${configFile} (${trustFilePath(context.io.env)}):\n${origins.map((origin) => `  ${origin}\n`).join('')}`);
      return 0;
    }
    const remove = booleanFlag(context, 'remove');
    const { origin, trustFile } = trustEndpoint(context.io.env, configFile, baseUrl, { remove });
    context.io.stdout(
      remove
        ? `${origin} is no longer trusted for ${configFile}: your API keys stay away from the base URLs this file sets there (${trustFile}).\n`
        : `Trusted ${origin} for ${configFile}: your API keys may now go to the base URLs this file sets there. Recorded in ${trustFile}.\n`,
    );
    return 0;
  },
};
