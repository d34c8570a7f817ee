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
    /** `remote-readonly`: a team index others publish; never written, refreshed periodically. */
    mode: 'local' | 'remote-readonly';
    /** Where the published documents live locally (relative to the workspace folder); empty: the workspace folder. */
    sourceRoot: string;
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
    provider: 'none' | 'openai' | 'local';
    baseUrl: string;
    model: string;
    apiKey?: string;
    dimensions?: number;
    batchSize: number;
  };
  reranker: {
    provider: 'none' | 'http';
    /** Cohere-compatible endpoint base, e.g. `http://127.0.0.1:8080/v1` (posts to `{baseUrl}/rerank`). */
    baseUrl: string;
    model: string;
    apiKey?: string;
  };
  qa: {
    model: {
      baseUrl: string;
      name: string;
      apiKey?: string;
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
  };
  sandbox: {
    codeTimeoutSeconds: number;
    maxOutputChars: number;
    memoryLimitBytes: number;
  };
  processing: {
    /** `image`: PDF and DOCX images are kept as picture items with their bytes; `none`: pictures keep their text only. */
    pictures: 'none' | 'image';
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
      mode: 'local',
      sourceRoot: '',
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
    },
    sandbox: {
      codeTimeoutSeconds: limits.SANDBOX_CODE_TIMEOUT_SECONDS,
      maxOutputChars: limits.SANDBOX_MAX_OUTPUT_CHARS,
      memoryLimitBytes: limits.SANDBOX_MEMORY_LIMIT_BYTES,
    },
    processing: { pictures: 'image' },
  };
}
