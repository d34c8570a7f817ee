/**
 * Every id the extension registers, in one place without a `vscode` import, so a unit test can check them
 * against package.json's `contributes` and the code registers them by these constants only.
 */
export const COMMANDS = {
  buildIndex: 'haiku.buildIndex',
  rebuildIndex: 'haiku.rebuildIndex',
  refreshIndex: 'haiku.refreshIndex',
  pauseIndexing: 'haiku.pauseIndexing',
  resumeIndexing: 'haiku.resumeIndexing',
  indexCurrentFile: 'haiku.indexCurrentFile',
  showOutput: 'haiku.showOutput',
  setApiKey: 'haiku.setApiKey',
  insertCitation: 'haiku.insertCitation',
  search: 'haiku.search',
  showRuns: 'haiku.showRuns',
  openChunk: 'haiku.openChunk',
  openSection: 'haiku.openSection',
  askAboutSection: 'haiku.askAboutSection',
  copyCitation: 'haiku.copyCitation',
  reindexDocument: 'haiku.reindexDocument',
  openPicture: 'haiku.openPicture',
  openPdfAsText: 'haiku.openPdfAsText',
  openPdfViewer: 'haiku.openPdfViewer',
} as const;

export type CommandId = (typeof COMMANDS)[keyof typeof COMMANDS];

export const PARTICIPANT_ID = 'haiku.participant';
/** The participant's slash commands (`/ask`, `/analyze`, `/search`). */
export const PARTICIPANT_COMMANDS = ['ask', 'analyze', 'search'] as const;
export type ParticipantCommand = (typeof PARTICIPANT_COMMANDS)[number];

export const TOOL_NAMES = {
  search: 'haiku_search',
  listDocuments: 'haiku_listDocuments',
  readSection: 'haiku_readSection',
  readPicture: 'haiku_readPicture',
  analyze: 'haiku_analyze',
} as const;

export const SECTIONS_VIEW_ID = 'haiku.sections';
/** The PDF viewer custom editor (an option for `*.pdf`, never the default). */
export const PDF_VIEWER_TYPE = 'haiku.pdfViewer';
export const MODEL_VENDOR = 'haiku';
/** The model id of Haiku's search-only picker entry, offered while no chat model exists (its requests only search). */
export const SEARCH_ONLY_MODEL_ID = 'haiku-search-only';
/** Scheme of the read-only Markdown renderings of PDF and DOCX documents. */
export const DOCUMENT_SCHEME = 'haiku-doc';
/** Context keys the `when` clauses of package.json read. */
export const CONTEXT_KEYS = { indexState: 'haiku.indexState', workspaceUntrusted: 'haiku.workspaceUntrusted' } as const;
