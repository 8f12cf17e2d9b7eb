/** Small statistics for benchmark samples. */
export interface Summary {
  median: number;
  min: number;
  max: number;
  /** Samples taken. */
  n: number;
}

export function summarize(samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const n = sorted.length;
  const median = n === 0 ? NaN : n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  return { median, min: sorted[0] ?? NaN, max: sorted[n - 1] ?? NaN, n };
}

/** Formats milliseconds with three significant digits. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return '–';
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  if (value >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

/** A Markdown table. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const line = (cells: string[]): string => `| ${cells.map((cell, c) => cell.padEnd(widths[c])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** The widest a printed table should be (a terminal's 120 columns). */
export const TABLE_WIDTH = 120;

/** `text` wrapped at `width` columns, each line after the first starting with `indent`. */
export function wrap(text: string, width = TABLE_WIDTH, first = '', indent = first.replace(/./g, ' ')): string {
  const lines: string[] = [];
  let line = first;
  for (const word of text.split(/ +/)) {
    const fresh = line === first || line === indent;
    if (!fresh && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent + word;
    } else line += (fresh ? '' : ' ') + word;
  }
  lines.push(line);
  return lines.join('\n');
}

const empty = (cell: string): boolean => cell === '' || cell === '–';

/**
 * A Markdown table that fits a terminal: columns empty ('' or '–') in every row are left out,
 * and a cell of the `notes` column (its header) too long to fit `width` is replaced by `[k]`,
 * its text listed under the table. Returns the table and those notes.
 */
export function compactTable(
  header: string[],
  rows: string[][],
  notesColumn?: string,
  width = TABLE_WIDTH,
): { text: string; notes: string[] } {
  const keep = header.map((_, c) => rows.some((r) => !empty(r[c])));
  let h = header.filter((_, c) => keep[c]);
  let body = rows.map((r) => r.filter((_, c) => keep[c]));
  const notes: string[] = [];
  const n = notesColumn === undefined ? -1 : h.indexOf(notesColumn);
  if (n >= 0) {
    const others = h.reduce(
      (sum, title, c) => sum + (c === n ? 0 : Math.max(title.length, ...body.map((r) => r[c].length)) + 3),
      4,
    );
    const room = Math.max(width - others, notesColumn!.length, 6);
    body = body.map((r) =>
      r.map((cell, c) => {
        if (c !== n || cell.length <= room) return cell;
        notes.push(cell);
        return `[${notes.length}]`;
      }),
    );
    if (body.every((r) => empty(r[n]))) {
      h = h.filter((_, c) => c !== n);
      body = body.map((r) => r.filter((_, c) => c !== n));
    }
  }
  return { text: table(h, body), notes: notes.map((note, k) => wrap(note, width, `[${k + 1}] `)) };
}
