import * as pdfjsLib from 'pdfjs-dist/build/pdf.mjs';

/**
 * pdf.js's viewer component reads the core library from `globalThis.pdfjsLib` when its module runs, so this
 * module is imported first (ES modules run in import order, and the bundle keeps that order).
 */
(globalThis as unknown as { pdfjsLib: typeof pdfjsLib }).pdfjsLib = pdfjsLib;

export { pdfjsLib };
