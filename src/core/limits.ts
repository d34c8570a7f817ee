/**
 * Every limit and default in one place. Settings (`haiku.*` in VS Code, flags in the CLI) override the
 * ones users need; the rest are fixed here so a reader finds each number once.
 */

// --- Pictures ---
/** Pictures whose smaller side is under this many pixels are skipped (icons, bullets, rules). */
export const PICTURE_MIN_SIDE_PX = 64;
/** Stored pictures are scaled down so their longer side is at most this (vision models downscale further anyway). */
export const PICTURE_MAX_SIDE_PX = 2048;
/** JPEG quality of a picture re-encoded at that size (where @napi-rs/canvas is installed). */
export const PICTURE_SCALED_JPEG_QUALITY = 85;
/** Source images above this many pixels are not decoded at all (a 20000x20000 image would need 1.6 GB). */
export const PICTURE_MAX_SOURCE_PIXELS = 25_000_000;
/** Pictures kept per document; later ones keep their caption but no bytes. */
export const PICTURES_MAX_PER_DOCUMENT = 500;
/** Encoded picture bytes kept per document (bytes); later pictures keep their caption but no bytes. */
export const PICTURES_MAX_BYTES_PER_DOCUMENT = 64 * 1024 * 1024;
/** A local image file larger than this is not read for a Markdown or HTML picture (bytes). */
export const PICTURE_MAX_FILE_BYTES = 20 * 1024 * 1024;
/** Image operations examined per PDF page; a page painting thousands of tiny images stops here. */
export const PDF_IMAGE_OPERATIONS_MAX_PER_PAGE = 200;
/** pdf.js decodes an image after listing the page's operators; one not decoded within this time is skipped (ms). */
export const PDF_IMAGE_DECODE_TIMEOUT_MS = 5_000;
/** A vector-drawn PDF figure needs at least this much empty height (points) beside its caption to be recorded. */
export const PDF_VECTOR_FIGURE_MIN_GAP_POINTS = 40;
/** Text blocks shorter than this (characters) may be labels inside a drawing, so they do not bound a vector figure. */
export const PDF_VECTOR_FIGURE_LABEL_MAX_CHARACTERS = 24;
/** PDF figures: painted marks (images, drawings) closer than this (points) belong to one figure. */
export const PDF_FIGURE_MERGE_GAP_POINTS = 4;
/** PDF figures: a region with images narrower or lower than this (points) is an icon or a bullet, not a figure (at scale 2, `PICTURE_MIN_SIDE_PX`). */
export const PDF_FIGURE_MIN_SIDE_POINTS = 32;
/** PDF figures: a drawing without images must be at least this wide and high (points) to be a figure (not an underline or a box). */
export const PDF_VECTOR_FIGURE_MIN_SIDE_POINTS = 48;
/** PDF figures: a path thinner than this (points) is a rule (table border, underline), not figure content. */
export const PDF_FIGURE_RULE_MAX_THICKNESS_POINTS = 3;
/** PDF figures: a mark covering this share of the page or more is a page background. */
export const PDF_FIGURE_BACKGROUND_PAGE_SHARE = 0.6;
/** PDF figures: a region holding more characters of running text than this is a text area, not a figure. */
export const PDF_FIGURE_PROSE_MAX_CHARACTERS = 200;
/** PDF figures: vector paths examined per page (a map may paint hundreds of thousands). */
export const PDF_FIGURE_MARKS_MAX_PER_PAGE = 5_000;
/** PDF figures: regions kept per page (a page of hundreds of separate icons keeps the first ones). */
export const PDF_FIGURES_MAX_PER_PAGE = 20;
/** PDF figures are rendered at this many pixels per point (2 ≈ 144 dpi) … */
export const PDF_FIGURE_RENDER_SCALE = 2;
/** … unless a page's figures together would exceed this many pixels; then at a smaller scale. */
export const PDF_FIGURE_RENDER_MAX_PIXELS = 8_000_000;
/** A page's figures render within this share of the page time limit; past it they keep no pixels (their captions stay). */
export const PDF_FIGURE_RENDER_SHARE_OF_PAGE_TIMEOUT = 0.5;
/** OCR: a PDF page with fewer text-layer characters than this over a page-sized image is read as a scan. */
export const PDF_OCR_MAX_TEXT_LAYER_CHARACTERS = 40;
/** OCR: the image share of the page above which a page with almost no text layer is a scan. */
export const PDF_OCR_SCANNED_IMAGE_SHARE = 0.5;
/** OCR: pixels per point a scanned page is rendered at for OCR (300 / 72 ≈ 300 dpi) … */
export const PDF_OCR_RENDER_SCALE = 300 / 72;
/** … unless the page would exceed this many pixels (a poster); then at a smaller scale. */
export const PDF_OCR_RENDER_MAX_PIXELS = 12_000_000;
/** `processing.pictures: description`: one picture's description request may take this long before the picture keeps its caption (ms). */
export const PICTURE_DESCRIPTION_TIMEOUT_MS = 90_000;
/** A picture description is at most this many tokens (the reference's `picture_description.max_tokens`). */
export const PICTURE_DESCRIPTION_MAX_TOKENS = 200;
/** Picture description requests in flight at once across an indexing run (a local vision model serves one or two well). */
export const PICTURE_DESCRIPTION_CONCURRENCY = 2;

// --- OCR (image files and scanned PDF pages) ---
/** One image's recognition, rotation probes included, may take this long before it is stopped (ms). */
export const OCR_PAGE_TIMEOUT_MS = 60_000;
/** Starting the Tesseract thread (WebAssembly compile, language data) may take this long (ms). */
export const OCR_WORKER_START_TIMEOUT_MS = 30_000;
/** The Tesseract thread is stopped after this long without work (ms); the next OCR starts it again (about a second). */
export const OCR_WORKER_IDLE_MS = 60_000;
/** Images with more pixels than this are not read (Tesseract's WebAssembly memory is bounded). */
export const OCR_MAX_IMAGE_PIXELS = 50_000_000;
/** A first reading with at least this mean word confidence (0–100) is taken as upright; below it the four turns are tried. */
export const OCR_UPRIGHT_CONFIDENCE = 70;
/** The turns are tried on a copy scaled to at most this many pixels on its longer side (speed). */
export const OCR_ROTATION_PROBE_MAX_SIDE_PX = 1200;
/** A turn is taken only if its mean word confidence beats the unturned reading by this much (0–100). */
export const OCR_ROTATION_MIN_GAIN = 10;

// --- Visual grounding ---
/** Pixels per PDF point of a page rendered by `haiku visualize` (2 ≈ 144 dpi). */
export const VISUALIZE_DEFAULT_SCALE = 2;
/** A rendered page never exceeds this many pixels; large pages render at a smaller scale. */
export const VISUALIZE_MAX_PIXELS = 16_000_000;

// --- Conversion ---
/** Files larger than this are refused before reading (bytes). */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;
/** A Markdown file longer than this (characters) is parsed in segments of at least this size, cut before headings, so the parser's tokens for the whole file never exist at once. */
export const MARKDOWN_SEGMENT_CHARS = 1_000_000;
/** What all parts of a DOCX may inflate to (bytes): checked before inflating, since mammoth inflates whole parts in memory. */
export const DOCX_MAX_INFLATED_BYTES = 256 * 1024 * 1024;
/** What a DOCX's XML parts may inflate to together (bytes): each becomes a DOM tree, about ten times its size. */
export const DOCX_MAX_INFLATED_XML_BYTES = 64 * 1024 * 1024;
/** What all parts of a PPTX, XLSX or OpenDocument file may inflate to (bytes): the same budget as a DOCX. */
export const OFFICE_MAX_INFLATED_BYTES = DOCX_MAX_INFLATED_BYTES;
/** What an office file's XML parts may inflate to together (bytes): each is parsed into a tree. */
export const OFFICE_MAX_INFLATED_XML_BYTES = DOCX_MAX_INFLATED_XML_BYTES;
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
/** A conversion worker exits right after converting a file this big (bytes): its heap, grown for the parse, goes back before the rows are written, not after the idle time. */
export const CONVERSION_WORKER_RETIRE_AFTER_BYTES = 8 * 1024 * 1024;
/**
 * A converted document with more items than this comes to the indexer in parts, each written as it comes (a 44 MB
 * Markdown file sent in one message peaked at 1.7 GiB: the worker's copy, the message and the caller's copy at once).
 */
export const CONVERSION_PARTS_MIN_ITEMS = 20_000;
/** …as does one with more characters of text than this (its `content`: the size of everything else, roughly). */
export const CONVERSION_PARTS_MIN_CHARS = 16 * 1024 * 1024;
/** Characters of text (picture bytes counted as characters) in one part of such a document: one message each. */
export const CONVERSION_PART_CHARS = 1024 * 1024;
/**
 * The worker collects its garbage after this many parts sent (while the caller writes them): 44 MB Markdown peaked at
 * 1.2 GiB without, 1.07 GiB with a collection only between steps, 0.95 GiB every 8 parts (5 s of collections).
 */
export const CONVERSION_PARTS_PER_COLLECTION = 8;
/** A conversion worker idle this long exits, giving back its memory (~100–200 MiB); the next file starts a new one (≈0.3 s) (ms). */
export const CONVERSION_WORKER_IDLE_MS = 10_000;
/** A further conversion worker starts only once a file has waited this long for a busy one, so few small files need one worker (ms). */
export const CONVERSION_EXTRA_WORKER_DELAY_MS = 200;
/** Small files a conversion worker takes in one message, converting them back to back without a round trip to the caller each. */
export const CONVERSION_BATCH_FILES = 16;
/** Only files up to this size go into a batch; larger ones go one per message (bytes). */
export const CONVERSION_BATCH_MAX_FILE_BYTES = 64 * 1024;
/** A conversion worker must have loaded the converters within this time (ms). */
export const CONVERSION_WORKER_STARTUP_TIMEOUT_MS = 30_000;
/** A table cell may span at most this many rows or columns (guards `colspan="100000"` in HTML and DOCX). */
export const MAX_TABLE_CELL_SPAN = 1000;
/** Cells (rows × columns, spans expanded) one table may render; larger tables are cut with a warning (12 KB of spanned HTML once became 6 GB). */
export const MAX_TABLE_CELLS = 50_000;
/** Shape groups nested deeper than this on a slide (PPTX `p:grpSp`, ODP `draw:g`, lists in lists) are left out with a warning (hostile nesting). */
export const SLIDE_MAX_NESTING_DEPTH = 64;
/** CSV/TSV rows converted per file; later rows are dropped with a warning (the first rows still index). */
export const CSV_MAX_ROWS = 100_000;
/** CSV/TSV columns kept per row; extra cells are dropped with a warning (bounds a row like `a,,,,,…` of 2 MB). */
export const CSV_MAX_COLUMNS = 1_000;
/** CSV tables are cut into `table` items of at most this many tokens, each with the header: under `CHUNK_MAX_TOKENS` (room for the heading trail), so chunks are whole rows with their column names. */
export const CSV_TABLE_ITEM_MAX_TOKENS = 192;
/** Bytes read to detect a CSV's delimiter (comma, semicolon, tab, pipe). */
export const CSV_DIALECT_SNIFF_CHARS = 64 * 1024;
/** XLSX/ODS rows read per sheet (sheet row numbers); cells further down are dropped with a warning. */
export const SPREADSHEET_MAX_ROWS = CSV_MAX_ROWS;
/** XLSX/ODS columns read per sheet; cells further right are dropped with a warning. */
export const SPREADSHEET_MAX_COLUMNS = CSV_MAX_COLUMNS;
/** Non-empty cells read per workbook, all sheets together (a full 64 MiB of sheet XML holds about 3 million); the rest are dropped with a warning. */
export const SPREADSHEET_MAX_CELLS = 1_000_000;
/** A source file longer than this is cut into consecutive `code` items at line ends (≈ one chunk each), so each chunk cites its own lines. */
export const CODE_ITEM_MAX_CHARS = 1_000;
/** Jupyter notebook cells converted per file; later cells are dropped with a warning. */
export const NOTEBOOK_MAX_CELLS = 20_000;
/** Characters of one cell output kept as text (a training log can print megabytes); the rest is cut with a warning. */
export const NOTEBOOK_OUTPUT_MAX_CHARS = 20_000;
/** LaTeX: characters read across the root file and everything it `\input`s (and its `.bbl`); files past this are skipped with a warning. */
export const LATEX_MAX_SOURCE_CHARS = 10 * 1024 * 1024;
/** LaTeX: `\input` nested deeper than this is not followed (a warning says so). */
export const LATEX_MAX_INCLUDE_DEPTH = 32;
/** LaTeX: user macro (`\newcommand`, `\def`) expansions per document; past this, macros are left unexpanded (a recursive macro cannot loop). */
export const LATEX_MAX_MACRO_EXPANSIONS = 100_000;
/** LaTeX: environments and command arguments nested deeper than this are read as plain text (bounds recursion on hostile input). */
export const LATEX_MAX_NESTING = 64;
/** LaTeX: pixels per PDF point when page 1 of a PDF figure is rendered to a picture (2 ≈ 144 dpi). */
export const LATEX_PDF_FIGURE_SCALE = 2;
/** Items one document may have; the rest are dropped with a warning (bounds a worker's memory on hostile input). */
export const MAX_DOCUMENT_ITEMS = 200_000;

// --- Chunking ---
/** Maximum tokens per chunk (gpt-tokenizer, o200k_base encoding). */
export const CHUNK_MAX_TOKENS = 256;
/** Bumped whenever the chunker's output changes, so stored indexes know to rebuild. */
export const CHUNKER_VERSION = 1;
/** A chunk's heading trail may take the token budget down to this many tokens for content, never further. */
export const CHUNK_MIN_CONTENT_TOKENS = 64;
/** Chunks one document may have (a 44 MB Markdown file of prose gives ~60k; big documents reach the store in parts); the rest are dropped with a warning. */
export const MAX_DOCUMENT_CHUNKS = 100_000;
/** Pre-tokenizer pieces whose token counts the chunker remembers (words recur; ~10 MB of short strings at most). */
export const CHUNK_TOKEN_CACHE_PIECES = 100_000;
/** Pieces longer than this many characters are counted afresh every time (long runs rarely recur). */
export const CHUNK_TOKEN_CACHE_PIECE_CHARS = 64;

// --- Index ---
/** Bumped whenever the table layout changes. */
export const SCHEMA_VERSION = 3;
/** Default database folder, relative to the current folder (CLI). */
export const DEFAULT_DATABASE_FOLDER = '.haiku';
/** Files converted at once while indexing. */
export const INDEX_CONCURRENCY = 2;
/** Files the scan examines (synchronous stat) between turns of the event loop: ~1 ms on a local disk. */
export const SCAN_STATS_PER_TURN = 128;
/** The scan yields to the event loop after this long of synchronous stats, however few (a slow network folder) (ms). */
export const SCAN_TURN_MAX_MS = 10;
/** Sets of include/exclude globs kept compiled between scans (a settings change adds one; the oldest goes). */
export const SCAN_GLOB_CACHE_ENTRIES = 8;
/** A run without a conversion pool converts in-process (no worker start-up) when its changed files total at most this (bytes). */
export const INDEX_IN_PROCESS_MAX_BYTES = 128 * 1024;
/** … and are at most this many files. */
export const INDEX_IN_PROCESS_MAX_FILES = 8;
/** Source bytes converting or queued at once while indexing, for small and for big files each (2 files per worker go regardless): results wait in memory. */
export const INDEX_IN_FLIGHT_MAX_BYTES = 1024 * 1024;
/** Debounce of `optimize()` after a burst of incremental writes (ms). */
export const OPTIMIZE_DEBOUNCE_MS = 2_000;
/** Incremental writes (the watcher's) go to the recent-chunks side table, with its own small FTS index, up to this many rows; beyond it the main FTS index is rebuilt instead. */
export const RECENT_CHUNKS_MAX_ROWS = 2_000;
/** The recent-chunks table is folded into the main FTS index (a full rebuild) after this long without writes (ms). */
export const RECENT_CHUNKS_FOLD_IDLE_MS = 60_000;
/** Glob patterns indexed by default. */
export const DEFAULT_INCLUDE_GLOBS: readonly string[] = ['**/*.{md,markdown,mdx,html,htm,pdf,docx,odt,pptx,odp,xlsx,xlsm,ods,txt,rst,csv,tsv,ipynb,adoc,asciidoc}'];
/** Glob patterns never indexed (in addition to `.gitignore`). */
export const DEFAULT_EXCLUDE_GLOBS: readonly string[] = ['**/node_modules/**', '**/.git/**', '**/.haiku/**', '**/out/**', '**/dist/**'];
/** Documents written in one batch (one commit per table); 2048 rather than 256 cut SciFact's write CPU from 2.7 s to 1.5 s (fewer commits and fragments). */
export const INDEX_WRITE_BATCH_DOCUMENTS = 2048;
/** Chunks that close a write batch early, so big documents do not pile up in memory. */
export const INDEX_WRITE_BATCH_CHUNKS = 4096;
/** After a run's first batch, one of at least this many documents closes early when the files left are a quarter to an eighth of it: its write overlaps their conversion. */
export const INDEX_WRITE_TAIL_MIN_DOCUMENTS = 512;
/** A first build's upkeep compacts a table only above this many fragments (one per write batch); reads barely slow below it. */
export const COMPACTION_MIN_FRAGMENTS = 8;
/**
 * A chunks table of at least this many rows with vectors gets an ANN index (IVF-RQ) on them; below it LanceDB's exact
 * scan, a process's first vector search, takes about as long as a first full-text query (~40 ms at 20k 384-d rows).
 */
export const VECTOR_INDEX_MIN_ROWS = 20_000;
/** Rows per IVF partition of that index (100k chunks: 67 partitions, built in ~2.5 s on 2 cores). */
export const VECTOR_INDEX_ROWS_PER_PARTITION = 1_500;
/** Partitions an indexed vector search reads (LanceDB's default). */
export const VECTOR_INDEX_PROBES = 20;
/** Bits per dimension of the index's RaBitQ codes: 2 found 0.99-1.0 of the exact top 10 where 1 bit found 0.79-0.94 (64-d), at the same build and query time. */
export const VECTOR_INDEX_BITS = 2;
/**
 * An indexed vector search re-ranks this many times its limit by the exact vectors (the codes alone are coarse): 5
 * found the same top 50 as 10 on clustered 384-d rows (0.94-1.0 of the exact one) for ~10 ms less in a first query.
 */
export const VECTOR_INDEX_REFINE_FACTOR = 5;
/**
 * ...and at least this many candidates: a vector search's top 10 (13 rows asked) keeps the pool refine factor 10 gave
 * it (recall@10 0.98 on the tests' sparse vectors, against 0.957-0.977 from 5 × 13); a hybrid leg's 63 rows need none.
 */
export const VECTOR_INDEX_MIN_REFINED = 150;
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
/** The writer lease object of an index on object storage is re-put this often (ms; each beat is one GET and one PUT). */
export const LEASE_OBJECT_HEARTBEAT_MS = 5_000;
/** A lease object the server last saw written longer ago than this is stale (a killed writer) and taken over (ms). */
export const LEASE_OBJECT_STALE_MS = 60_000;
/** A waiting writer reads the lease object this often (ms). */
export const LEASE_OBJECT_POLL_MS = 1_000;
/** After putting the lease object a writer waits this long before reading it back to see whose token survived (ms). */
export const LEASE_OBJECT_SETTLE_MS = 500;
/** One object storage request (LanceDB's, the writer lease's) that gets no answer within this long fails (s). */
export const OBJECT_STORAGE_REQUEST_TIMEOUT_SECONDS = 15;
/** Connecting to object storage fails after this long (s). */
export const OBJECT_STORAGE_CONNECT_TIMEOUT_SECONDS = 5;
/** LanceDB starts no retry of a failing object storage request this long after its first attempt (s; object_store's default is 3 min). */
export const OBJECT_STORAGE_RETRY_TIMEOUT_SECONDS = 30;
/** A read-only (published) index is checked for a newer version this often in VS Code (ms; a few small requests each). */
export const REMOTE_REFRESH_INTERVAL_MS = 5 * 60_000;
/** A long-lived read-only reader of object storage (`haiku mcp --read-only`) asks the bucket for a newer version at most this often (ms; one listing each). */
export const REMOTE_VERSION_CHECK_INTERVAL_MS = 10_000;
/** A read-only consumer mirrors an `s3://` index into a local folder when the index is at most this large; all mirrors together stay under it (bytes). */
export const BUCKET_CACHE_MAX_BYTES = 2 * 1024 * 1024 * 1024;
/** Files a bucket mirror fetches at once while syncing. */
export const BUCKET_CACHE_DOWNLOAD_CONCURRENCY = 8;
/** After a failed refresh the first retry waits this long, doubling per failure (ms). */
export const REMOTE_REFRESH_RETRY_MIN_MS = 5_000;
/** Retries of a failing refresh wait at most this long (ms). */
export const REMOTE_REFRESH_RETRY_MAX_MS = 5 * 60_000;
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
/** Item and chunk rows of a document read between turns of the event loop: reading a 45,000-section document whole held an MCP server's other sessions for seconds. */
export const ITEM_READ_ROWS_PER_TURN = 2_000;
/** Vector cache bound for an index on object storage (bytes): a team index may be far larger than one laptop's, so above this LanceDB scans remotely. */
export const REMOTE_VECTOR_CACHE_MAX_BYTES = 128 * 1024 * 1024;
/** Chunk rows kept resident beside the vector cache for an index on object storage (bytes). */
export const REMOTE_RESIDENT_CHUNK_ROWS_MAX_BYTES = 32 * 1024 * 1024;
/** Item cache bound for an index on object storage (items). */
export const REMOTE_ITEM_CACHE_MAX_ITEMS = 25_000;
/** RRF constant fusing the rankings of several databases searched together (haiku.rag's multi-database search). */
export const MULTI_DATABASE_RRF_K = 60;
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
/** Model requests per question the analysis capability is active for before its tools but `cite` are withdrawn. */
export const ANALYSIS_REQUEST_LIMIT = 30;
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
/** Longest id a cite accepts (characters): a chunk id is 28, the rest is room for quotes, brackets and a `chunk_id:` prefix. */
export const CITED_ID_MAX_CHARS = 100;
/** Ids one cite call may pass; a larger list is refused at once. */
export const CITE_MAX_IDS = 1_000;
/** Unknown ids per cite call that are tried against the retrieved ids for a near-miss repair (each costs a scan). */
export const CITE_REPAIR_MAX_IDS = 50;
/** Longest search query the agent's tools and the sandbox's `search()` accept (characters). */
export const SEARCH_QUERY_MAX_CHARS = 1_000;
/** Model requests per question when the request limit is disabled (a hard stop against endless tool loops). */
export const AGENT_MAX_REQUESTS_UNLIMITED = 100;
/** Retries of a failed model request (transient server errors) before the question fails. */
export const MODEL_MAX_RETRIES = 1;

// --- Sandbox ---
/** Longest path `readFile`/`listDir` accept in the sandbox (characters). */
export const SANDBOX_PATH_MAX_CHARS = 1_024;
/** Wall-clock seconds one `execute_code` call has. */
export const SANDBOX_CODE_TIMEOUT_SECONDS = 60;
/** Characters of output kept per `execute_code` call; the rest is cut with a marker. */
export const SANDBOX_MAX_OUTPUT_CHARS = 50_000;
/** Memory one sandbox runtime may allocate (bytes). */
export const SANDBOX_MEMORY_LIMIT_BYTES = 64 * 1024 * 1024;
/** Wasm memory beyond the guest heap limit: Emscripten's stack and static data plus QuickJS's own baseline (bytes). */
export const SANDBOX_WASM_OVERHEAD_BYTES = 16 * 1024 * 1024;
/** V8 heap of a sandbox worker thread (old generation, MiB): bounds what the host side of the bridge may hold. */
export const SANDBOX_WORKER_HEAP_MB = 256;
/** V8 young generation of a sandbox worker (MiB): reading files allocates fast, and the default's scavenges cost ~a third more GC time. */
export const SANDBOX_WORKER_YOUNG_HEAP_MB = 64;
/** Characters of VFS files a sandbox worker keeps to answer repeated reads without crossing to the host thread. */
export const SANDBOX_WORKER_CACHE_CHARS = 32 * 1024 * 1024;
/** Most files one read sends ahead when guest code reads one file name across documents in listing order (the window grows up to this). */
export const SANDBOX_READ_AHEAD_MAX_FILES = 48;
/** Characters of files sent ahead with one read; the rest of a window follows with later reads. */
export const SANDBOX_READ_AHEAD_BATCH_CHARS = 4 * 1024 * 1024;
/** Documents in the synthetic analysis program a new sandbox worker runs before it reports ready (JIT warm-up). */
export const SANDBOX_WARM_UP_DOCUMENTS = 10;
/** `items.jsonl` lines per document of that warm-up program. */
export const SANDBOX_WARM_UP_LINES = 20;
/** Guest stack size; above 256 KiB deep recursion can overflow the host stack (see notes). */
export const SANDBOX_STACK_LIMIT_BYTES = 256 * 1024;
/** Default `limit` of `search()` inside the sandbox. */
export const SANDBOX_SEARCH_DEFAULT_LIMIT = 10;
/** Largest `limit` of `search()` inside the sandbox (larger requests are clamped). */
export const SANDBOX_SEARCH_MAX_LIMIT = 100;
/** Past the deadline, a search or read already running may take this long to finish before the call ends without it (s). */
export const SANDBOX_IN_FLIGHT_CALL_GRACE_SECONDS = 30;
/** After the deadline, the host waits this long for the worker's own report before killing it (ms). */
export const SANDBOX_WATCHDOG_GRACE_MS = 5_000;
/** A sandbox worker must have loaded QuickJS within this time (ms). */
export const SANDBOX_STARTUP_TIMEOUT_MS = 30_000;
/** Stack frames of a guest error kept in stderr; deep recursion would otherwise flood the output. */
export const SANDBOX_STACK_TRACE_LINES = 10;
/** Host calls (searches, reads) of one sandbox served at once; `Promise.all` over many searches queues the rest. */
export const SANDBOX_HOST_CALL_CONCURRENCY = 4;
/** Host calls one `execute_code` may have started and not yet settled; past it a call fails at once (20,000 parallel reads took the host to 3 GB). */
export const SANDBOX_HOST_CALLS_IN_FLIGHT_MAX = 256;
/** CPU time the guest's own error formatting may take (hostile getters on an error object) (ms). */
export const SANDBOX_ERROR_DESCRIPTION_BUDGET_MS = 1_000;

// --- VS Code ---
/** File-system events are collected this long before the index catches up (ms). */
export const INDEX_WATCH_DEBOUNCE_MS = 750;
/** Runs the runs panel keeps (oldest dropped first). */
export const RUNS_KEPT = 50;
/** Distinct pictures the runs panel shows as thumbnails per search step (and for a run's citations). */
export const RUNS_THUMBNAILS_PER_STEP = 8;
/** Largest picture sent to the runs webview as a data URI (bytes); larger ones show as a link that opens them. */
export const RUNS_THUMBNAIL_MAX_BYTES = 1_048_576;
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
/** Characters of a SQL filter (a user's, or one compiled from ~4,000 attached document ids); longer ones are rejected unparsed. */
export const FILTER_MAX_CHARS = 100_000;
/** Conditions (comparisons, LIKE, IN, BETWEEN, IS NULL) in one filter: LanceDB 0.31.0 crashes the process at ~700 chained ORs. */
export const FILTER_MAX_CONDITIONS = 200;
/** Nesting of parentheses, NOT and function calls in one filter: LanceDB's SQL parser refuses ~50 nested parentheses. */
export const FILTER_MAX_DEPTH = 12;

// --- Command line ---
// (CLI output and progress)
/** Columns `--help` text is wrapped to when output is not a terminal. */
export const HELP_WIDTH_WHEN_PIPED = 80;
/** V8 code-cache files kept per CLI bundle (newest first): one per installed version or Node, so two used in turn both stay cached. */
export const COMPILE_CACHE_FILES_PER_BUNDLE = 3;
/** Characters of the progress bar itself on a terminal. */
export const PROGRESS_BAR_WIDTH = 24;
/** Least time between two redraws of the progress bar in one phase (ms); phase changes draw at once. */
export const PROGRESS_REDRAW_INTERVAL_MS = 100;

// --- MCP server ---
// (the `haiku mcp` server)
/** Port of `haiku mcp --http` when `--port` is not given (haiku.rag's default). */
export const MCP_HTTP_DEFAULT_PORT = 8001;
/** Path of the Streamable HTTP endpoint (`http://127.0.0.1:<port>/mcp`). */
export const MCP_HTTP_PATH = '/mcp';
/** Largest JSON-RPC request body the HTTP transport reads; larger ones get 413. */
export const MCP_HTTP_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** HTTP sessions open at once: each may hold a sandbox worker (up to the sandbox memory limit). */
export const MCP_HTTP_MAX_SESSIONS = 16;
/** An HTTP session with no open request or stream for this long is closed (its sandbox freed): vanished clients send no DELETE (ms). */
export const MCP_HTTP_SESSION_IDLE_MS = 30 * 60 * 1000;
/** How often idle HTTP sessions are looked for, at most (ms). */
export const MCP_HTTP_SESSION_SWEEP_MS = 60 * 1000;
/** Random bytes of the bearer token `haiku mcp --http` generates when HAIKU_MCP_TOKEN is unset (256 bits). */
export const MCP_HTTP_TOKEN_BYTES = 32;
/** Largest `limit` of `search_documents` (larger requests are clamped). */
export const MCP_SEARCH_MAX_LIMIT = 50;
/** Characters of a document's text `get_document` returns; the rest is cut with a pointer to `read_section`. */
export const MCP_DOCUMENT_MAX_CHARS = 20_000;
/** Documents named when a path suffix matches several (a tool asks for more of the path, or the id). */
export const DOCUMENT_CANDIDATES_SHOWN = 10;
/** Characters of a section (or item range) `read_section` returns; the rest is cut with a marker. */
export const MCP_SECTION_MAX_CHARS = 40_000;
/**
 * Longest silence between two progress notifications of a long MCP call (ms): clients that reset their request
 * timeout on progress (the TypeScript SDK's `resetTimeoutOnProgress`, 60 s by default) keep waiting.
 */
export const MCP_PROGRESS_HEARTBEAT_MS = 10_000;

// --- Documents from URLs ---
// (`haiku add <url>`, MCP add_document_from_url)
/** A download larger than this is stopped and refused (bytes); the index's own file size limit applies too, whichever is smaller. */
export const URL_DOWNLOAD_MAX_BYTES = 50 * 1024 * 1024;
/** A server that does not accept the connection (TCP, and TLS for https) within this long is given up (ms). */
export const URL_CONNECT_TIMEOUT_MS = 10_000;
/** The whole fetch, redirects and body included, is given up after this long (ms). */
export const URL_FETCH_TIMEOUT_MS = 60_000;
/** Redirects followed per fetch (each hop's address checked again); one more is refused. */
export const URL_MAX_REDIRECTS = 5;
