import type { Plugin } from 'esbuild';

/** The file the plugin writes beside the bundle. */
export declare const O200K_RANKS_FILE_NAME: string;
/** `outputFolder`: where the bundle is written (the JSON goes beside it). */
export declare function o200kRanksPlugin(outputFolder: string): Plugin;
