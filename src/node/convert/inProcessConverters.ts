import { chunkDocumentWithinLimit } from '../../core/chunker';
import { convertBytes, converterFor, loadDocument } from './convertFile';
import { convertMarkdown } from './markdown';
import { prepareDocument } from './prepareDocument';

/**
 * What the main process converts and chunks with (a few small files; a document whose pictures were described; pages and texts `haiku add` brings; an added
 * page's stored text at a rebuild),
 * the esbuild entry of `dist/converters.js`. Loaded on first use by `loadInProcessConverters`, never imported.
 */
export const inProcessConverters = { prepareDocument, chunkDocumentWithinLimit, convertMarkdown, convertBytes, converterFor, loadDocument };
