/** Plain-text tables for the terminal. */

export type Cell = string | number | undefined;

export function fixed(value: number | undefined, digits = 1): string {
  return value === undefined || Number.isNaN(value) ? '-' : value.toFixed(digits);
}

export function whole(value: number | undefined): string {
  return value === undefined || Number.isNaN(value) ? '-' : Math.round(value).toLocaleString('en-US');
}

/** A table with a header row; numeric-looking columns are right-aligned. */
export function table(title: string, header: string[], rows: Cell[][]): string {
  const text = rows.map((row) => header.map((_, i) => String(row[i] ?? '')));
  const widths = header.map((name, i) => Math.max(name.length, ...text.map((row) => (row[i] ?? '').length)));
  const numeric = header.map((_, i) => text.length > 0 && text.every((row) => /^[-\d.,×%x ]*$/.test(row[i] ?? '')));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (numeric[i] ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [`\n${title}`, line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...text.map(line)].join('\n');
}
