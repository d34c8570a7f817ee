import { HaikuError } from '../../core/errors';
import { REMOTE_VERSION_CHECK_INTERVAL_MS } from '../../core/limits';
import { parseDocumentFilter } from '../../core/search/documentFilter';
import type { Embedder } from '../../core/embeddings/embedder';
import type { Reranker } from '../../core/search/reranker';
import { createEmbedder } from '../embeddings/createEmbedder';
import type { IndexSummary } from '../index/indexer';
import { createReranker } from '../search/httpReranker';
import { resolveDatabaseUri, type LanceStore } from '../store/lanceStore';
import { openIndex, type OpenedIndex } from '../backend/openIndex';
import { DatabaseSet, namedDatabases, type NamedDatabase } from '../store/databaseSet';
import { storageSettingsFromEnvironment, type ObjectStorageSettings } from '../store/objectStorage';
import { listFlag, stringFlag, UsageError, type CliOption, type CommandContext } from './command';
import { settingFlagOption } from './settingFlags';
import { terminalSafeJson } from './terminalText';
import type { PictureProcessing } from '../convert/convertFile';
import { commandConfig, commandConfigFile } from '../config/cliConfig';
import { storageKeysRefusal } from '../config/endpointTrust';
import type { PictureDescriptionSettings } from '../index/pictureDescriptions';

/** `--db`: which index a command opens. */
export const DATABASE_OPTION: CliOption = settingFlagOption('db');

/** `--json`: machine-readable output on stdout. */
export const JSON_OPTION: CliOption = { flags: '--json', description: 'Print JSON instead of text (for scripts).' };

/** Flags for `--db s3://…`; the AWS environment variables fill what is left out (README "Team index"). */
export const STORAGE_OPTIONS: readonly CliOption[] = ['endpoint', 'region', 'path-style', 'allow-http'].map(settingFlagOption);

/** `--read-only`: open the index without ever writing (a published team index). */
export const READ_ONLY_OPTION: CliOption = { flags: '--read-only', description: 'Open the index read-only: never create, lock or optimize it (for a team index others publish).' };

/** Flags every index command takes. */
export const DATABASE_OPTIONS: readonly CliOption[] = [DATABASE_OPTION, JSON_OPTION, ...STORAGE_OPTIONS, READ_ONLY_OPTION];

/**
 * Endpoint, region and style from the storage flags; keys come from the environment only (never a flag: shells keep
 * history), and not at all to an endpoint only the project file names until the user trusts it (`keysWithheld`).
 */
export function storageSettingsFromFlags(context: CommandContext): ObjectStorageSettings {
  // Flags, then the AWS variables, then the config file's `index.storage`.
  const environment = storageSettingsFromEnvironment(context.io.env);
  const configured = commandConfig(context).index.storage;
  const userEndpoint = stringFlag(context, 'endpoint') ?? environment.endpoint;
  const endpoint = userEndpoint ?? (configured.endpoint || undefined);
  const keyNames = (['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'] as const).filter((name) => (context.io.env[name] ?? '') !== '');
  const keysWithheld = storageKeysRefusal({ endpoint: endpoint ?? '', endpointFromFile: userEndpoint === undefined, keyNames, configFile: commandConfigFile(context), env: context.io.env });
  return {
    ...environment,
    ...(keysWithheld ? { accessKeyId: undefined, secretAccessKey: undefined, sessionToken: undefined, keysWithheld } : {}),
    endpoint,
    region: stringFlag(context, 'region') ?? environment.region ?? (configured.region || undefined),
    pathStyle: context.flags['path-style'] === true ? true : environment.pathStyle ?? configured.pathStyle,
    allowHttp: context.flags['allow-http'] === true ? true : environment.allowHttp ?? configured.allowHttp,
  };
}

/** Flags of commands that embed (index, rebuild, search, ask): an OpenAI-compatible embeddings server. */
export const EMBEDDING_OPTIONS: readonly CliOption[] = ['embeddings-url', 'embeddings-model'].map(settingFlagOption);

/** `--pictures` and its vision endpoint: what indexing keeps of pictures (config `processing.pictures`, `processing.pictureDescription`). */
export const PICTURES_OPTIONS: readonly CliOption[] = ['pictures', 'picture-model', 'picture-base-url'].map(settingFlagOption);

/** The pictures mode (`--pictures`, else the config file's `processing.pictures`); anything but `image`, `none` or `description` is a usage error. */
export function picturesFromFlags(context: CommandContext): PictureProcessing {
  const mode = stringFlag(context, 'pictures');
  if (mode !== undefined && mode !== 'image' && mode !== 'none' && mode !== 'description') {
    throw new UsageError(`--pictures takes 'image', 'none' or 'description', got '${mode}'.`);
  }
  return commandConfig(context).processing.pictures;
}

/** The vision endpoint of `--pictures description` (flags, `HAIKU_PICTURE_API_KEY`, the config file); the key never on the command line. */
export function pictureDescriptionFromFlags(context: CommandContext): PictureDescriptionSettings {
  return commandConfig(context).processing.pictureDescription;
}

/** `--filter`: a SQL condition over the documents table. */
export const FILTER_OPTION: CliOption = {
  flags: '--filter <sql>',
  description: "Only documents matching this SQL condition over id, uri, relative_path, title, format, metadata, e.g. \"relative_path LIKE 'guides/%'\".",
};

/**
 * The `--filter` value checked as a whole SQL condition (`parseDocumentFilter`), or undefined when not given.
 * An empty or blank filter is an error in every command rather than "no filter" in some and a LanceDB error in others.
 */
export function filterFlag(context: CommandContext): string | undefined {
  const filter = stringFlag(context, 'filter');
  if (filter === undefined) {
    return undefined;
  }
  if (filter.trim() === '') {
    throw new HaikuError('invalid_filter', `The filter is empty. Give a SQL condition over the documents, e.g. --filter "format = 'pdf'", or leave --filter out.`);
  }
  return parseDocumentFilter(filter);
}

/**
 * The `--filter` value checked against the index itself (columns and SQL that only LanceDB can judge), for
 * commands that would otherwise find out only after spending model requests.
 */
export async function checkedFilter(context: CommandContext, store: LanceStore): Promise<string | undefined> {
  const filter = filterFlag(context);
  if (filter !== undefined) {
    await store.listDocuments({ filter, abortSignal: context.abortSignal });
  }
  return filter;
}

/** `--quiet`: no progress output. */
export const QUIET_OPTION: CliOption = { flags: '--quiet', description: 'Print no progress, only the summary.' };

/** The index (`--db`, `HAIKU_DB`, the config file's `index.database`, else `.haiku/`) resolved against the command's folder; commands with one index take one `--db`. */
export function databaseLocation(context: CommandContext): string {
  if ((listFlag(context, 'db') ?? []).length > 1) {
    throw new UsageError('This command works on one index: give --db once (only `haiku search` searches several).');
  }
  return resolveDatabaseUri(commandConfig(context).index.databaseUri, context.io.cwd);
}

/** Every `--db` (`name=uri` or a bare folder/URI), resolved; one default database when none is given. */
export function databaseLocations(context: CommandContext): NamedDatabase[] {
  const config = commandConfig(context);
  // Without --db: the configured index and the config file's `index.additional_databases`, as VS Code searches them.
  const configured = [config.index.databaseUri, ...Object.entries(config.index.additionalDatabases).map(([name, uri]) => `${name}=${uri}`)];
  return namedDatabases(listFlag(context, 'db') ?? configured).map((database) => ({ ...database, uri: resolveDatabaseUri(database.uri, context.io.cwd) }));
}

/** Opens each database (all must exist) as a `DatabaseSet`, runs `work`, and closes them all. */
export async function withDatabaseSet<T>(context: CommandContext, options: CommandStoreOptions, work: (set: DatabaseSet) => Promise<T>): Promise<T> {
  const opened: Array<{ name: string; index: OpenedIndex }> = [];
  try {
    for (const database of databaseLocations(context)) {
      opened.push({ name: database.name, index: await openCommandIndex(context, { ...options, databaseUri: database.uri }) });
    }
    return await work(new DatabaseSet(opened.map(({ name, index }) => ({ name, store: index.store }))));
  } finally {
    await Promise.all(opened.map((database) => database.index.close()));
  }
}

/** The embedder the configuration names (`--embeddings-model` switches one on), or none. */
export function embedderFromFlags(context: CommandContext): Embedder | undefined {
  return createEmbedder(commandConfig(context).embeddings);
}

/** `--reranker-url` and `--reranker-model`: an HTTP reranker applied to search hits (also from the config file). */
export const RERANKER_OPTIONS: readonly CliOption[] = ['reranker-url', 'reranker-model'].map(settingFlagOption);

/** The reranker the configuration names (`--reranker-url` switches one on), or none. */
export function rerankerFromFlags(context: CommandContext): Reranker | undefined {
  return createReranker(commandConfig(context).reranker);
}

export interface CommandStoreOptions {
  embedder?: Embedder;
  reranker?: Reranker;
  /** Only `index` may create an index; every other command needs one to exist. */
  createIfMissing?: boolean;
  /** The command makes one request of the index and exits (`OpenStoreOptions.transient`). */
  transient?: boolean;
}

/** True when `--read-only` was given. */
export function readOnlyFlag(context: CommandContext): boolean {
  return context.flags['read-only'] === true || commandConfig(context).index.mode === 'remote-readonly';
}

/**
 * The command's index, opened by the backend from the layered configuration (file < environment < flags) with the
 * storage flags and `--read-only`; `databaseUri` picks one of several `--db`.
 */
export function openCommandIndex(context: CommandContext, options: CommandStoreOptions & { databaseUri?: string; followOtherWriters?: boolean } = {}): Promise<OpenedIndex> {
  return openIndex({
    config: commandConfig(context),
    cwd: context.io.cwd,
    databaseUri: options.databaseUri ?? databaseLocation(context),
    mustExist: !options.createIfMissing,
    readOnly: readOnlyFlag(context),
    storage: storageSettingsFromFlags(context),
    models: { embedder: options.embedder, reranker: options.reranker },
    followOtherWriters: options.followOtherWriters,
    transient: options.transient,
    // A long-lived reader (`haiku mcp`) of a published bucket asks for a newer version once per interval, not per tool call.
    versionCheckIntervalMs: options.followOtherWriters ? REMOTE_VERSION_CHECK_INTERVAL_MS : undefined,
    abortSignal: context.abortSignal,
  });
}

/** Runs `work` with the command's opened index (store, models, rules) and always closes it. */
export async function withIndex<T>(context: CommandContext, options: CommandStoreOptions, work: (index: OpenedIndex) => Promise<T>): Promise<T> {
  const index = await openCommandIndex(context, options);
  try {
    return await work(index);
  } finally {
    await index.close();
  }
}

export async function openCommandStore(context: CommandContext, options: CommandStoreOptions = {}): Promise<LanceStore> {
  return (await openCommandIndex(context, options)).store;
}

/** Runs `work` with an open store and always closes it. */
export function withStore<T>(context: CommandContext, options: CommandStoreOptions, work: (store: LanceStore) => Promise<T>): Promise<T> {
  return withIndex(context, options, (index) => work(index.store));
}

export function wantsJson(context: CommandContext): boolean {
  return context.flags.json === true;
}

/** `--json` output: control characters in strings stay escaped (`\u001b`), never raw. */
export function printJson(context: CommandContext, value: unknown): void {
  context.io.stdout(terminalSafeJson(value) + '\n');
}

export function summaryText(summary: IndexSummary): string {
  const lines = [
    `Added ${summary.added.length}, updated ${summary.updated.length}, unchanged ${summary.unchanged}, removed ${summary.removed.length}, failed ${summary.failed.length} (${summary.chunksWritten} chunks written in ${(summary.durations.totalMs / 1000).toFixed(1)} s).`,
  ];
  for (const failure of summary.failed) {
    lines.push(`  failed: ${failure.reason}`);
  }
  if (summary.linksOutside.length > 0) {
    lines.push(`Skipped ${summary.linksOutside.length} linked file${summary.linksOutside.length === 1 ? '' : 's'} pointing outside the indexed folders (index them with --follow-links-outside):`);
    for (const link of summary.linksOutside.slice(0, 20)) {
      lines.push(`  ${link.path} -> ${link.target}`);
    }
    if (summary.linksOutside.length > 20) {
      lines.push(`  … and ${summary.linksOutside.length - 20} more`);
    }
  }
  return lines.join('\n') + '\n';
}

/** `path:line`, `path (page n)` or the path: the documents module's location text, as the CLI commands print it. */
export { locationText } from '../../core/documents/documentAccess';

/** One line of whitespace-collapsed text, cut at `width` characters. */
export function snippet(text: string, width = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
}
