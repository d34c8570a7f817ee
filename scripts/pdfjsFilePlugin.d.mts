import type { Plugin } from 'esbuild';

/** The file the plugin copies beside the bundle. */
export declare const PDFJS_FILE_NAME: string;
/** `outputFolder`: where the bundle is written (the file goes beside it). */
export declare function pdfjsFilePlugin(outputFolder: string): Plugin;
