/** Thrown when the binaries can be neither found nor built; its message says what to install or set. */
export class AssetsUnavailableError extends Error {
  override readonly name = 'AssetsUnavailableError';
}
