import * as limits from './limits';

/**
 * The whole configuration, shaped like the specification's YAML (search, qa, sandbox, …).
 * VS Code settings (`haiku.*`) and CLI flags map onto it; `defaultConfig()` gives the embedded defaults.
 */
export interface HaikuConfig {
  index: {
    /** Folder path or any URI LanceDB's `connect` accepts. */
    databaseUri: string;
    include: string[];
    exclude: string[];
    maxFileBytes: number;
    respectGitignore: boolean;
    /** Index linked files whose real path lies outside the indexed folders (off: they are skipped and reported). */
    followLinksOutside: boolean;
    /** VS Code: index on start and follow file changes (the CLI indexes when told to). */
    autoIndex: boolean;
    /** VS Code: also skip what `files.exclude` and `search.exclude` hide. */
    useExcludeSettings: boolean;
    /** `remote-readonly`: a team index others publish; never written, refreshed periodically. */
    mode: 'local' | 'remote-readonly';
    /** Where the published documents live locally (relative to the workspace folder); empty: the workspace folder. */
    sourceRoot: string;
    /** VS Code: other indexes searched and cited with this one (name → folder or LanceDB URI), opened read-only. */
    additionalDatabases: Record<string, string>;
    /** Endpoint, region and style for an `s3://` database (keys come from SecretStorage or the AWS variables). */
    storage: { endpoint: string; region: string; pathStyle?: boolean; allowHttp?: boolean; accessKeyId?: string; secretAccessKey?: string };
  };
  search: {
    limit: number;
    maxContextChars: number;
    rerankPoolFactor: number;
    /** RRF weights of the two rankings. */
    fullTextWeight: number;
    vectorWeight: number;
  };
  embeddings: {
    /** `local` is retired (see `createEmbedder`); it stays in the type only so an old VS Code setting reaches that actionable error. */
    provider: 'none' | 'openai' | 'local';
    baseUrl: string;
    model: string;
    apiKey?: string;
    /** Why the API key was withheld from `baseUrl` (a project file chose that URL; `src/node/config/endpointTrust.ts`): creators throw it before any request. */
    apiKeyWithheld?: string;
    dimensions?: number;
    batchSize: number;
  };
  reranker: {
    provider: 'none' | 'http';
    /** Cohere-compatible endpoint base, e.g. `http://127.0.0.1:8080/v1` (posts to `{baseUrl}/rerank`). */
    baseUrl: string;
    model: string;
    apiKey?: string;
    /** Why the API key was withheld from `baseUrl` (a project file chose that URL; `src/node/config/endpointTrust.ts`): creators throw it before any request. */
    apiKeyWithheld?: string;
  };
  qa: {
    model: {
      baseUrl: string;
      name: string;
      apiKey?: string;
      /** Why the API key was withheld from `baseUrl` (a project file chose that URL; `src/node/config/endpointTrust.ts`): creators throw it before any request. */
      apiKeyWithheld?: string;
      temperature: number;
      vision: boolean;
      thinking: boolean;
    };
    maxSearches: number;
    maxExecutions: number;
    /** Model requests per question; null disables the limit. */
    requestLimit: number | null;
    /** Prepended to the agent's instructions (describe the corpus, the audience). */
    domainPreamble: string;
    /** An answer that used evidence but cited nothing gets one more request asking for its citations (reference §5.8). */
    citationPolicy: boolean;
  };
  analysis: {
    /** The analysis capability's own model (`analysis.model`); unset fields, or null, fall back to `qa.model`. */
    model: AnalysisModelConfig | null;
  };
  sandbox: {
    codeTimeoutSeconds: number;
    maxOutputChars: number;
    memoryLimitBytes: number;
  };
  processing: {
    /**
     * `image`: images (PDF, DOCX, local Markdown/HTML images) are kept as picture items with their bytes; `none`:
     * pictures keep their text only; `description`: as `image`, and a vision model describes each picture at ingest.
     */
    pictures: 'none' | 'image' | 'description';
    /** OCR of image files and of PDF pages without a text layer (Tesseract, offline). */
    ocr: {
      /** Off: scanned pages and images yield no text (a warning says so). */
      enabled: boolean;
      /** Tesseract language codes, recognized together; each needs its data installed (English is bundled). */
      languages: string[];
    };
    /** The OpenAI-compatible vision endpoint of `pictures: description`. */
    pictureDescription: {
      baseUrl: string;
      model: string;
      apiKey?: string;
      /** Why the API key was withheld from `baseUrl` (a project file chose that URL; `src/node/config/endpointTrust.ts`): creators throw it before any request. */
      apiKeyWithheld?: string;
    };
  };
}

export function defaultConfig(): HaikuConfig {
  return {
    index: {
      databaseUri: limits.DEFAULT_DATABASE_FOLDER,
      include: [...limits.DEFAULT_INCLUDE_GLOBS],
      exclude: [...limits.DEFAULT_EXCLUDE_GLOBS],
      maxFileBytes: limits.MAX_FILE_BYTES,
      respectGitignore: true,
      followLinksOutside: false,
      autoIndex: true,
      useExcludeSettings: true,
      mode: 'local',
      sourceRoot: '',
      additionalDatabases: {},
      storage: { endpoint: '', region: '' },
    },
    search: {
      limit: limits.SEARCH_DEFAULT_LIMIT,
      maxContextChars: limits.MAX_CONTEXT_CHARS,
      rerankPoolFactor: limits.RERANK_POOL_FACTOR,
      fullTextWeight: 1,
      vectorWeight: 1,
    },
    embeddings: { provider: 'none', baseUrl: limits.DEFAULT_MODEL_BASE_URL, model: '', batchSize: limits.EMBEDDING_BATCH_SIZE },
    reranker: { provider: 'none', baseUrl: '', model: '' },
    qa: {
      model: { baseUrl: limits.DEFAULT_MODEL_BASE_URL, name: '', temperature: limits.QA_TEMPERATURE, vision: false, thinking: false },
      maxSearches: limits.QA_MAX_SEARCHES,
      maxExecutions: limits.QA_MAX_EXECUTIONS,
      requestLimit: limits.QA_REQUEST_LIMIT,
      domainPreamble: '',
      citationPolicy: false,
    },
    analysis: { model: {} },
    sandbox: {
      codeTimeoutSeconds: limits.SANDBOX_CODE_TIMEOUT_SECONDS,
      maxOutputChars: limits.SANDBOX_MAX_OUTPUT_CHARS,
      memoryLimitBytes: limits.SANDBOX_MEMORY_LIMIT_BYTES,
    },
    processing: { pictures: 'image', ocr: { enabled: true, languages: ['eng'] }, pictureDescription: { baseUrl: limits.DEFAULT_MODEL_BASE_URL, model: '' } },
  };
}

/** Every leaf of `HaikuConfig` as a dotted path (`qa.model.baseUrl`): how errors, the config file and the front ends name a setting. */
export type ConfigPath = LeafPaths<HaikuConfig>;

type LeafPaths<T, Prefix extends string = ''> = {
  [Key in keyof T & string]-?: NonNullable<T[Key]> extends readonly unknown[]
    ? `${Prefix}${Key}`
    // A map keyed by the user (name → value) is one setting, not a group.
    : string extends keyof NonNullable<T[Key]>
      ? `${Prefix}${Key}`
      : NonNullable<T[Key]> extends object
        ? LeafPaths<NonNullable<T[Key]>, `${Prefix}${Key}.`>
        : `${Prefix}${Key}`;
}[keyof T & string];

/** The value at a dotted path (undefined when a group on the way is missing). */
export function configValue(config: HaikuConfig, path: ConfigPath): unknown {
  let value: unknown = config;
  for (const part of path.split('.')) {
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[part] : undefined;
  }
  return value;
}

/** Sets the value at a dotted path in place; the groups exist in every `HaikuConfig`. */
export function setConfigValue(config: HaikuConfig, path: ConfigPath, value: unknown): void {
  const parts = path.split('.');
  let group = config as unknown as Record<string, unknown>;
  for (const part of parts.slice(0, -1)) {
    group = group[part] as Record<string, unknown>;
  }
  group[parts[parts.length - 1]] = value;
}

/** Settings whose value is a map keyed by the user: one leaf each, though their value is an object. */
const MAP_PATHS: readonly string[] = ['index.additionalDatabases'];

/** Every leaf path of the default configuration plus the optional ones it leaves unset (API keys, dimensions). */
export function allConfigPaths(): ConfigPath[] {
  const paths: string[] = [];
  const visit = (value: unknown, prefix: string) => {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      if (typeof child === 'object' && child !== null && !Array.isArray(child) && !MAP_PATHS.includes(`${prefix}${key}`)) {
        visit(child, `${prefix}${key}.`);
      } else {
        paths.push(`${prefix}${key}`);
      }
    }
  };
  visit(defaultConfig(), '');
  const optional: ConfigPath[] = ['embeddings.apiKey', 'embeddings.dimensions', 'reranker.apiKey', 'qa.model.apiKey', 'analysis.model.name', 'analysis.model.baseUrl', 'analysis.model.apiKey', 'processing.pictureDescription.apiKey', 'index.storage.pathStyle', 'index.storage.allowHttp'];
  return [...(paths as ConfigPath[]), ...optional.filter((path) => !paths.includes(path))];
}

/** `analysis.model`: what differs from `qa.model` (a name alone keeps the QA server; a server of its own keeps no QA key). */
export interface AnalysisModelConfig {
  baseUrl?: string;
  name?: string;
  apiKey?: string;
  /** Why the API key was withheld from `baseUrl` (a project file chose that URL; `src/node/config/endpointTrust.ts`): creators throw it before any request. */
  apiKeyWithheld?: string;
  temperature?: number;
}

/**
 * The model the analysis capability runs on: `analysis.model` over `qa.model`. The QA API key goes along only to
 * the QA server, never to another base URL.
 */
export function analysisModelOf(config: HaikuConfig): HaikuConfig['qa']['model'] {
  const own = config.analysis.model;
  const qa = config.qa.model;
  const name = own?.name?.trim() ?? '';
  const baseUrl = own?.baseUrl?.trim() ?? '';
  if (!own || (name === '' && baseUrl === '')) {
    return qa;
  }
  const otherServer = baseUrl !== '' && baseUrl !== qa.baseUrl;
  return {
    ...qa,
    baseUrl: baseUrl || qa.baseUrl,
    name: name || qa.name,
    apiKey: otherServer ? own.apiKey : own.apiKey ?? qa.apiKey,
    // The refusal follows the key it is about: the analysis model's own, or the QA key it borrows.
    apiKeyWithheld: otherServer || own.apiKey !== undefined ? own.apiKeyWithheld : own.apiKeyWithheld ?? qa.apiKeyWithheld,
    temperature: own.temperature ?? qa.temperature,
  };
}
