/**
 * Every limit and default in one place. Settings (`haiku.*` in VS Code, flags in the CLI) override the
 * ones users need; the rest are fixed here so a reader finds each number once.
 */

// --- Conversion ---
/** Files larger than this are refused before reading (bytes). */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;
/** A file whose first bytes hold a NUL within this window is treated as binary. */
export const BINARY_SNIFF_BYTES = 8192;
/** A PDF page whose conversion takes longer than this is abandoned (ms). */
export const PDF_PAGE_TIMEOUT_MS = 20_000;
/** A whole conversion that takes longer than this is abandoned (ms). */
export const CONVERSION_TIMEOUT_MS = 120_000;
/** Heap (V8 old generation) of one conversion worker; a file that needs more fails alone, not the process (MiB). At 1024 PDFs converted ~20% slower (more major GCs). */
export const CONVERSION_WORKER_MAX_OLD_GENERATION_MB = 2048;
/** Young generation of one conversion worker (MiB); the size V8 derives from the heap cap made parsing ~40% slower. */
export const CONVERSION_WORKER_YOUNG_GENERATION_MB = 64;
/** A conversion worker must have loaded the converters within this time (ms). */
export const CONVERSION_WORKER_STARTUP_TIMEOUT_MS = 30_000;
/** A table cell may span at most this many rows or columns (guards `colspan="100000"` in HTML and DOCX). */
export const MAX_TABLE_CELL_SPAN = 1000;

// --- Chunking ---
/** Maximum tokens per chunk (gpt-tokenizer, o200k_base encoding). */
export const CHUNK_MAX_TOKENS = 256;
/** Bumped whenever the chunker's output changes, so stored indexes know to rebuild. */
export const CHUNKER_VERSION = 1;
/** A chunk's heading trail may take the token budget down to this many tokens for content, never further. */
export const CHUNK_MIN_CONTENT_TOKENS = 64;

// --- Index ---
/** Bumped whenever the table layout changes. */
export const SCHEMA_VERSION = 2;
/** Default database folder, relative to the current folder (CLI). */
export const DEFAULT_DATABASE_FOLDER = '.haiku';
/** Files converted at once while indexing. */
export const INDEX_CONCURRENCY = 2;
/** Debounce of `optimize()` after a burst of incremental writes (ms). */
export const OPTIMIZE_DEBOUNCE_MS = 2_000;
/** Glob patterns indexed by default. */
export const DEFAULT_INCLUDE_GLOBS: readonly string[] = ['**/*.{md,markdown,mdx,html,htm,pdf,docx,txt,rst}'];
/** Glob patterns never indexed (in addition to `.gitignore`). */
export const DEFAULT_EXCLUDE_GLOBS: readonly string[] = ['**/node_modules/**', '**/.git/**', '**/.haiku/**', '**/out/**', '**/dist/**'];
/** Documents written to the store in one batch (one commit per table) while indexing many small files. */
export const INDEX_WRITE_BATCH_DOCUMENTS = 256;
/** Chunks that close a write batch early, so big documents do not pile up in memory. */
export const INDEX_WRITE_BATCH_CHUNKS = 4096;
/** Table versions younger than this survive `optimize()` (readers in other processes may still use them) (ms). */
export const INDEX_VERSION_RETENTION_MS = 5 * 60_000;
/** A second writer waits this long for the writer lock of a local index before failing (ms). */
export const WRITER_LOCK_WAIT_MS = 10 * 60_000;
/** The writer lock's owner refreshes its heartbeat this often (ms). */
export const WRITER_LOCK_HEARTBEAT_MS = 2_000;
/** A writer lock whose heartbeat is older than this is stale and taken over, whatever its owner pid (ms). */
export const WRITER_LOCK_STALE_MS = 30_000;
/** A waiting writer checks the lock this often (ms). */
export const WRITER_LOCK_POLL_MS = 100;
/** Attempts of a write step that LanceDB rejected with a retryable commit conflict. */
export const COMMIT_CONFLICT_ATTEMPTS = 5;
/** Without an exclusive writer lease (object storage), rows of generations younger than this are never swept: another writer may be about to switch to them (ms). */
export const UNLEASED_SWEEP_MIN_AGE_MS = 60 * 60_000;

// --- Embeddings ---
/** Texts sent per embeddings request. */
export const EMBEDDING_BATCH_SIZE = 64;
/** Attempts per embeddings request before giving up. */
export const EMBEDDING_MAX_ATTEMPTS = 3;
/** First retry delay; doubles per attempt (ms). */
export const EMBEDDING_RETRY_BASE_MS = 250;
/** One embeddings request may take this long (ms). */
export const EMBEDDING_TIMEOUT_MS = 60_000;

// --- Search ---
/** Results returned when no limit is given. */
export const SEARCH_DEFAULT_LIMIT = 5;
/** Reciprocal rank fusion constant (1-based ranks: rank 1 in both lists scores 2/61). */
export const RRF_K = 60;
/** Hybrid search: each ranking (full text, vector) contributes at least this many candidates to the fusion. */
export const HYBRID_CANDIDATES_PER_LIST = 50;
/** Vectors kept resident for exact search up to this size (bytes, ≈170k chunks at 384 dimensions); above it LanceDB scans. */
export const VECTOR_CACHE_MAX_BYTES = 256 * 1024 * 1024;
/** Chunk result fields kept in memory beside the vector cache up to this size (bytes); above it they are fetched per query. */
export const RESIDENT_CHUNK_ROWS_MAX_BYTES = 64 * 1024 * 1024;
/** Document items kept in memory for context expansion (whole documents, least recently used dropped first). */
export const ITEM_CACHE_MAX_ITEMS = 100_000;
/** Query embeddings remembered per session. */
export const QUERY_EMBEDDING_CACHE_SIZE = 256;
/** With a reranker, candidates fetched per requested result. */
export const RERANK_POOL_FACTOR = 10;
/** Budget of one expanded search result (characters). */
export const MAX_CONTEXT_CHARS = 5000;
/** Sections under this share of the budget grow across section boundaries. */
export const SMALL_SECTION_RATIO = 0.2;
/** Context expansion looks this many item positions around the matches for section bounds. */
export const EXPANSION_WINDOW_MARGIN = 100;
/** A clipped expansion locates its chunk by a slice of at least this many characters (unless the chunk is shorter). */
export const EVIDENCE_ANCHOR_MIN_CHARS = 128;
/** One rerank request may take this long (ms). */
export const RERANK_TIMEOUT_MS = 30_000;

// --- Question answering ---
/** Search units per question (up to three searches in one model response share a unit). */
export const QA_MAX_SEARCHES = 5;
/** Searches in one model response that share one budget unit. */
export const SEARCHES_PER_UNIT = 3;
/** `execute_code` calls per question. */
export const QA_MAX_EXECUTIONS = 15;
/** Model requests per question before `rag_search` is withdrawn (null disables). */
export const QA_REQUEST_LIMIT = 20;
/** Requests calling a rag tool that keep `rag_cite` available after the request limit. */
export const CITE_GRACE_REQUESTS = 2;
/** Sampling temperature of the answering model. */
export const QA_TEMPERATURE = 0.3;
/** Default OpenAI-compatible endpoint (Ollama's local server). */
export const DEFAULT_MODEL_BASE_URL = 'http://127.0.0.1:11434/v1';
/** One model request may take this long (ms). */
export const MODEL_REQUEST_TIMEOUT_MS = 120_000;
/** Tool results from earlier turns longer than this are replaced by a marker (characters). */
export const OLD_TOOL_RESULT_MARKER_THRESHOLD = 500;
/** Similarity above which a near-miss chunk id is repaired to a retrieved one. */
export const CITE_REPAIR_SIMILARITY = 0.75;
/** Model requests per question when the request limit is disabled (a hard stop against endless tool loops). */
export const AGENT_MAX_REQUESTS_UNLIMITED = 100;
/** Retries of a failed model request (transient server errors) before the question fails. */
export const MODEL_MAX_RETRIES = 1;

// --- Sandbox ---
/** Wall-clock seconds one `execute_code` call has. */
export const SANDBOX_CODE_TIMEOUT_SECONDS = 60;
/** Characters of output kept per `execute_code` call; the rest is cut with a marker. */
export const SANDBOX_MAX_OUTPUT_CHARS = 50_000;
/** Memory one sandbox runtime may allocate (bytes). */
export const SANDBOX_MEMORY_LIMIT_BYTES = 64 * 1024 * 1024;
/** Guest stack size; above 256 KiB deep recursion can overflow the host stack (see notes). */
export const SANDBOX_STACK_LIMIT_BYTES = 256 * 1024;
/** Default `limit` of `search()` inside the sandbox. */
export const SANDBOX_SEARCH_DEFAULT_LIMIT = 10;
/** Largest `limit` of `search()` inside the sandbox (larger requests are clamped). */
export const SANDBOX_SEARCH_MAX_LIMIT = 100;
/** After the deadline, the host waits this long for the worker's own report before killing it (ms). */
export const SANDBOX_WATCHDOG_GRACE_MS = 5_000;
/** A sandbox worker must have loaded QuickJS within this time (ms). */
export const SANDBOX_STARTUP_TIMEOUT_MS = 30_000;
/** Stack frames of a guest error kept in stderr; deep recursion would otherwise flood the output. */
export const SANDBOX_STACK_TRACE_LINES = 10;
/** Host calls (searches, reads) of one sandbox served at once; `Promise.all` over many searches queues the rest. */
export const SANDBOX_HOST_CALL_CONCURRENCY = 4;
/** CPU time the guest's own error formatting may take (hostile getters on an error object) (ms). */
export const SANDBOX_ERROR_DESCRIPTION_BUDGET_MS = 1_000;

// --- VS Code ---
/** File-system events are collected this long before the index catches up (ms). */
export const INDEX_WATCH_DEBOUNCE_MS = 750;
/** Runs the runs panel keeps (oldest dropped first). */
export const RUNS_KEPT = 50;
/** Hits the "Insert Citation" quick pick shows. */
export const CITATION_PICK_LIMIT = 20;
/** Typing pause before the "Insert Citation" quick pick searches (ms). */
export const CITATION_PICK_DEBOUNCE_MS = 200;
/** Hits the `haiku_search` language-model tool returns at most. */
export const TOOL_SEARCH_MAX_LIMIT = 20;
/** Characters of a section `haiku_readSection` returns; the rest is cut with a marker. */
export const TOOL_SECTION_MAX_CHARS = 20_000;

// --- Filters ---
// (limits on user-written SQL filters)

// --- Command line ---
// (CLI output and progress)

// --- MCP server ---
// (the `haiku mcp` server)
