// The error a user must fix before the service can start, and the text of any thrown value.

/** A problem the user must fix before the service can start. The message is one line, printed as-is. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
