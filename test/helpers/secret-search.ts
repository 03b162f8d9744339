/**
 * Searching text for secrets in the clear: the raw value and the encodings a careless
 * log line or record would use (URL-encoded, base64, base64url, lower/upper case).
 * Short numeric secrets (one-time codes) match only as whole tokens, so that digits
 * inside a timestamp or a hash do not count.
 */
export interface KnownSecret {
  /** What it is, for the failure message (never the value). */
  label: string;
  value: string;
}

function variants(value: string): string[] {
  const all = new Set([
    value,
    encodeURIComponent(value),
    Buffer.from(value, 'utf8').toString('base64'),
    Buffer.from(value, 'utf8').toString('base64url'),
    JSON.stringify(value).slice(1, -1),
  ]);
  // Case changes matter for case-insensitive secrets (base32 TOTP secrets, hex).
  if (/^[A-Z2-7=]+$/.test(value) || /^[0-9a-f]+$/i.test(value)) {
    all.add(value.toLowerCase());
    all.add(value.toUpperCase());
  }
  return [...all].filter((variant) => variant.length >= 6);
}

const escapeRegExp = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether `text` holds `secret` (or an encoding of it) in the clear. */
export function containsSecret(text: string, secret: string): boolean {
  return variants(secret).some((variant) => {
    if (/^[0-9]{1,10}$/.test(variant)) return new RegExp(`(?<![0-9A-Za-z])${escapeRegExp(variant)}(?![0-9A-Za-z])`).test(text);
    return text.includes(variant);
  });
}

/** The labels of the secrets found in `text`. */
export function secretsIn(text: string, secrets: KnownSecret[]): string[] {
  return secrets.filter((secret) => containsSecret(text, secret.value)).map((secret) => secret.label);
}

/**
 * Captures everything written to stdout, stderr and the console until `stop()`,
 * still passing it through: "all log output", not only the service's logger.
 */
export function captureOutput() {
  const chunks: string[] = [];
  const stdout = process.stdout.write.bind(process.stdout);
  const stderr = process.stderr.write.bind(process.stderr);
  const methods = ['log', 'info', 'warn', 'error', 'debug'] as const;
  const originals = methods.map((method) => console[method]);
  const tap =
    (write: typeof process.stdout.write) =>
    (chunk: unknown, ...rest: unknown[]): boolean => {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    };
  process.stdout.write = tap(stdout) as typeof process.stdout.write;
  process.stderr.write = tap(stderr) as typeof process.stderr.write;
  methods.forEach((method, index) => {
    console[method] = (...args: unknown[]) => {
      chunks.push(args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' '));
      (originals[index] as (...args: unknown[]) => void)(...args);
    };
  });
  return {
    text: () => chunks.join('\n'),
    stop() {
      process.stdout.write = stdout;
      process.stderr.write = stderr;
      methods.forEach((method, index) => {
        console[method] = originals[index] as (typeof console)[typeof method];
      });
    },
  };
}
