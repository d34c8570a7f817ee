import picomatch from 'picomatch';

/** The exclude globs as the scanner applies them, to files and to folders (relative paths, forward slashes). */
export interface ExcludeMatcher {
  file(relativePath: string): boolean;
  /** A glob ending in `/**` matches what lies below a folder, not the folder: a path inside it is asked. */
  folder(relativePath: string): boolean;
}

export function compileExcludeGlobs(globs: readonly string[]): ExcludeMatcher {
  const matches = picomatch([...globs], { dot: true });
  return {
    file: (relativePath) => matches(relativePath),
    folder: (relativePath) => matches(`${relativePath}/_`),
  };
}

/** Why `glob` is not a valid pattern (an unclosed bracket, brace or parenthesis), or undefined when it is. */
export function globProblem(glob: string): string | undefined {
  try {
    picomatch(glob, { strictBrackets: true });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
