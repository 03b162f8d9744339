/**
 * A secret document (signing keys, the MFA key file, the client-secret pepper) that
 * cannot be used. Its message is fixed text naming what is wrong and where (a key id at
 * most), never a piece of the document: these messages reach the logs.
 */
export class SecretDocumentError extends Error {
  override name = 'SecretDocumentError';
}

/**
 * JSON.parse for secret documents. V8's own message quotes about ten characters either
 * side of the fault, which in a key document is key material; this one says only which
 * document it was.
 */
export function parseSecretJson(text: string, document: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new SecretDocumentError(`${document} is not valid JSON`);
  }
}

/** Whether `value` is a plain object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
