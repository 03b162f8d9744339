/**
 * Structured JSON logging. A log line is one JSON object: level, event name, time,
 * and the fields given. Callers pass identifiers (tenant, user id, username, request
 * id), never a password, token, code or secret; `redact` is a second line of defence
 * for field names that must never carry values.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(event: string, fields?: LogFields): void;
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
  /** A logger whose lines all carry `fields` (e.g. the request id). */
  child(fields: LogFields): Logger;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET_FIELD = /pass(word)?|secret|token|code|authorization|cookie|otp/i;

function redact(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = SECRET_FIELD.test(key) ? '[redacted]' : value;
  }
  return out;
}

/**
 * V8's JSON.parse messages quote the text around the fault, which may be a request body
 * or a key document: a SyntaxError is logged without its message. Secret documents are
 * parsed with fixed messages of their own (lib/secrets/document); this is the second line.
 */
const WITHHELD = 'SyntaxError (message withheld: it may quote the text being parsed)';

function describeError(error: unknown): LogFields {
  if (error instanceof SyntaxError) {
    return {
      errorName: error.name,
      errorMessage: WITHHELD,
      stack: error.stack
        ?.split('\n')
        .filter((line) => /^\s+at /.test(line))
        .join('\n'),
    };
  }
  if (error instanceof Error) {
    return { errorName: error.name, errorMessage: error.message, stack: error.stack };
  }
  return { errorMessage: String(error) };
}

/** A JSON-lines logger writing through `write` (stdout by default). */
export function createLogger(
  level: LogLevel = 'info',
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  base: LogFields = {},
): Logger {
  const emit = (lineLevel: LogLevel, event: string, fields: LogFields = {}) => {
    if (ORDER[lineLevel] < ORDER[level]) return;
    const { error, ...rest } = fields;
    const line = {
      level: lineLevel,
      time: new Date().toISOString(),
      event,
      ...redact(base),
      ...redact(rest),
      ...(error === undefined ? {} : describeError(error)),
    };
    write(JSON.stringify(line));
  };
  return {
    debug: (event, fields) => emit('debug', event, fields),
    info: (event, fields) => emit('info', event, fields),
    warn: (event, fields) => emit('warn', event, fields),
    error: (event, fields) => emit('error', event, fields),
    child: (fields) => createLogger(level, write, { ...base, ...fields }),
  };
}
