/**
 * The CLI's configuration, in layers: defaults < `haiku.config.json` (from the current folder upwards, or
 * `--config <file>`) < environment variables < flags. Every command reads its settings from here, so a flag, a
 * variable and a config key for the same thing always mean the same.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { defaultConfig, setConfigValue, type ConfigPath, type HaikuConfig } from '../../core/config';
import { applyConfigValues, CONFIG_FILE_NAME, parseConfigFile, type ConfigFileValues } from '../../core/configFile';
import { HaikuError } from '../../core/errors';
import { DEFAULT_DATABASE_FOLDER } from '../../core/limits';
import { SETTINGS_TABLE } from '../../core/settingsTable';
import type { CommandContext } from '../cli/command';
import { withholdUntrustedKeys, type ConfigLayer } from './endpointTrust';

/** Environment variables the CLI reads, each setting one configuration path (from `SETTINGS_TABLE`; an empty value counts as unset). */
export const ENVIRONMENT_SETTINGS: Readonly<Record<string, ConfigPath>> = Object.fromEntries(SETTINGS_TABLE.flatMap((row) => (row.env ? [[row.env, row.path] as const] : [])));

/** Flags (long name without dashes) that set a configuration path, from `SETTINGS_TABLE`; only the flags a command declares apply to it. */
export const FLAG_SETTINGS: Readonly<Record<string, ConfigPath>> = Object.fromEntries(SETTINGS_TABLE.flatMap((row) => (row.flag ? [[row.flag.name, row.path] as const] : [])));

/** The flag and the variable that set a path, for messages that tell the user how to set it themselves. */
const CLI_SPELLINGS = {
  flagOf: (configPath: ConfigPath) => Object.keys(FLAG_SETTINGS).find((name) => FLAG_SETTINGS[name] === configPath),
  environmentOf: (configPath: ConfigPath) => Object.keys(ENVIRONMENT_SETTINGS).find((name) => ENVIRONMENT_SETTINGS[name] === configPath),
};

/** A flag that names an embedding model or a reranker also switches it on (the file may leave the provider `none`). */
const FLAG_IMPLIES: Readonly<Record<string, { path: ConfigPath; value: unknown } | undefined>> = {
  'embeddings-model': { path: 'embeddings.provider', value: 'openai' },
  'reranker-url': { path: 'reranker.provider', value: 'http' },
};

export interface CliConfigSources {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Parsed flags by long name; undefined ones were not given. */
  flags: Record<string, unknown>;
}

export interface ResolvedCliConfig {
  config: HaikuConfig;
  /** The config file that was read, if any. */
  file?: string;
  /** The layer each set path came from (a path not here has its default). */
  layers: Map<ConfigPath, ConfigLayer>;
}

/** `haiku.config.json` in `folder` or the nearest folder above it. */
export function findConfigFile(folder: string): string | undefined {
  for (let current = path.resolve(folder); ; current = path.dirname(current)) {
    const candidate = path.join(current, CONFIG_FILE_NAME);
    if (fs.existsSync(candidate)) {
      return candidate;
    }
    if (path.dirname(current) === current) {
      return undefined;
    }
  }
}

/** Reads and validates a config file; a relative `index.database` is taken from the file's folder. */
export function readConfigFile(file: string): ConfigFileValues {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new HaikuError('not_found', `Cannot read the config file ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)}). Check the path given to --config.`, { cause: error });
  }
  return parseConfigFile(text, file, (relativePath) => path.resolve(path.dirname(file), relativePath));
}

/** The layered configuration for one invocation. */
export function resolveCliConfig(sources: CliConfigSources): ResolvedCliConfig {
  const config = defaultConfig();
  const layers = new Map<ConfigPath, ConfigLayer>();
  const given = sources.flags.config;
  const file = typeof given === 'string' ? path.resolve(sources.cwd, given) : findConfigFile(sources.cwd);
  if (file !== undefined) {
    const values = readConfigFile(file);
    // A project's file is found from its subfolders too: its index is the project's, not one per working folder.
    values['index.databaseUri'] ??= path.resolve(path.dirname(file), DEFAULT_DATABASE_FOLDER);
    applyConfigValues(config, values);
    for (const configPath of Object.keys(values) as ConfigPath[]) {
      layers.set(configPath, 'file');
    }
  }
  for (const [name, configPath] of Object.entries(ENVIRONMENT_SETTINGS)) {
    const value = sources.env[name];
    if (value !== undefined && value !== '') {
      setConfigValue(config, configPath, value);
      layers.set(configPath, 'environment');
    }
  }
  for (const [name, configPath] of Object.entries(FLAG_SETTINGS)) {
    const given = sources.flags[name];
    // A repeatable flag (`--db`) sets the path from its first value; commands that take several read the list.
    const value = Array.isArray(given) ? given[0] : given;
    // Boolean flags are only ever switched on: absent means "not given", never false.
    if (value !== undefined && value !== false) {
      setConfigValue(config, configPath, value);
      layers.set(configPath, 'flag');
      const implied = FLAG_IMPLIES[name];
      if (implied) {
        setConfigValue(config, implied.path, implied.value);
        layers.set(implied.path, 'flag');
      }
    }
  }
  withholdUntrustedKeys(config, layers, { configFile: file, env: sources.env, defaults: defaultConfig(), spellings: CLI_SPELLINGS });
  return { config, file, layers };
}

const resolved = new WeakMap<CommandContext['flags'], ResolvedCliConfig>();

/** The layered configuration of a running command, resolved once per invocation. */
export function commandConfig(context: Pick<CommandContext, 'flags' | 'io'>): HaikuConfig {
  return resolvedCommandConfig(context).config;
}

/** The project config file a running command read (`--config`, or found upward from the working folder), if any. */
export function commandConfigFile(context: Pick<CommandContext, 'flags' | 'io'>): string | undefined {
  return resolvedCommandConfig(context).file;
}

function resolvedCommandConfig(context: Pick<CommandContext, 'flags' | 'io'>): ResolvedCliConfig {
  let entry = resolved.get(context.flags);
  if (!entry) {
    entry = resolveCliConfig({ cwd: context.io.cwd, env: context.io.env, flags: context.flags });
    resolved.set(context.flags, entry);
  }
  return entry;
}
