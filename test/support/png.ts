/** Decodes a PNG for assertions; fast-png is ESM-only, so it is loaded dynamically from the CommonJS tests. */
export async function decodePng(bytes: Uint8Array): Promise<{ width: number; height: number; channels: number; data: ArrayLike<number> }> {
  const { decode } = await import('fast-png');
  return decode(bytes);
}
