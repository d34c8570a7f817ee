/**
 * Every setting of Haiku, one row each: the one table the front ends' names come from. A row gives the
 * configuration path it sets and, for each front end that can set it, its name there: the `haiku.config.json`
 * key (with its `zod/mini` type and the description editors show), the VS Code setting (as package.json declares
 * it, with its English description), the CLI's environment variable and flag.
 *
 * Adding a setting: one row here, with its default, then `npm run generate:settings` (writes the settings' part of
 * the `HaikuConfig` type, src/core/configShape.generated.ts, with the row's type and optionality, package.json's
 * `contributes.configuration`, package.nls.json's `config.*` texts and schemas/haiku.config.schema.json;
 * `test/unit/core/settingsTable.test.ts` fails while they are stale). `defaultConfig()` reads the defaults here. The maps
 * the code reads (`CONFIG_FILE_KEYS`, `SETTING_PATHS`, `ENVIRONMENT_SETTINGS`, `FLAG_SETTINGS`) are built from the
 * table at run time. Pure data: the VS Code extension bundle reads it at activation.
 */
import * as z from 'zod/mini';
import type { ConfigPath } from './config';
import {
  DEFAULT_DATABASE_FOLDER,
  DEFAULT_EXCLUDE_GLOBS,
  DEFAULT_INCLUDE_GLOBS,
  DEFAULT_MODEL_BASE_URL,
  EMBEDDING_BATCH_SIZE,
  MAX_CONTEXT_CHARS,
  MAX_FILE_BYTES,
  QA_MAX_EXECUTIONS,
  QA_MAX_SEARCHES,
  QA_REQUEST_LIMIT,
  QA_TEMPERATURE,
  RERANK_POOL_FACTOR,
  SANDBOX_CODE_TIMEOUT_SECONDS,
  SANDBOX_MAX_OUTPUT_CHARS,
  SANDBOX_MEMORY_LIMIT_BYTES,
  SEARCH_DEFAULT_LIMIT,
} from './limits';

/** The Settings UI sections of the VS Code settings, in order, with their titles. */
export const VSCODE_SETTING_CATEGORIES = [
  { id: 'index', title: 'Indexing' },
  { id: 'model', title: 'Chat model' },
  { id: 'search', title: 'Search' },
  { id: 'embeddings', title: 'Embeddings' },
  { id: 'reranker', title: 'Reranker' },
  { id: 'qa', title: 'Question answering' },
  { id: 'sandbox', title: 'Analysis sandbox' },
] as const;

export type VscodeSettingCategory = (typeof VSCODE_SETTING_CATEGORIES)[number]['id'];

/** A `haiku.*` VS Code setting as package.json declares it (the generator writes the fields in this order). */
export interface VscodeSetting {
  /** The setting without its `haiku.` prefix. */
  key: string;
  category: VscodeSettingCategory;
  /** Its place in its category in the Settings UI. */
  order: number;
  type: 'string' | 'boolean' | 'integer' | 'number' | 'array' | 'object' | readonly ['integer' | 'boolean', 'null'];
  enum?: readonly string[];
  default: unknown;
  items?: { type: 'string' };
  /** An `object` setting's values (a map keyed by the user). */
  additionalProperties?: { type: 'string' };
  minimum?: number;
  maximum?: number;
  editPresentation?: 'multilineText';
  /** Omitted: VS Code's default (`window`). */
  scope?: 'machine-overridable' | 'resource' | 'machine' | 'application';
  /** English Markdown (package.nls.json); `#haiku.x.y#` links another setting. */
  description: string;
  /** One per `enum` value, in its order. */
  enumDescriptions?: readonly string[];
}

/** One setting: the configuration path and its name in each front end that can set it. */
export interface SettingRow {
  path: ConfigPath;
  /**
   * The configuration's default (what `defaultConfig()` gives; arrays and maps are copied). Absent: the setting is
   * unset by default, and optional in `HaikuConfig`. Only the first row of a path has one.
   */
  default?: unknown;
  /** Its `haiku.config.json` key (the specification's dotted name) and type; the description is the schema's. */
  file?: { key: string; schema: z.ZodMiniType };
  vscode?: VscodeSetting;
  /** The CLI's environment variable (an empty value counts as unset). */
  env?: string;
  /** The CLI flag and its help; only the commands that declare it take it (`settingFlagOption` builds their option). */
  flag?: SettingFlag;
}

/**
 * A setting's CLI flag as `haiku <command> --help` shows it. The commands build their option from here, so a flag's
 * syntax and help are written once (`test/unit/cli/flagDocs.test.ts` fails on a hand-written copy).
 */
export interface SettingFlag {
  /** Long name without dashes. */
  name: string;
  /** The value's placeholder (`<url>`); absent for a switch. */
  value?: string;
  /** The English help text. */
  description: string;
  /** How the value is checked at parse time (the CLI's `OptionValueKind`); absent: any text. */
  check?: 'number' | 'positive number' | 'positive integer' | 'repeatable';
}

const positiveInteger = (description: string) => z.int().check(z.positive(), z.describe(description));
const text = (description: string) => z.string().check(z.describe(description));
const flag = (description: string) => z.boolean().check(z.describe(description));
const globs = (description: string) => z.array(z.string()).check(z.describe(description));
const oneOf = <const Values extends readonly [string, ...string[]]>(values: Values, description: string) => z.enum(values).check(z.describe(description));
const baseUrl = text('Base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1 (Ollama).');
const apiKey = text("This server's API key, for a private file only: prefer the HAIKU_*_API_KEY variables. Your own keys (variables, flags) never go to a base URL this file sets unless you run `haiku trust <base-url>`.");

/**
 * Every setting. The order is the file's (its JSON schema and error hints list keys in it); VS Code orders by
 * `vscode.order` within a category. A path may have a second row for another file name (the analysis
 * specification's names of the sandbox limits); only the first row of a path names its other front ends.
 */
export const SETTINGS_TABLE: readonly SettingRow[] = [
  {
    path: 'index.databaseUri',
    default: DEFAULT_DATABASE_FOLDER,
    file: { key: 'index.database', schema: z.string().check(z.minLength(1), z.describe('The index: a folder (relative to this file) or a LanceDB URI such as s3://bucket/path.')) },
    vscode: {
      key: 'index.databaseUri', category: 'index', order: 8, type: 'string', default: '', scope: 'machine-overridable',
      description: 'Folder or LanceDB URI of the index. Empty: the workspace storage folder VS Code gives the extension.',
    },
    env: 'HAIKU_DB',
    flag: {
      name: 'db', value: '<folder or uri>', check: 'repeatable',
      description: 'The index: a folder or a LanceDB URI such as s3://bucket/path (or HAIKU_DB, or index.database in haiku.config.json; default: .haiku/ in the current folder). `haiku search` takes several (name=uri to label them).',
    },
  },
  {
    path: 'index.include',
    default: DEFAULT_INCLUDE_GLOBS,
    file: { key: 'index.include', schema: globs('Globs of the files to index.') },
    vscode: {
      key: 'index.include', category: 'index', order: 2, type: 'array', default: ['**/*.{md,markdown,mdx,html,htm,pdf,docx,odt,pptx,odp,xlsx,xlsm,ods,txt,rst,csv,tsv,ipynb,adoc,asciidoc}'], items: { type: 'string' },
      description: 'Glob patterns of the files to index, relative to each workspace folder. Source code (`.py`, `.ts`, `.go`, …) is indexed (as code blocks in its language) only when a pattern names it, e.g. `**/*.py`.',
    },
  },
  {
    path: 'index.exclude',
    default: DEFAULT_EXCLUDE_GLOBS,
    file: { key: 'index.exclude', schema: globs('Globs of files never indexed (replaces the default list).') },
    vscode: {
      key: 'index.exclude', category: 'index', order: 3, type: 'array', default: ['**/node_modules/**', '**/.git/**', '**/.haiku/**', '**/out/**', '**/dist/**'], items: { type: 'string' },
      description: 'Glob patterns never indexed (in addition to `.gitignore` when `#haiku.index.respectGitignore#` is on).',
    },
  },
  {
    path: 'index.mode',
    default: 'local',
    file: { key: 'index.mode', schema: oneOf(['local', 'remote-readonly'], "'remote-readonly': a team index others publish, never written here.") },
    vscode: {
      key: 'index.mode', category: 'index', order: 9, type: 'string', enum: ['local', 'remote-readonly'], default: 'local', scope: 'machine-overridable',
      description: '`local`: Haiku indexes the workspace into `#haiku.index.databaseUri#`. `remote-readonly`: a team index someone else publishes (e.g. `s3://bucket/prefix`, see README "Team index"); never written here, refreshed every few minutes and by **Haiku: Refresh Index**.',
      enumDescriptions: ['Index this workspace locally.', 'Search a published team index without ever writing it.'],
    },
  },
  {
    path: 'index.sourceRoot',
    default: '',
    file: { key: 'index.source_root', schema: text('Folder the stored document paths are relative to (publishing a team index).') },
    vscode: {
      key: 'index.sourceRoot', category: 'index', order: 10, type: 'string', default: '', scope: 'resource',
      description: 'For a read-only team index: the folder (relative to the workspace folder) that holds the same files as the publisher\'s source root. Citations open those files; files missing here open as a read-only rendering.',
    },
    flag: {
      name: 'source-root', value: '<folder>',
      description: 'Store paths relative to this folder (default: the current folder), so a published index resolves on every machine that has the same tree.',
    },
  },
  {
    path: 'index.additionalDatabases',
    default: {},
    file: { key: 'index.additional_databases', schema: z.record(z.string(), z.string()).check(z.describe('Other indexes searched together with this one: name → folder or LanceDB URI.')) },
    vscode: {
      key: 'index.additionalDatabases', category: 'index', order: 18, type: 'object', default: {}, additionalProperties: { type: 'string' }, scope: 'machine-overridable',
      description: 'Other indexes searched and cited together with this one, like `haiku search --db name=uri` repeated: a name (letters, digits, `.`, `_`, `-`) → an absolute folder or LanceDB URI, e.g. `{ "team": "/shared/team-index" }`. Opened read-only, never written; all must use the same embeddings model. Citations from one open its documents from that index.',
    },
  },
  {
    path: 'index.storage.endpoint',
    default: '',
    file: { key: 'index.storage.endpoint', schema: text('S3-compatible endpoint of an s3:// database, e.g. http://127.0.0.1:9000.') },
    vscode: {
      key: 'index.storage.endpoint', category: 'index', order: 11, type: 'string', default: '', scope: 'machine-overridable',
      description: 'S3-compatible server of an `s3://` index (MinIO, a local server: `http://127.0.0.1:9000`). Empty: AWS S3, or `AWS_ENDPOINT`. Keys: **Haiku: Set API Key** (object storage), or the AWS environment variables.',
    },
    flag: {
      name: 'endpoint', value: '<url>',
      description: 'S3-compatible server for an s3:// --db, e.g. http://127.0.0.1:9000 (default: AWS_ENDPOINT, else AWS itself).',
    },
  },
  {
    path: 'index.storage.region',
    default: '',
    file: { key: 'index.storage.region', schema: text('Region of an s3:// database.') },
    vscode: {
      key: 'index.storage.region', category: 'index', order: 12, type: 'string', default: '', scope: 'machine-overridable',
      description: 'Region of the `s3://` bucket. Empty: `AWS_REGION`, else `us-east-1` with a custom endpoint.',
    },
    flag: {
      name: 'region', value: '<name>',
      description: 'Region of the s3:// bucket (default: AWS_REGION; us-east-1 with --endpoint).',
    },
  },
  {
    path: 'index.storage.pathStyle',
    file: { key: 'index.storage.path_style', schema: flag('Path-style requests (most self-hosted S3 servers).') },
    vscode: {
      key: 'index.storage.pathStyle', category: 'index', order: 13, type: ['boolean', 'null'], default: null, scope: 'machine-overridable',
      description: 'Address the bucket as `endpoint/bucket` (most S3-compatible servers). Unset: on with a custom endpoint.',
    },
    flag: {
      name: 'path-style',
      description: 'Address the bucket as endpoint/bucket (default with --endpoint; AWS_VIRTUAL_HOSTED_STYLE_REQUEST=false).',
    },
  },
  {
    path: 'index.storage.allowHttp',
    file: { key: 'index.storage.allow_http', schema: flag('Allow plain HTTP to the endpoint (local servers).') },
    vscode: {
      key: 'index.storage.allowHttp', category: 'index', order: 14, type: ['boolean', 'null'], default: null, scope: 'machine-overridable',
      description: 'Allow a plain `http://` endpoint (local servers). Unset: on for `http://` endpoints.',
    },
    flag: {
      name: 'allow-http',
      description: 'Allow a plain http:// endpoint (local servers; AWS_ALLOW_HTTP=true).',
    },
  },
  {
    path: 'index.maxFileBytes',
    default: MAX_FILE_BYTES,
    file: { key: 'index.max_file_bytes', schema: positiveInteger('Files larger than this many bytes are skipped.') },
    vscode: {
      key: 'index.maxFileSizeMB', category: 'index', order: 6, type: 'integer', default: 50, minimum: 1,
      description: 'Files larger than this many megabytes are skipped (a big Markdown file is parsed in parts). Skipped files are listed in the Problems panel.',
    },
  },
  {
    path: 'index.respectGitignore',
    default: true,
    file: { key: 'index.respect_gitignore', schema: flag('Skip files that .gitignore files exclude.') },
    vscode: {
      key: 'index.respectGitignore', category: 'index', order: 5, type: 'boolean', default: true,
      description: 'Skip files that `.gitignore` ignores.',
    },
  },
  {
    path: 'index.followLinksOutside',
    default: false,
    file: { key: 'index.follow_links_outside', schema: flag('Index linked files whose target lies outside the indexed folders.') },
    vscode: {
      key: 'index.followLinksOutside', category: 'index', order: 7, type: 'boolean', default: false,
      description: 'Index files whose symbolic links point outside the indexed folders. Off: such links are skipped and reported in the Haiku log.',
    },
    flag: {
      name: 'follow-links-outside',
      description: 'Also index linked files whose target lies outside the indexed folders (off by default: a link to /etc/passwd would expose it).',
    },
  },
  {
    path: 'index.autoIndex',
    default: true,
    file: { key: 'index.auto_index', schema: flag('VS Code: index on start and follow file changes.') },
    vscode: {
      key: 'index.autoIndex', category: 'index', order: 1, type: 'boolean', default: true,
      description: 'Index the workspace on start and follow file changes. Off: the index is built only by **Haiku: Build Index** or **Index Current File**, and the index files are not created before that.',
    },
  },
  {
    path: 'index.useExcludeSettings',
    default: true,
    file: { key: 'index.use_exclude_settings', schema: flag("VS Code: also skip what files.exclude and search.exclude hide.") },
    vscode: {
      key: 'index.useExcludeSettings', category: 'index', order: 4, type: 'boolean', default: true,
      description: 'Also skip the files that `#files.exclude#` and `#search.exclude#` hide.',
    },
  },
  {
    path: 'search.limit',
    default: SEARCH_DEFAULT_LIMIT,
    file: { key: 'search.limit', schema: positiveInteger('Results a search returns when no limit is given.') },
    vscode: {
      key: 'search.limit', category: 'search', order: 1, type: 'integer', default: 5, minimum: 1, maximum: 100,
      description: 'Results a search returns when no limit is given.',
    },
    flag: {
      name: 'limit', value: '<count>', check: 'positive integer',
      description: `How many results to print (default: search.limit in haiku.config.json, else ${SEARCH_DEFAULT_LIMIT}).`,
    },
  },
  {
    path: 'search.maxContextChars',
    default: MAX_CONTEXT_CHARS,
    file: { key: 'search.max_context_chars', schema: positiveInteger('Characters of an expanded search result at most.') },
    vscode: {
      key: 'search.maxContextChars', category: 'search', order: 2, type: 'integer', default: 5000, minimum: 100,
      description: 'Budget of one expanded search result (characters).',
    },
  },
  {
    path: 'search.rerankPoolFactor',
    default: RERANK_POOL_FACTOR,
    file: { key: 'search.rerank_pool_factor', schema: positiveInteger('With a reranker, limit × this many candidates are reranked.') },
    vscode: {
      key: 'search.rerankPoolFactor', category: 'search', order: 5, type: 'integer', default: 10, minimum: 1,
      description: 'With a reranker, candidates fetched per requested result.',
    },
  },
  {
    path: 'search.fullTextWeight',
    default: 1,
    file: { key: 'search.full_text_weight', schema: z.number().check(z.nonnegative(), z.describe('Weight of the full-text ranking in rank fusion.')) },
    vscode: {
      key: 'search.fullTextWeight', category: 'search', order: 3, type: 'number', default: 1, minimum: 0,
      description: 'Weight of the full-text ranking in hybrid search.',
    },
  },
  {
    path: 'search.vectorWeight',
    default: 1,
    file: { key: 'search.vector_weight', schema: z.number().check(z.nonnegative(), z.describe('Weight of the vector ranking in rank fusion.')) },
    vscode: {
      key: 'search.vectorWeight', category: 'search', order: 4, type: 'number', default: 1, minimum: 0,
      description: 'Weight of the vector ranking in hybrid search.',
    },
  },
  {
    path: 'embeddings.provider',
    default: 'none',
    file: { key: 'embeddings.provider', schema: oneOf(['none', 'openai'], "'none': full-text search only; 'openai': an OpenAI-compatible /embeddings server (hybrid search).") },
    vscode: {
      key: 'embeddings.provider', category: 'embeddings', order: 1, type: 'string', enum: ['none', 'openai'], default: 'none',
      description: 'How chunks are embedded for vector search.',
      enumDescriptions: ['Full-text search only: no embeddings are computed.', 'An OpenAI-compatible `/embeddings` endpoint at `#haiku.embeddings.baseUrl#`.'],
    },
  },
  {
    path: 'embeddings.baseUrl',
    default: DEFAULT_MODEL_BASE_URL,
    file: { key: 'embeddings.base_url', schema: baseUrl },
    vscode: {
      key: 'embeddings.baseUrl', category: 'embeddings', order: 2, type: 'string', default: 'http://127.0.0.1:11434/v1', scope: 'machine-overridable',
      description: 'Base URL of the OpenAI-compatible embeddings endpoint. The API key is set with **Haiku: Set API Key**. An API key set with **Haiku: Set API Key** is sent only to the URL it was set for; for another URL Haiku asks first.',
    },
    flag: {
      name: 'embeddings-url', value: '<url>',
      description: "Base URL of an OpenAI-compatible /embeddings server (default: Ollama's http://127.0.0.1:11434/v1); used with --embeddings-model.",
    },
  },
  {
    path: 'embeddings.apiKey',
    file: { key: 'embeddings.api_key', schema: apiKey },
    env: 'HAIKU_EMBEDDINGS_API_KEY',
  },
  {
    path: 'embeddings.model',
    default: '',
    file: { key: 'embeddings.model', schema: text('Embedding model, e.g. nomic-embed-text. Changing it needs a rebuild.') },
    vscode: {
      key: 'embeddings.model', category: 'embeddings', order: 3, type: 'string', default: '',
      description: 'Embedding model name, e.g. `nomic-embed-text`.',
    },
    flag: {
      name: 'embeddings-model', value: '<name>',
      description: 'Embedding model; turns on vectors and hybrid search. Must match the model the index was built with.',
    },
  },
  {
    path: 'embeddings.dimensions',
    file: { key: 'embeddings.dimensions', schema: positiveInteger('Vector size to ask for (models that support shortening).') },
    vscode: {
      key: 'embeddings.dimensions', category: 'embeddings', order: 4, type: ['integer', 'null'], default: null,
      description: 'Vector dimensions, when the model supports choosing them.',
    },
  },
  {
    path: 'embeddings.batchSize',
    default: EMBEDDING_BATCH_SIZE,
    file: { key: 'embeddings.batch_size', schema: positiveInteger('Texts per embeddings request.') },
    vscode: {
      key: 'embeddings.batchSize', category: 'embeddings', order: 5, type: 'integer', default: 64, minimum: 1,
      description: 'Texts sent per embeddings request.',
    },
  },
  {
    path: 'reranker.provider',
    default: 'none',
    file: { key: 'reranker.provider', schema: oneOf(['none', 'http'], "'none', or 'http': a Cohere-compatible {base_url}/rerank endpoint.") },
    vscode: {
      key: 'reranker.provider', category: 'reranker', order: 1, type: 'string', enum: ['none', 'http'], default: 'none',
      description: 'How search hits are reranked.',
      enumDescriptions: ['No reranking: hybrid search order.', 'A Cohere-compatible `/rerank` endpoint at `#haiku.reranker.baseUrl#`.'],
    },
  },
  {
    path: 'reranker.baseUrl',
    default: '',
    file: { key: 'reranker.base_url', schema: text('Base URL of the reranker, e.g. http://127.0.0.1:8000/v1.') },
    vscode: {
      key: 'reranker.baseUrl', category: 'reranker', order: 2, type: 'string', default: '', scope: 'machine-overridable',
      description: 'Base URL of the reranker (posts to `{baseUrl}/rerank`). An API key set with **Haiku: Set API Key** is sent only to the URL it was set for; for another URL Haiku asks first.',
    },
    flag: {
      name: 'reranker-url', value: '<url>',
      description: 'Base URL of an HTTP reranker (POST {url}/rerank, Cohere or TEI style) applied to search hits (or reranker.base_url in haiku.config.json).',
    },
  },
  {
    path: 'reranker.model',
    default: '',
    file: { key: 'reranker.model', schema: text('Model name sent to the reranker.') },
    vscode: {
      key: 'reranker.model', category: 'reranker', order: 3, type: 'string', default: '',
      description: 'Reranker model name.',
    },
    flag: {
      name: 'reranker-model', value: '<name>',
      description: 'Model name sent to the reranker.',
    },
  },
  {
    path: 'reranker.apiKey',
    file: { key: 'reranker.api_key', schema: apiKey },
    env: 'HAIKU_RERANKER_API_KEY',
  },
  {
    path: 'qa.model.baseUrl',
    default: DEFAULT_MODEL_BASE_URL,
    file: { key: 'qa.model.base_url', schema: baseUrl },
    vscode: {
      key: 'model.baseUrl', category: 'model', order: 1, type: 'string', default: '', scope: 'machine-overridable',
      description: 'Base URL of an OpenAI-compatible chat endpoint (e.g. Ollama: `http://127.0.0.1:11434/v1`). With `#haiku.model.name#` set, `@haiku` answers with this model instead of the one picked in the chat, and its models appear in the chat\'s model picker. An API key set with **Haiku: Set API Key** is sent only to the URL it was set for; for another URL Haiku asks first.',
    },
    env: 'HAIKU_BASE_URL',
    flag: {
      name: 'base-url', value: '<url>',
      description: `OpenAI-compatible chat server (or HAIKU_BASE_URL; default: ${DEFAULT_MODEL_BASE_URL}, Ollama).`,
    },
  },
  {
    path: 'qa.model.apiKey',
    file: { key: 'qa.model.api_key', schema: apiKey },
    env: 'HAIKU_API_KEY',
    flag: {
      name: 'api-key', value: '<key>',
      description: 'API key for the chat server. Prefer the HAIKU_API_KEY environment variable: a key on the command line is visible to other users in the process list and stays in shell history.',
    },
  },
  {
    path: 'qa.model.name',
    default: '',
    file: { key: 'qa.model.name', schema: text('Chat model for questions, e.g. qwen3:8b.') },
    vscode: {
      key: 'model.name', category: 'model', order: 2, type: 'array', default: [], items: { type: 'string' },
      description: 'Model names at `#haiku.model.baseUrl#`, e.g. `qwen3:8b`. All are offered in the chat\'s model picker; the first answers `@haiku`.',
    },
    env: 'HAIKU_MODEL',
    flag: {
      name: 'model', value: '<name>',
      description: 'Chat model, e.g. qwen3:8b (or HAIKU_MODEL, or qa.model.name in haiku.config.json).',
    },
  },
  {
    path: 'qa.model.temperature',
    default: QA_TEMPERATURE,
    file: { key: 'qa.model.temperature', schema: z.number().check(z.gte(0), z.lte(2), z.describe('Sampling temperature.')) },
    vscode: {
      key: 'model.temperature', category: 'model', order: 3, type: 'number', default: 0.3, minimum: 0, maximum: 2,
      description: 'Sampling temperature of the answering model.',
    },
  },
  {
    path: 'qa.model.thinking',
    default: false,
    file: { key: 'qa.model.thinking', schema: flag('Let a reasoning model think before answering.') },
    vscode: {
      key: 'model.thinking', category: 'model', order: 5, type: 'boolean', default: false,
      description: 'The configured model thinks before answering.',
    },
    flag: {
      name: 'thinking',
      description: "Let a reasoning model think before answering (slower; sent as the server's reasoning effort).",
    },
  },
  {
    path: 'qa.model.vision',
    default: false,
    file: { key: 'qa.model.vision', schema: flag('The model can see images (pictures are attached to search results).') },
    vscode: {
      key: 'model.vision', category: 'model', order: 4, type: 'boolean', default: false,
      description: 'The model accepts images: search returns then show it the pictures of their results, each once per response (off: no picture bytes leave the index). When not set, @haiku on a chat model follows the model\'s image capability where VS Code reports it.',
    },
    flag: {
      name: 'vision',
      description: 'The model can see images: search returns show it the pictures of their results (each once per response). Off, no picture bytes leave the index.',
    },
  },
  {
    path: 'analysis.model.name',
    file: { key: 'analysis.model.name', schema: text('Model of the analysis capability (code execution); default: qa.model.name.') },
    vscode: {
      key: 'analysis.model.name', category: 'model', order: 6, type: 'string', default: '',
      description: 'The model `/analyze` and the `haiku_analyze` tool run on (the analysis capability). Empty: the question-answering model. With `#haiku.analysis.model.baseUrl#` or `#haiku.model.baseUrl#` set, a model name at that endpoint; otherwise a model of the chat\'s model picker, by id or `vendor/id` (e.g. `copilot/gpt-4.1`).',
    },
    env: 'HAIKU_ANALYSIS_MODEL',
    flag: {
      name: 'analysis-model', value: '<name>',
      description: 'Model of the analysis capability (or HAIKU_ANALYSIS_MODEL; default: the --model one).',
    },
  },
  {
    path: 'analysis.model.baseUrl',
    file: { key: 'analysis.model.base_url', schema: baseUrl },
    vscode: {
      key: 'analysis.model.baseUrl', category: 'model', order: 7, type: 'string', default: '', scope: 'machine-overridable',
      description: 'Base URL of an OpenAI-compatible endpoint for the analysis model. Empty: `#haiku.model.baseUrl#` (with its API key); another URL gets no API key.',
    },
    env: 'HAIKU_ANALYSIS_BASE_URL',
    flag: {
      name: 'analysis-base-url', value: '<url>',
      description: 'OpenAI-compatible server of the analysis model (or HAIKU_ANALYSIS_BASE_URL; default: the --base-url one). A server other than --base-url gets only the key of HAIKU_ANALYSIS_API_KEY.',
    },
  },
  {
    path: 'analysis.model.apiKey',
    file: { key: 'analysis.model.api_key', schema: apiKey },
    env: 'HAIKU_ANALYSIS_API_KEY',
  },
  {
    path: 'qa.maxSearches',
    default: QA_MAX_SEARCHES,
    file: { key: 'qa.max_searches', schema: positiveInteger('Search units per question.') },
    vscode: {
      key: 'qa.maxSearches', category: 'qa', order: 1, type: 'integer', default: 5, minimum: 1,
      description: 'Search units per question.',
    },
  },
  {
    path: 'qa.maxExecutions',
    default: QA_MAX_EXECUTIONS,
    file: { key: 'qa.max_executions', schema: positiveInteger('execute_code calls per question.') },
    vscode: {
      key: 'qa.maxExecutions', category: 'qa', order: 2, type: 'integer', default: 15, minimum: 0,
      description: '`execute_code` calls per question.',
    },
  },
  {
    path: 'qa.requestLimit',
    default: QA_REQUEST_LIMIT,
    file: { key: 'qa.request_limit', schema: z.nullable(z.int().check(z.positive())).check(z.describe('Model requests per question; null for no limit.')) },
    vscode: {
      key: 'qa.requestLimit', category: 'qa', order: 3, type: ['integer', 'null'], default: 20,
      description: 'Model requests per question; `null` disables the limit.',
    },
  },
  {
    path: 'qa.citationPolicy',
    default: false,
    file: { key: 'qa.citation_policy', schema: flag('When an answer used evidence but cited nothing, ask the model once more to register its citations.') },
    vscode: {
      key: 'qa.citationPolicy', category: 'qa', order: 5, type: 'boolean', default: false,
      description: 'When an answer used evidence but cited nothing, ask the model once more to register its citations (one more request in that case).',
    },
    flag: {
      name: 'citation-policy',
      description: 'When an answer used evidence but cited nothing, ask the model once more to register its citations (one more request then; or qa.citation_policy in haiku.config.json).',
    },
  },
  {
    path: 'sandbox.codeTimeoutSeconds',
    default: SANDBOX_CODE_TIMEOUT_SECONDS,
    file: { key: 'sandbox.code_timeout', schema: z.number().check(z.positive(), z.describe('Seconds one execute_code call may run.')) },
    vscode: {
      key: 'sandbox.codeTimeoutSeconds', category: 'sandbox', order: 1, type: 'integer', default: 60, minimum: 1,
      description: 'Seconds one `execute_code` call may run.',
    },
  },
  {
    path: 'sandbox.maxOutputChars',
    default: SANDBOX_MAX_OUTPUT_CHARS,
    file: { key: 'sandbox.max_output_chars', schema: positiveInteger('Output of one execute_code call is cut after this many characters.') },
    vscode: {
      key: 'sandbox.maxOutputChars', category: 'sandbox', order: 2, type: 'integer', default: 50000, minimum: 100,
      description: 'Characters of output kept per `execute_code` call.',
    },
  },
  {
    path: 'sandbox.memoryLimitBytes',
    default: SANDBOX_MEMORY_LIMIT_BYTES,
    file: { key: 'sandbox.memory_limit_bytes', schema: positiveInteger('Memory of the code sandbox in bytes.') },
    vscode: {
      key: 'sandbox.memoryLimitBytes', category: 'sandbox', order: 3, type: 'integer', default: 67108864, minimum: 1048576,
      description: 'Memory one sandbox runtime may allocate (bytes).',
    },
  },
  // The analysis specification's names for the same limits (analysis-skill.md); listed after the keys above, which name them in errors.
  { path: 'sandbox.codeTimeoutSeconds', file: { key: 'analysis.code_timeout', schema: z.number().check(z.positive(), z.describe('Same as sandbox.code_timeout: seconds one execute_code call may run.')) } },
  { path: 'sandbox.maxOutputChars', file: { key: 'analysis.max_output_chars', schema: positiveInteger('Same as sandbox.max_output_chars: output of one execute_code call is cut after this many characters.') } },
  { path: 'qa.maxExecutions', file: { key: 'analysis.max_executions', schema: positiveInteger('Same as qa.max_executions: execute_code calls per question.') } },
  {
    path: 'processing.pictures',
    default: 'image',
    file: { key: 'processing.pictures', schema: oneOf(['image', 'none', 'description'], "'image': pictures are kept with their bytes; 'none': only their text; 'description': a vision model describes each one at indexing."), },
    vscode: {
      key: 'processing.pictures', category: 'index', order: 15, type: 'string', enum: ['image', 'none', 'description'], default: 'image',
      description: 'Pictures in PDF, DOCX, Markdown and HTML files (local images inside the indexed folders): `image` keeps each picture (at least 64 px, up to 2048 px, identical images once per document) with its caption for vision models and the sections view; `none` keeps only their alt text and captions. Changing it takes effect when files are re-indexed (**Haiku: Rebuild Index**).',
      enumDescriptions: ['Keep picture images (PNG) in the index.', 'Keep only alt text and captions.', 'Keep picture images, and have a vision model describe each one at indexing time (`#haiku.processing.pictureDescription.model#`); the description is searchable.'],
    },
    flag: {
      name: 'pictures', value: '<mode>',
      description: "Pictures in PDF, DOCX, Markdown and HTML files: 'image' (default) keeps each picture's image in the index for vision models; 'none' keeps only alt text and captions; 'description' also has a vision model (--picture-model) describe each picture, making the description searchable.",
    },
  },
  {
    path: 'processing.ocr.enabled',
    default: true,
    file: { key: 'processing.ocr.enabled', schema: flag('OCR of image files (PNG, JPEG, TIFF, WebP) and of PDF pages without a text layer; off: they yield no text.') },
    vscode: {
      key: 'processing.ocr.enabled', category: 'index', order: 19, type: 'boolean', default: true,
      description: 'Read text from images (`.png`, `.jpg`, `.tiff`, `.webp` files) and from scanned PDF pages without a text layer with OCR (Tesseract, on this machine, offline). Off: such files and pages yield no text (a warning on the document). Takes effect when files are re-indexed (**Haiku: Rebuild Index**).',
    },
  },
  {
    path: 'processing.ocr.languages',
    default: ['eng'],
    file: { key: 'processing.ocr.languages', schema: z.array(z.string()).check(z.describe('Tesseract language codes OCR recognizes, e.g. ["eng", "deu"]; English is bundled, others need the npm package @tesseract.js-data/<code>.')) },
    vscode: {
      key: 'processing.ocr.languages', category: 'index', order: 20, type: 'array', default: ['eng'], items: { type: 'string' },
      description: 'Tesseract language codes OCR recognizes together, e.g. `["eng", "deu"]`. English is bundled; another language needs its data (`<code>.traineddata.gz` from the npm package `@tesseract.js-data/<code>`), and a missing one stops OCR with a message saying how to install it.',
    },
  },
  {
    path: 'processing.pictureDescription.baseUrl',
    default: DEFAULT_MODEL_BASE_URL,
    file: { key: 'processing.picture_description.base_url', schema: baseUrl },
    vscode: {
      key: 'processing.pictureDescription.baseUrl', category: 'index', order: 16, type: 'string', default: 'http://127.0.0.1:11434/v1', scope: 'machine-overridable',
      description: 'OpenAI-compatible server of the vision model that describes pictures when `#haiku.processing.pictures#` is `description` (Ollama\'s default shown). When it is the same server as `#haiku.model.baseUrl#`, the model\'s API key is sent with the requests; otherwise none.',
    },
    flag: {
      name: 'picture-base-url', value: '<url>',
      description: `OpenAI-compatible server of --picture-model (default: ${DEFAULT_MODEL_BASE_URL}).`,
    },
  },
  {
    path: 'processing.pictureDescription.apiKey',
    file: { key: 'processing.picture_description.api_key', schema: apiKey },
    env: 'HAIKU_PICTURE_API_KEY',
  },
  {
    path: 'processing.pictureDescription.model',
    default: '',
    file: { key: 'processing.picture_description.model', schema: text('Vision model that describes pictures when processing.pictures is "description".') },
    vscode: {
      key: 'processing.pictureDescription.model', category: 'index', order: 17, type: 'string', default: '',
      description: 'Vision model that describes each picture in at most 200 tokens when `#haiku.processing.pictures#` is `description`, e.g. `qwen2.5vl:7b`. A picture whose description fails or takes over 90 s keeps its caption (a warning on the document).',
    },
    flag: {
      name: 'picture-model', value: '<name>',
      description: 'Vision model that describes pictures with --pictures description, e.g. qwen2.5vl:7b. Its API key comes from HAIKU_PICTURE_API_KEY.',
    },
  },
  {
    path: 'qa.domainPreamble',
    default: '',
    file: { key: 'prompts.domain_preamble', schema: text('Prepended to the agent instructions: describe the corpus and the audience.') },
    vscode: {
      key: 'qa.domainPreamble', category: 'qa', order: 4, type: 'string', default: '', editPresentation: 'multilineText',
      description: 'Prepended to the agent\'s instructions: describe the documents and the audience.',
    },
  },
];
